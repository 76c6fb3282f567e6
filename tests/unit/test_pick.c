/* test_pick.c — the recommendation's tie rules (search/pick.h): one stated band, the
 * conventional order among ties, and VP 1 counted as no interleaving. */
#include "check.h"
#include "search/grid.h"
#include "search/pick.h"
#include "search/train_search.h"

static search_candidate cand(int tp, int pp, int cp, int dp, search_recompute rc)
{
    search_candidate k;
    memset(&k, 0, sizeof k);
    k.tp = tp, k.pp = pp, k.cp = cp, k.ep = 1, k.dp = dp, k.recompute = rc;
    k.act_ckpt_layers = k.num_mbs_act = k.act_per_pipe = -1;
    return k;
}

static void test_band(void)
{
    /* one function, a stated fixed 5 % until the estimator states per-GPU bands */
    CHECK_NEAR(search_tie_band(NULL), 0.05, 1e-12);
}

static void test_conventional_order(void)
{
    search_pick_why why;
    /* TP inside a node beats TP across nodes, whatever else */
    search_candidate a = cand(8, 4, 1, 16, SEARCH_RC_NONE), b = cand(16, 1, 1, 32, SEARCH_RC_NONE);
    CHECK(search_conventional_cmp(&a, &b, 8, &why) < 0);
    CHECK_INT(why, PICK_WHY_TP_IN_NODE);
    /* fewer model-parallel GPUs: TP 4 PP 2 CP 4 (32) over TP 2 PP 4 CP 8 (64) */
    a = cand(4, 2, 4, 16, SEARCH_RC_NONE), b = cand(2, 4, 8, 8, SEARCH_RC_NONE);
    CHECK(search_conventional_cmp(&a, &b, 8, &why) < 0);
    CHECK_INT(why, PICK_WHY_FEWER_MP);
    /* same MP GPUs: TP x CP inside one node first (TP 4 CP 2 = 8 vs TP 2 CP 8 = 16, both 16 GPUs) */
    a = cand(4, 2, 2, 32, SEARCH_RC_NONE), b = cand(2, 1, 8, 32, SEARCH_RC_NONE);
    CHECK(search_conventional_cmp(&a, &b, 8, &why) < 0);
    CHECK_INT(why, PICK_WHY_TPCP_IN_NODE);
    /* then no recompute */
    a = cand(2, 2, 1, 64, SEARCH_RC_NONE), b = cand(2, 2, 1, 64, SEARCH_RC_SELECTIVE);
    CHECK(search_conventional_cmp(&a, &b, 8, &why) < 0);
    CHECK_INT(why, PICK_WHY_NO_RECOMPUTE);
    b = cand(2, 2, 1, 64, SEARCH_RC_NONE);
    b.act_ckpt_layers = 2; /* partial full recompute counts as recompute */
    CHECK(search_conventional_cmp(&a, &b, 8, &why) < 0);
    /* equal: 0 */
    b = a;
    CHECK_INT(search_conventional_cmp(&a, &b, 8, &why), 0);
    CHECK_INT(why, PICK_WHY_FASTEST);
}

static void test_vp1_is_none(void)
{
    search_inputs in;
    search_inputs_init(&in);
    in.shape.arch = ARCH_DECODER;
    in.shape.num_layers = 24;
    in.shape.heads = in.shape.query_groups = 32;
    in.shape.seq_length = 2048;
    in.num_nodes = 16;
    in.base_gbs = 2048;
    in.size_b = 5;
    in.pp = search_list_of((int[]){2}, 1);
    in.tp = search_list_of((int[]){1}, 1);
    in.mbs = search_list_of((int[]){1}, 1);
    in.vp = search_list_of((int[]){0, 1}, 2);
    search_grid g;
    ac_err e;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 1); /* VP none and VP 1 are the same run */
    if (g.n) CHECK_INT(g.items[0].vp, 0);
    search_grid_free(&g);
}

static void test_layout_splits(void)
{
    long long dp = 0;
    /* TP 2 on 16 GPUs: DP 8, GBS 256 = MBS 1 x DP 8 x 32 */
    search_candidate k = cand(2, 1, 1, 0, SEARCH_RC_NONE);
    k.mbs = 1, k.gbs = 256;
    CHECK(search_layout_splits(&k, 16, &dp));
    CHECK_INT(dp, 8);
    /* EP 8 needs DP x CP to be a multiple of 8: 8 GPUs give DP 4, so a smaller search run
     * (search_num_nodes) or a budget node count must not land there */
    k.ep = 8;
    CHECK(!search_layout_splits(&k, 8, NULL));
    CHECK(search_layout_splits(&k, 16, NULL));
    /* the batch must split: GBS 256 over MBS 4 x DP 48 does not */
    k.ep = 1, k.mbs = 4;
    CHECK(!search_layout_splits(&k, 96, NULL));
    /* TP x PP x CP must divide the GPUs */
    CHECK(!search_layout_splits(&k, 9, NULL));
}

int main(void)
{
    RUN(test_band);
    RUN(test_conventional_order);
    RUN(test_vp1_is_none);
    RUN(test_layout_splits);
    CHECK_DONE();
}
