/* emulate.c — what an emulated training job (`autoconfig emulate-job`) and the
 * launch of written candidate configs need from the estimator: a candidate
 * YAML read back into an estimator input (candidate_est_from_nemo) and scored
 * by est_evaluate, plus the emulation's documented perturbations (a scale and
 * a deterministic per-candidate noise) that stand in for a cluster whose
 * kernels run slower or faster than the estimator's constants say. */
#include "exec/exec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/yaml_io.h"
#include "search/candidate_est.h"
#include "util/hash.h"

int exec_predict_candidate(const char *candidate_yaml, const char *gpu_name, const est_cal *cal, exec_prediction *p,
                           ac_err *e)
{
    memset(p, 0, sizeof *p);
    if (gpu_catalog_load(e) < 0) return -1;
    const gpu_spec *g = NULL;
    if (gpu_name && *gpu_name) {
        g = gpu_find(gpu_name);
        if (!g) {
            char names[1024];
            gpu_names(names, sizeof names);
            return ac_err_set(e, AC_E_INPUT, "unknown GPU '%s' (known: %s)", gpu_name, names);
        }
    }
    node *cfg = yaml_load_file(candidate_yaml, e);
    if (!cfg) return -1;
    est_input in;
    int rc = candidate_est_from_nemo(cfg, g, &in, e);
    const char *name = node_text(node_get_path(cfg, "run.name"));
    snprintf(p->run_name, sizeof p->run_name, "%s", name ? name : "");
    node_free(cfg);
    if (rc < 0) {
        ac_err inner = *e;
        return ac_err_set(e, AC_E_INPUT, "%s: %s", candidate_yaml, inner.msg);
    }
    in.cal = cal;
    est_result r;
    if (est_evaluate(&in, &r) < 0)
        return ac_err_set(e, AC_E_INPUT, "%s: the estimator rejects this candidate: %s", candidate_yaml, r.why);
    p->step_s = r.step_time;
    p->mem_gib = r.mem_total / EST_GIB;
    p->limit_gib = r.mem_limit / EST_GIB;
    p->fits = r.fits;
    snprintf(p->gpu, sizeof p->gpu, "%s", in.gpu->name);
    return 0;
}

/* FNV-1a (Fowler, Noll, Vo) with a finaliser: a stable hash, so a candidate's noise is the same
 * on every run and on every machine */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = hash_fnv1a(HASH_FNV1A_OFFSET, s, strlen(s));
    /* splitmix64's finaliser (Steele et al. 2014): names differing in one
     * character must not land close together */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

double exec_emulate_factor(const char *run_name, double scale, double noise)
{
    /* u uniform in [-1, 1] from the name's hash */
    double u = (double)(fnv1a(run_name) >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
    return scale * (1.0 + noise * u);
}
