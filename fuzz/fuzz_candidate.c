/* fuzz_candidate.c — a candidate NeMo config (YAML) read back into an estimator
 * input (candidate_est_from_nemo: what emulate-job and calibrate do) and scored.
 * Nothing may crash or overflow (issue 26: trainer.num_nodes x devices did). */
#include <stdint.h>
#include <stdlib.h>

#include "config/yaml_io.h"
#include "estimator/est.h"
#include "search/candidate_est.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ac_err e;
    node *cfg = yaml_load_string((const char *)data, size, "fuzz.yaml", &e);
    if (!cfg) return 0;
    est_input in;
    est_result r;
    if (candidate_est_from_nemo(cfg, NULL, &in, &e) == 0 && est_evaluate(&in, &r) == 0 && r.step_time < 0) abort();
    node_free(cfg);
    return 0;
}
