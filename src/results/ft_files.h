/* ft_files.h — the FasterTransformer benchmark inputs of one inference
 * configuration: config.ini and start_ids.csv (reference §7).
 *
 * config.ini has the layout FasterTransformer's generate_gpt_config.py writes
 * (Python configparser: "[section]", "key = value", a blank line after each
 * section), read by multi_gpu_gpt_example:
 *   [ft_instance_hyperparameter] max_batch_size, max_seq_len, beam_width,
 *     top_k, top_p, temperature, tensor_para_size, pipeline_para_size,
 *     is_half, data_type, model_name = tmp_model, model_dir,
 *     repetition_penalty, len_penalty, beam_search_diversity_rate
 *   [request] request_batch_size, request_output_len
 *   [tmp_model] head_num, size_per_head, inter_size, vocab_size,
 *     decoder_layers, start_id, end_id
 * Differences from the original, on purpose: max_batch_size is the request
 * batch size (the original left the generator's default 8, too small for its
 * own batch sizes above 8); data_type is written next to is_half (newer
 * FasterTransformer reads data_type, older is_half).
 *
 * start_ids.csv: bs lines of input_len token ids 198 joined by ", " (what
 * generate_start_ids.py writes).
 */
#ifndef AC_RESULTS_FT_FILES_H
#define AC_RESULTS_FT_FILES_H

#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

typedef struct {
    int max_batch_size, max_seq_len, beam_width, top_k;
    double top_p, temperature;
    int tensor_para_size, pipeline_para_size;
    char data_type[16]; /* fp16 | bf16 | fp8 | fp32 */
    char model_dir[256];
    double repetition_penalty, len_penalty, beam_search_diversity_rate;
    int request_batch_size, request_output_len;
    int head_num, size_per_head, inter_size, vocab_size, decoder_layers, start_id, end_id;
} results_ft_config;

/* the generator's defaults (temperature 1, penalties 1, diversity 0, ids 50256,
 * model_dir ./models/) with every model/request field 0 */
void results_ft_config_defaults(results_ft_config *f);

/* vocabulary padded to a multiple of divisible_by (> 1), rounding up only when
 * not already divisible.  (The original computed d·(n//d + 1), a full extra
 * step even when n was already a multiple: 51200 → 51328.) */
int results_ft_vocab_padded(int vocab, int divisible_by);

/* number of top-level keys of a JSON object (a tokenizer vocab.json);
 * -1 when the text is not a JSON object */
long results_json_object_size(const char *text, size_t len);

/* appends config.ini / start_ids.csv text */
void results_ft_config_ini(strbuf *b, const results_ft_config *f);
void results_ft_start_ids(strbuf *b, int batch_size, int input_len);

/* writes <dir>/config.ini and <dir>/start_ids.csv atomically (dir must exist) */
int results_ft_write(const char *dir, const results_ft_config *f, int input_len, ac_err *e);

#endif
