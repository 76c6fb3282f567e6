/* fuzz_calibration.c — a per-cluster calibration CSV (key,value rows) applied over
 * the defaults, then one estimate with it: every accepted file keeps the
 * prediction finite (issue 26: compute_scale 1e308 gave an MFU of 553 %). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "estimator/est.h"
#include "estimator/gpu.h"
#include "model/family.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static est_cal base;
    static bool ready;
    ac_err e;
    if (!ready) {
        if (est_cal_default(&base, &e) || gpu_catalog_load(&e)) return 0;
        ready = true;
    }
    est_cal cal = base;
    if (est_cal_load_text((const char *)data, size, "fuzz.csv", &cal, &e) != 0) return 0;
    model_shape s = { 0 };
    s.arch = ARCH_DECODER;
    s.num_layers = 24;
    s.hidden = 4096;
    s.heads = 32;
    s.query_groups = 32;
    s.kv_channels = 128;
    s.ffn_hidden = 16384;
    s.vocab = 51200;
    s.seq_length = 2048;
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    in.num_gpus = 8;
    in.gpus_per_node = 8;
    in.tp = 2;
    in.mbs = 1;
    in.gbs = 64;
    in.cal = &cal;
    est_result r;
    if (est_evaluate(&in, &r) == 0 && (!isfinite(r.step_time) || r.step_time <= 0)) abort();
    return 0;
}
