/* gpu.c — the catalog parsed from the compiled-in data/gpus.csv. */
#include "estimator/gpu.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/layer_cost.h"
#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_gpus[]; /* build/gen/data_gpus.c */

enum { GPU_MAX = 64 };
static gpu_spec catalog[GPU_MAX];
static size_t catalog_n;

static int num_field(const csv_table *t, const csv_row *r, const char *col, double *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || v < 0)
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, col, "not a non-negative number: '%s'", s);
    *out = v;
    return 0;
}

/* an optional column: blank is 0; else a number (num_field) in (0, hi) */
static int optional_field(const csv_table *t, const csv_row *r, const char *col, double hi, double *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    *out = 0;
    if (!*s) return 0;
    if (num_field(t, r, col, out, e)) return -1;
    if (!(*out > 0 && *out < hi)) return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, col, "not a number in (0, %g): '%s'", hi, s);
    return 0;
}

int gpu_catalog_load(ac_err *e)
{
    if (catalog_n) return 0;
    csv_table t;
    if (csv_parse(ac_data_gpus, strlen(ac_data_gpus), "data/gpus.csv", &t, e)) return -1;
    static const char *const text_cols[] = {"name", "aliases", "match", "attn_burst_8k", "attn_block_overhead", "source"};
    static const char *const num_cols[] = {"bf16_tflops", "fp8_tflops", "fp4_tflops", "memory_gb", "hbm_gbps",
                                           "nvlink_gbps", "nvlink_domain", "scaleout_gbps", "gpus_per_node",
                                           "price_usd_per_gpu_hour", "gemm_eff", "fp8_gemm_eff", "attn_speedup", "host_gbps",
                                           "fp8_weight_copies", "sm_count", "sm_arch", "bf16_flops_per_sm_clock",
                                           "gemm_clock_mhz", "host_link_gpus", "sfu_ops_per_sm_clock"};
    if (csv_require_cols(&t, text_cols, sizeof text_cols / sizeof *text_cols, AC_E_INTERNAL, NULL, e) ||
        csv_require_cols(&t, num_cols, sizeof num_cols / sizeof *num_cols, AC_E_INTERNAL, NULL, e)) {
        csv_free(&t);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < t.n && n < GPU_MAX; i++) {
        const csv_row *r = &t.rows[i];
        gpu_spec g = {0};
        enum { NUM_COLS = sizeof num_cols / sizeof *num_cols };
        double v[NUM_COLS];
        for (size_t k = 0; k < NUM_COLS; k++)
            if (num_field(&t, r, num_cols[k], &v[k], e)) { csv_free(&t); return -1; }
        snprintf(g.name, sizeof g.name, "%s", csv_get(r, csv_col(&t, "name")));
        snprintf(g.aliases, sizeof g.aliases, "%s", csv_get(r, csv_col(&t, "aliases")));
        snprintf(g.match, sizeof g.match, "%s", csv_get(r, csv_col(&t, "match")));
        snprintf(g.source, sizeof g.source, "%s", csv_get(r, csv_col(&t, "source")));
        g.bf16_tflops = v[0]; g.fp8_tflops = v[1]; g.fp4_tflops = v[2];
        g.memory_gb = v[3]; g.hbm_gbps = v[4]; g.nvlink_gbps = v[5];
        g.nvlink_domain = (int)v[6]; g.scaleout_gbps = v[7]; g.gpus_per_node = (int)v[8];
        g.price_per_hour = v[9]; g.gemm_eff = v[10]; g.fp8_gemm_eff = v[11];
        g.attn_speedup = v[12]; g.host_gbps = v[13]; g.fp8_weight_copies = (int)v[14];
        g.sm_count = (int)v[15];
        g.sm_arch = (int)v[16];
        double flops_per_clock = v[17], gemm_clock_mhz = v[18];
        g.host_link_gpus = (int)v[19];
        double sfu_per_clock = v[20];
        if (!g.name[0] || g.bf16_tflops <= 0 || g.memory_gb <= 0 || g.hbm_gbps <= 0 || g.nvlink_domain < 1 ||
            g.gpus_per_node < 1 || g.gemm_eff <= 0 || g.gemm_eff > 1 || g.fp8_gemm_eff > 1 ||
            g.attn_speedup <= 0 || g.host_gbps <= 0 || g.host_link_gpus < 1 || g.fp8_weight_copies > 2 || g.sm_count < 1 || g.sm_arch < 50 ||
            (g.fp8_tflops > 0) != (g.fp8_weight_copies > 0) || flops_per_clock <= 0 || sfu_per_clock <= 0) {
            ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, g.name, "incomplete GPU row");
            csv_free(&t);
            return -1;
        }
        /* the datasheet's clock: its bf16 peak over SMs x per-SM rate (A100 1410 MHz, H100
         * 1830, B200 and B300 1856, GB200 and GB300 2021) */
        double datasheet_mhz = g.bf16_tflops * 1e6 / (g.sm_count * flops_per_clock);
        g.clock_scale = gemm_clock_mhz > 0 ? gemm_clock_mhz / datasheet_mhz : 1.0;
        g.mma_per_exp = flops_per_clock / sfu_per_clock;
        /* optional: blank where the GPU's attention kernel is not measured on its own */
        if (optional_field(&t, r, "attn_burst_8k", 1.0, &g.attn_burst_8k, e) ||
            optional_field(&t, r, "attn_block_overhead", 64.0, &g.attn_block_overhead, e)) {
            csv_free(&t);
            return -1;
        }
        g.gemm_ref16 = layer_gemm_shape_k(g.sm_count, 8192.0, 8192.0, 8192.0, layer_gemm_k_fill(2.0));
        g.gemm_ref8 = layer_gemm_shape_k(g.sm_count, 8192.0, 8192.0, 8192.0, layer_gemm_k_fill(1.0));
        catalog[n++] = g;
    }
    csv_free(&t);
    catalog_n = n;
    return 0;
}

size_t gpu_count(void) { return catalog_n; }

const gpu_spec *gpu_at(size_t i) { return i < catalog_n ? &catalog[i] : NULL; }

/* does the '|'-list contain word (name comparison)? */
const gpu_spec *gpu_find(const char *name)
{
    if (!name || !*name || gpu_catalog_load(NULL)) return NULL;
    for (size_t i = 0; i < catalog_n; i++)
        if (!text_name_cmp(catalog[i].name, name)) return &catalog[i];
    for (size_t i = 0; i < catalog_n; i++)
        if (text_list_has(catalog[i].aliases, name)) return &catalog[i];
    return NULL;
}

/* pat occurs in text as a whole word at its ends: "L4" is not in "L40S", "H200" not in "GH200",
 * but "A100" is in "8xA100", "A100s" and "A100x8" (each occurrence is tried; case ignored) */
static bool matches_whole(const char *text, const char *pat)
{
    size_t l = strlen(pat);
    for (const char *at = text_find_ci(text, pat); at; at = text_find_ci(at + 1, pat)) {
        /* a count before it ("8xA100") is no part of the name */
        bool count = at - text >= 2 && (at[-1] == 'x' || at[-1] == 'X') && isdigit((unsigned char)at[-2]);
        bool start_ok = at == text || count || !isalnum((unsigned char)at[-1]) || !isalnum((unsigned char)pat[0]);
        /* a plural or a count after it ("A100s", "H100x8") is no part of the name either */
        const char *after = at + l;
        bool suffix = ((after[0] == 's' || after[0] == 'S') && !isalnum((unsigned char)after[1])) ||
                      ((after[0] == 'x' || after[0] == 'X') && isdigit((unsigned char)after[1]));
        bool end_ok = suffix || !isalnum((unsigned char)after[0]) || !isalnum((unsigned char)pat[l - 1]);
        if (start_ok && end_ok) return true;
    }
    return false;
}

const gpu_spec *gpu_match(const char *text)
{
    if (!text || gpu_catalog_load(NULL)) return NULL;
    const gpu_spec *named = gpu_find(text); /* a catalog name or alias as written (llm-foundry's a100_40gb) */
    if (named) return named;
    const gpu_spec *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < catalog_n; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", catalog[i].match);
        for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|")) {
            size_t l = strlen(tok);
            if (l > best_len && matches_whole(text, tok)) { best = &catalog[i]; best_len = l; }
        }
    }
    return best;
}

double gpu_stated_memory_gb(const char *text)
{
    if (!text) return 0.0;
    for (const char *p = text; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '.'))) continue;
        char *end;
        double v = strtod(p, &end);
        const char *u = end;
        while (*u == ' ') u++;
        /* "64GB", "94 GB", "96GiB": gigabytes (B, not the b of a network's Gb/s) */
        bool gb = (u[0] == 'G' || u[0] == 'g') && (u[1] == 'B' || (u[1] == 'i' && u[2] == 'B'));
        if (!gb && u[0] == 'g' && u[1] == 'b' && !isalpha((unsigned char)u[2])) gb = true; /* "40gb" */
        if (gb && v >= 4 && v <= 1024) return v;
        p = end - 1;
    }
    return 0.0;
}

double gpu_other_memory_gb(const gpu_spec *g, const char *text)
{
    double stated = gpu_stated_memory_gb(text);
    return g && stated > 0 && fabs(stated - g->memory_gb) > 0.05 * g->memory_gb ? stated : 0.0;
}

const gpu_spec *gpu_default_for_memory(int gpu_memory_gb)
{
    return gpu_find(gpu_memory_gb <= 40 ? "a100_40gb" : "a100_80gb");
}

void gpu_names_where(char *buf, size_t len, bool (*keep)(const gpu_spec *g, const void *ctx), const void *ctx)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (gpu_catalog_load(NULL)) return;
    for (size_t i = 0; i < catalog_n && used < len; i++) {
        if (keep && !keep(&catalog[i], ctx)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", catalog[i].name);
        if (w < 0) return;
        used += (size_t)w;
    }
}

void gpu_names(char *buf, size_t len) { gpu_names_where(buf, len, NULL, NULL); }

const char *gpu_suggest(const char *name)
{
    if (!name || gpu_catalog_load(NULL)) return NULL;
    /* aliases count too ("h100x" is one edit from the alias "h100", three from
     * "h100_sxm"); the suggestion is always the canonical name */
    text_nearest near;
    text_nearest_init(&near, 3);
    for (size_t i = 0; i < catalog_n; i++) {
        text_nearest_offer(&near, name, catalog[i].name);
        text_nearest_offer_aliases(&near, name, catalog[i].aliases, catalog[i].name);
    }
    return near.best;
}
