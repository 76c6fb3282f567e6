/* ft_files.c — FasterTransformer config.ini and start_ids.csv (ft_files.h). */
#include "results/ft_files.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

void results_ft_config_defaults(results_ft_config *f)
{
    memset(f, 0, sizeof *f);
    f->beam_width = 1;
    f->top_k = 1;
    f->temperature = 1.0;
    f->repetition_penalty = 1.0;
    f->len_penalty = 1.0;
    f->tensor_para_size = f->pipeline_para_size = 1;
    f->start_id = f->end_id = 50256;
    snprintf(f->data_type, sizeof f->data_type, "fp16");
    snprintf(f->model_dir, sizeof f->model_dir, "./models/");
}

/* Megatron's vocabulary padding: the next multiple of d at or above n (ours; the original always added a step) */
int results_ft_vocab_padded(int vocab, int divisible_by)
{
    if (divisible_by <= 1 || vocab <= 0 || vocab % divisible_by == 0) return vocab;
    return (vocab / divisible_by + 1) * divisible_by;
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && isspace((unsigned char)s[i])) i++;
    return i;
}

/* index after the JSON string starting at s[i] == '"', or n+1 when unterminated */
static size_t skip_string(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\') i++;
        else if (s[i] == '"') return i + 1;
    }
    return n + 1;
}

long results_json_object_size(const char *s, size_t n)
{
    size_t i = skip_ws(s, 0, n);
    if (i >= n || s[i] != '{') return -1;
    long keys = 0;
    int depth = 0;
    bool expect_key = true;
    for (; i < n; i++) {
        char ch = s[i];
        if (ch == '"') {
            if (depth == 1 && expect_key) { keys++; expect_key = false; }
            i = skip_string(s, i, n) - 1;
            if (i >= n) return -1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 0) return skip_ws(s, i + 1, n) == n ? keys : -1;
        } else if (ch == ',' && depth == 1) {
            expect_key = true;
        }
    }
    return -1;
}

/* Python's str(float): the shortest digits that read back the same, with ".0" for whole numbers */
static void py_float(double v, char *buf, size_t len)
{
    /* fixed notation below 1e16, as Python's repr; fewest decimals that read back */
    if (fabs(v) < 1e16) {
        for (int k = 1; k <= 17; k++) {
            snprintf(buf, len, "%.*f", k, v);
            if (strtod(buf, NULL) == v) break;
        }
    } else {
        snprintf(buf, len, "%.17g", v);
    }
    if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", len - strlen(buf) - 1);
}

void results_ft_config_ini(strbuf *b, const results_ft_config *f)
{
    char tp[40], temp[40], rp[40], lp[40], dv[40];
    py_float(f->top_p, tp, sizeof tp);
    py_float(f->temperature, temp, sizeof temp);
    py_float(f->repetition_penalty, rp, sizeof rp);
    py_float(f->len_penalty, lp, sizeof lp);
    py_float(f->beam_search_diversity_rate, dv, sizeof dv);
    sb_add(b, "[ft_instance_hyperparameter]\n");
    sb_printf(b, "max_batch_size = %d\n", f->max_batch_size);
    sb_printf(b, "max_seq_len = %d\n", f->max_seq_len);
    sb_printf(b, "beam_width = %d\n", f->beam_width);
    sb_printf(b, "top_k = %d\n", f->top_k);
    sb_printf(b, "top_p = %s\n", tp);
    sb_printf(b, "temperature = %s\n", temp);
    sb_printf(b, "tensor_para_size = %d\n", f->tensor_para_size);
    sb_printf(b, "pipeline_para_size = %d\n", f->pipeline_para_size);
    sb_printf(b, "is_half = %d\n", strcmp(f->data_type, "fp32") != 0);
    sb_printf(b, "data_type = %s\n", f->data_type);
    sb_add(b, "model_name = tmp_model\n");
    sb_printf(b, "model_dir = %s\n", f->model_dir);
    sb_printf(b, "repetition_penalty = %s\n", rp);
    sb_printf(b, "len_penalty = %s\n", lp);
    sb_printf(b, "beam_search_diversity_rate = %s\n\n", dv);
    sb_add(b, "[request]\n");
    sb_printf(b, "request_batch_size = %d\n", f->request_batch_size);
    sb_printf(b, "request_output_len = %d\n\n", f->request_output_len);
    sb_add(b, "[tmp_model]\n");
    sb_printf(b, "head_num = %d\n", f->head_num);
    sb_printf(b, "size_per_head = %d\n", f->size_per_head);
    sb_printf(b, "inter_size = %d\n", f->inter_size);
    sb_printf(b, "vocab_size = %d\n", f->vocab_size);
    sb_printf(b, "decoder_layers = %d\n", f->decoder_layers);
    sb_printf(b, "start_id = %d\n", f->start_id);
    sb_printf(b, "end_id = %d\n\n", f->end_id);
}

void results_ft_start_ids(strbuf *b, int batch_size, int input_len)
{
    for (int i = 0; i < batch_size; i++) {
        for (int j = 0; j < input_len; j++) sb_add(b, j ? ", 198" : "198");
        sb_add(b, "\n");
    }
}

/* writes b (freed) as dir/name (fs_write_text_in) */
static int write_buf(const char *dir, const char *name, strbuf *b, ac_err *e)
{
    int rc = sb_str(b) ? fs_write_text_in(dir, name, sb_str(b), e) : ac_err_set(e, AC_E_NOMEM, "out of memory building %s", name);
    sb_free(b);
    return rc;
}

int results_ft_write(const char *dir, const results_ft_config *f, int input_len, ac_err *e)
{
    strbuf b;
    sb_init(&b);
    results_ft_config_ini(&b, f);
    if (write_buf(dir, "config.ini", &b, e) != 0) return -1;
    sb_init(&b);
    results_ft_start_ids(&b, f->request_batch_size, input_len);
    return write_buf(dir, "start_ids.csv", &b, e);
}
