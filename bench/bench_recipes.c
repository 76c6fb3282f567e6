/* bench_recipes.c — the tool's pick beside NVIDIA's (make bench).
 *
 * For every pre-training row of NeMo's performance recipes
 * (../shared/reference/nemo-configs/recipes/) whose model has a preset: the exhaustive
 * search on the recipe's GPUs, GPU count, sequence length, global batch, precision and
 * switches, and its recommendation (search/pick.h) beside the recipe's own layout, both
 * predicted by the estimator: layout, tokens/s per GPU, the tie band, and whether the
 * recipe lies inside the pick's band (a reader sees where the tool departs from NVIDIA's
 * choice and by how much).  Rows the target release cannot run are listed as such. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "estimator/gpu.h"
#include "model/basecfg.h"
#include "search/recipe_check.h"
#include "search/train_search.h"

static const char *const FILES[] = {"model_configs_h100.csv", "model_configs_b200.csv", "model_configs_gb200.csv"};

static void layout(const search_candidate *k, char *buf, size_t len)
{
    snprintf(buf, len, "TP%d PP%d CP%d EP%d VP%d MBS%d%s%s%s%s", k->tp, k->pp, k->cp, k->ep, k->vp > 0 ? k->vp : 1, k->mbs,
             k->first_layers ? " uneven" : "", k->recompute != SEARCH_RC_NONE || k->act_ckpt_layers > 0 ? " rc" : "",
             k->fp8_param_gather ? " fp8pg" : "", k->tp_overlap ? " tpo" : "");
}

int main(void)
{
    ac_err e;
    if (gpu_catalog_load(&e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    printf("NeMo performance recipes vs the tool's pick (exhaustive search, estimator predictions; band = the tie band)\n");
    printf("%-34s | %-42s %9s | %-42s %9s | %5s | %s\n", "recipe row", "tool's pick", "tok/s/GPU", "recipe layout",
           "tok/s/GPU", "band", "recipe's tok/s vs the pick's");
    int rows = 0, inside = 0, same = 0;
    for (size_t f = 0; f < sizeof FILES / sizeof *FILES; f++) {
        char path[256];
        snprintf(path, sizeof path, "../shared/reference/nemo-configs/recipes/%s", FILES[f]);
        search_recipe *rs;
        size_t n;
        if (search_recipes_load(path, &rs, &n, &e)) { printf("  %s: %s\n", path, e.msg); continue; }
        for (size_t i = 0; i < n; i++) {
            const search_recipe *r = &rs[i];
            if (!search_recipe_preset(r)) continue;
            char label[160], pl[96] = "-", rl[96] = "-", verdict[160] = "";
            search_recipe_label(r, label, sizeof label);
            const gpu_spec *g = gpu_find(r->system);
            char ov[24][160];
            char *argv[24];
            int no = search_recipe_overrides(r, g ? g->gpus_per_node : 8, ov, 24);
            for (int k = 0; k < no; k++) argv[k] = ov[k];
            ac_config c;
            model_base_config b = {0};
            search_train_result tr = {0};
            search_recipe_match m;
            double ptps = 0, rtps = 0, band = 0;
            if (cfg_load("conf", no, argv, &c, &e)) { printf("%-34s | config: %s\n", label, e.msg); continue; }
            if (model_base_config_build(&c, c.train.model_size_in_b, &b, &e) || search_recipe_find(&c, &b, r, &m, &e)) {
                snprintf(verdict, sizeof verdict, "error: %.140s", e.msg);
            } else if (m.excluded[0]) {
                snprintf(verdict, sizeof verdict, "not in the target release: %.120s", m.excluded);
            } else if (search_train_run(&c, &b, &tr, &e)) {
                snprintf(verdict, sizeof verdict, "search: %.140s", e.msg);
            } else {
                const search_pick *p = &tr.pick;
                layout(&p->pick.cand, pl, sizeof pl);
                ptps = p->pick.est.tokens_per_s_per_gpu;
                band = p->band;
                if (m.found) {
                    layout(&m.cand, rl, sizeof rl);
                    rtps = m.est.tokens_per_s_per_gpu;
                    double best = p->fastest.est.tokens_per_s_per_gpu;
                    bool in_band = m.fits && rtps >= best * (1.0 - band);
                    bool is_pick = !strcmp(pl, rl);
                    rows++;
                    inside += in_band;
                    same += is_pick;
                    snprintf(verdict, sizeof verdict, "%+.1f%%%s%s%s", 100.0 * (rtps / ptps - 1.0),
                             is_pick ? ", the pick" : in_band ? ", a tie (within the band of the fastest)" : ", outside the band of the fastest",
                             m.fits ? "" : ", predicted OOM", m.departure[0] ? " (checked without VP / expert TP: see test_recipes)" : "");
                } else {
                    snprintf(verdict, sizeof verdict, "recipe layout is not a candidate");
                }
            }
            printf("%-34s | %-42s %9.0f | %-42s %9.0f | %4.0f%% | %s\n", label, pl, ptps, rl, rtps, 100.0 * band, verdict);
            search_train_free(&tr);
            model_base_config_free(&b);
            cfg_free(&c);
        }
        free(rs);
    }
    printf("recipes compared: %d; inside the pick's tie band: %d; the pick itself: %d\n", rows, inside, same);
    return 0;
}
