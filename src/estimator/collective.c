/* collective.c — rank placement and collective costs of a training job (collective.h) */
#include "estimator/collective.h"

#include <math.h>

#define GB 1e9

/* GPUs that talk over NVLink (or PCIe) without the NIC: the NVLink domain when it
 * spans more than a node (NVL72 racks of 4-GPU trays), else the node.  A node domain
 * (HGX boards) is the node the job runs on: a 4-GPU H200 board links 4, not the
 * catalog's 8. */
static int local_unit(const est_input *in)
{
    const gpu_spec *g = in->gpu;
    int domain = g->nvlink_domain > 1 ? g->nvlink_domain : 1;
    int node = in->gpus_per_node > 0 ? in->gpus_per_node : g->gpus_per_node;
    if (domain <= g->gpus_per_node) domain = node; /* the board's NVLink, not a rack's */
    return domain > node ? domain : (node > 0 ? node : 1);
}

/* one GPU's share of its node's scale-out, per direction, in bytes/s: the run's node network where
 * it states one (est_input.node_network_gbps, split evenly over the node's GPUs, as the DGX-style
 * one-NIC-per-GPU rails are), else the catalog's */
static double scaleout_bw(const est_input *in)
{
    const gpu_spec *g = in->gpu;
    if (in->node_network_gbps <= 0) return g->scaleout_gbps * GB;
    int node = in->gpus_per_node > 0 ? in->gpus_per_node : g->gpus_per_node;
    return in->node_network_gbps / 8.0 / (node > 0 ? node : 1) * GB;
}

/* ranks of a group of `size` ranks spaced `stride` apart that share one local unit of
 * `unit` GPUs */
static int ranks_per_unit(int unit, int size, int stride)
{
    if (stride < 1) stride = 1;
    int n = stride >= unit ? 1 : unit / stride;
    return n < size ? n : size;
}

/* Per-GPU bandwidth (bytes/s) of a group of `size` ranks spaced `stride` apart, per_unit of
 * them in each local unit of `unit` GPUs.  Inside one NVLink domain (or PCIe box): the local
 * link. Across units each GPU drives its own NIC, so a ring's bus bandwidth is the group's
 * ranks per unit × scale-out per GPU, capped by NVLink (nccl-tests behaviour on DGX-style
 * nodes; on NVL72 the unit is the 72-GPU rack, not the 4-GPU tray). */
static double ring_bw(const est_input *in, int unit, int size, int stride, int per_unit)
{
    const gpu_spec *g = in->gpu;
    if ((long)size * stride <= unit) return g->nvlink_gbps * GB;
    double bw = per_unit * scaleout_bw(in);
    double cap = g->nvlink_gbps * GB;
    return bw < cap ? bw : cap;
}

double coll_group_bw(const est_input *in, int size, int stride)
{
    int unit = local_unit(in);
    return ring_bw(in, unit, size, stride, ranks_per_unit(unit, size, stride));
}

/* Per-GPU bandwidth (bytes/s) of a point-to-point ring over `size` ranks spaced `stride`
 * apart (the CP ring): inside one NVLink domain the local link; across units
 * a send between two GPUs leaves through one NIC (NCCL send/recv: the sender's rail NIC, or
 * with PXN a peer's on the same rail; never several), and the ring is paced by that hop, so
 * the rate is one GPU's scale-out share, however many ranks of the group share a node (the
 * ring collectives of coll_group_bw spread over all their ranks' NICs, a p2p hop cannot). */
double coll_p2p_bw(const est_input *in, int size, int stride)
{
    const gpu_spec *g = in->gpu;
    if ((long)size * stride <= local_unit(in)) return g->nvlink_gbps * GB;
    return fmin(scaleout_bw(in), g->nvlink_gbps * GB);
}

/* EP token dispatch (or combine) of one layer: each of a rank's T tokens goes to k
 * experts spread evenly over the k_ep ranks of the group (`stride` apart).  Copies for
 * experts in the same NVLink unit move over NVLink; a token bound for another unit
 * crosses this GPU's NIC once per unit and is fanned out there over NVLink (node-level
 * deduplication of DeepEP / Megatron-Core's flex dispatcher; Zhao et al. 2025,
 * DeepSeek-V3 §3.2.2): with n units a token reaches (n−1)(1 − (1 − 1/n)^k) remote
 * units on average.  No ring aggregation helps an all-to-all, so the remote part runs
 * at the per-GPU scale-out rate while NVLink carries the local part. */
double coll_dispatch_s(const est_input *in, double T, double k, double token_bytes, int k_ep, int stride,
                         const est_cal *c)
{
    if (k_ep <= 1) return 0.0;
    const gpu_spec *g = in->gpu;
    int local = ranks_per_unit(local_unit(in), k_ep, stride);
    double units = (double)k_ep / local;
    double copies_local = k * (local - 1) / k_ep;
    double copies_remote = units > 1 ? (units - 1.0) * (1.0 - pow(1.0 - 1.0 / units, k)) : 0.0;
    /* group-limited routing with whole groups per unit (experts are placed on EP ranks in
     * order, so a unit holds groups / units consecutive groups): a token's experts sit in
     * at most group_topk units, its own among them with probability group_topk / units */
    const model_shape *s = &in->shape;
    if (units > 1 && s->moe_group_topk > 0 && s->moe_router_groups > 0 && (int)units == units &&
        s->moe_router_groups % (int)units == 0) {
        double reach = fmin(units, (double)s->moe_group_topk);
        copies_remote = fmin(copies_remote, reach * (units - 1.0) / units);
    }
    double t_local = T * copies_local * token_bytes / (g->nvlink_gbps * GB * c->collective_eff);
    double t_remote = T * copies_remote * token_bytes / (scaleout_bw(in) * c->collective_eff);
    return t_local > t_remote ? t_local : t_remote;
}

coll_group coll_group_of(const est_input *in, int size, int stride)
{
    const gpu_spec *g = in->gpu;
    if (stride < 1) stride = 1;
    if (size < 1) size = 1;
    int unit = local_unit(in), per_unit = ranks_per_unit(unit, size, stride);
    coll_group grp = {size, 1, ring_bw(in, unit, size, stride, per_unit), g->nvlink_domain <= 1, g->sm_arch};
    /* ranks i·stride from rank 0 of a unit-aligned block: units touched */
    grp.units = stride >= unit ? size : (int)(((long)(size - 1) * stride) / unit + 1);
    /* a board whose NVLink joins fewer GPUs than the node (H100 NVL's bridged pairs): a ring
     * over more of them crosses PCIe (NCCL's ring graph takes the worst link's type) */
    int span = (per_unit - 1) * stride + 1;
    if (g->nvlink_domain > 1 && g->nvlink_domain < g->gpus_per_node && span > g->nvlink_domain) grp.pcie = true;
    return grp;
}

/* NCCL's own cost model of a collective (src/graph/tuning.cc of NCCL 2.18-2.19: the tables its
 * tuner picks an algorithm and protocol from, and ncclTopoGetAlgoTime), latencies in
 * microseconds.  A ring pays a base latency and one hop per step, k−1 steps for an all-gather
 * or reduce-scatter and 2(k−1) for an all-reduce, of which n−1 (2n for an all-reduce) cross
 * units at the network's hop; an all-reduce across units may instead run the double binary
 * tree, whose latency grows with log2 of the units.  Protocols trade latency for bandwidth:
 * LL (8-byte flag+data lines: a quarter of the bus rate across units or for an all-reduce, a
 * third otherwise, at most llMaxBw), LL128 (0.92 of it, 0.7 with one rank per unit; NVLink
 * only) and Simple (the full rate, the longest latency). */
enum { LL, LL128, SIMPLE, PROTOS };
enum { HOP_NVLINK, HOP_PCI, HOP_NET };
static const double ring_base_us[PROTOS] = {6.6, 14.0, 8.4};
static const double ring_hop_us[3][PROTOS] = {{0.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}};
static const double tree_base_us[PROTOS] = {6.8, 14.0, 0.0};
static const double tree_hop_us[3][PROTOS] = {{0.6, 1.25, 28.0}, {1.0, 1.9, 28.0}, {5.0, 8.5, 28.0}};
/* a step that crosses units also posts a network send from the proxy thread: 1 us on x86
 * (getNetOverhead), three of them for Simple, and no intra-unit hop is faster than that */
static const double net_overhead_us[PROTOS] = {1.0, 1.0, 3.0};
/* the tree's bandwidth for mid-sized buffers, by log2(bytes / 64) (treeCorrectionFactor) */
static const double tree_correction[PROTOS][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* NCCL's log2i: the floor of log2 of a positive count */
static int log2_floor(double n)
{
    int l = 0;
    while (n >= 2.0) { n /= 2.0; l++; }
    return l;
}

/* LL's bus-rate cap in bytes/s (llMaxBws): inside one unit by GPU generation (Volta 39,
 * Ampere and later 87.7 GB/s), across units by host (Intel: 39 for two, 20.4 beyond) */
static double ll_cap(const coll_group *g)
{
    if (g->units <= 1) return (g->sm_arch > 0 && g->sm_arch < 80 ? 39.0 : 87.7) * GB;
    return (g->units == 2 ? 39.0 : 20.4) * GB;
}

/* the fastest ring protocol, and for an all-reduce across units the fastest tree, for one
 * collective of `bytes` at bus bandwidth bw (bytes/s) */
static double one_collective_s(bool allreduce, double bytes, const coll_group *g, double bw)
{
    int k = g->ranks, n = g->units;
    int intra_hw = g->pcie ? HOP_PCI : HOP_NVLINK;
    /* NCCL does not clamp: with one rank a unit an all-reduce's 2n network steps exceed its
     * 2(k−1) and take two intra hops back */
    double steps = allreduce ? 2.0 * (k - 1) : k - 1.0;
    double inter = n > 1 ? (allreduce ? 2.0 * n : n - 1.0) : 0.0;
    double bus_s = steps / k * bytes / bw; /* the ring's bandwidth term at the full bus rate */
    double best = INFINITY;
    /* Simple first: a protocol whose bandwidth term alone exceeds the best so far cannot win */
    for (int p = SIMPLE; p >= LL; p--) {
        double share = 1.0;
        if (p == LL) {
            share = n > 1 || allreduce ? 0.25 : 1.0 / 3.0;
            double cap = ll_cap(g);
            if (bw * share > cap) share = cap / bw;
        } else if (p == LL128) {
            if (g->pcie) continue;
            share = k / n < 2 ? 0.7 : 0.92;
        }
        double t = bus_s / share;
        if (t >= best) continue;
        double intra = ring_hop_us[intra_hw][p];
        if (n > 1 && intra < net_overhead_us[p]) intra = net_overhead_us[p];
        double lat = ring_base_us[p] + (steps - inter) * intra + inter * ring_hop_us[HOP_NET][p];
        if (p == SIMPLE && allreduce && n > 1 && bytes >= 2048.0 * k)
            lat *= g->sm_arch > 0 && g->sm_arch < 80 ? 1.9 : 1.4; /* the ring's plateau (GetAlgoTime) */
        if (lat * 1e-6 + t < best) best = lat * 1e-6 + t;
    }
    if (!allreduce || n <= 1 || bytes / (0.5 * 0.92 * bw) >= best) return best;
    /* the double binary tree: the buffer crosses each rank twice at 0.92 of the bus rate (half
     * of it as algorithm bandwidth, tuning.cc's ratio .5), corrected for mid sizes */
    int ppn = k / n, size_log = log2_floor(bytes / 64.0);
    double depth = log2_floor(n);
    for (int p = 0; p < PROTOS; p++) {
        if (p == LL128 && g->pcie) continue;
        double lat = tree_base_us[p] + 2.0 * ((ppn - 1) * tree_hop_us[intra_hw][p] + depth * tree_hop_us[HOP_NET][p]);
        double bus = 0.92 * bw;
        if (p == LL) bus = fmin(bus / 3.8, ll_cap(g));
        else if (p == LL128) bus *= 120.0 / 128.0;
        if (size_log < 23) bus *= tree_correction[p][size_log];
        double t = lat * 1e-6 + bytes / (0.5 * bus);
        if (t < best) best = t;
    }
    return best;
}

static double collective_s(bool allreduce, double bytes, double calls, const coll_group *g, const est_cal *c)
{
    if (g->ranks <= 1 || bytes <= 0) return 0.0;
    if (!(calls >= 1.0)) calls = 1.0;
    return calls * one_collective_s(allreduce, bytes / calls, g, g->bw * c->collective_eff);
}

/* all-reduce of `bytes` over the group's k ranks in `calls` collectives: the ring moves
 * 2(k−1)/k · bytes at the bus bandwidth (NCCL's busbw definition), the tree bytes at half of
 * it; each call takes the fastest algorithm and protocol with its latency (one_collective_s) */
double coll_allreduce_s(double bytes, double calls, const coll_group *g, const est_cal *c)
{
    return collective_s(true, bytes, calls, g, c);
}

/* all-gather or reduce-scatter of a `bytes` full buffer over the group's k ranks in `calls`
 * collectives: (k−1)/k · bytes at the bus bandwidth, plus each call's ring latency */
double coll_gather_s(double bytes, double calls, const coll_group *g, const est_cal *c)
{
    return collective_s(false, bytes, calls, g, c);
}
