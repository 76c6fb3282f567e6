/* fuzz_hf_config.c — the Hugging Face config.json reader on arbitrary bytes; a
 * shape it accepts goes through the LoRA target mapping and the estimator as
 * `autoconfig cost --hf-config` would use it. */
#include <stdint.h>
#include <stdlib.h>

#include "cost/cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cost_model m;
    ac_err e;
    if (cost_hf_config_parse((const char *)data, size, "fuzz.json", &m, &e) != 0) return 0;
    int targets;
    (void)cost_lora_targets("all-linear", &m.shape, &targets, &e);
    if (gpu_catalog_load(&e)) return 0;
    est_input in;
    est_result r;
    est_input_init(&in, &m.shape, gpu_find("a100_80gb"));
    in.shape.seq_length = m.max_context < 8192 ? m.max_context : 8192;
    in.num_gpus = 1;
    (void)est_evaluate(&in, &r);
    return 0;
}
