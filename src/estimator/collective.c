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

/* ranks of a group of `size` ranks spaced `stride` apart that share one local unit */
static int ranks_per_unit(const est_input *in, int size, int stride)
{
    int unit = local_unit(in);
    int n = stride >= unit ? 1 : unit / stride;
    return n < size ? n : size;
}

/* Per-GPU bandwidth (bytes/s) of a group of `size` ranks spaced `stride` apart.
 * Inside one NVLink domain (or PCIe box): the local link. Across units each GPU
 * drives its own NIC, so a ring's bus bandwidth is the group's ranks per unit ×
 * scale-out per GPU, capped by NVLink (nccl-tests behaviour on DGX-style nodes;
 * on NVL72 the unit is the 72-GPU rack, not the 4-GPU tray). */
double coll_group_bw(const est_input *in, int size, int stride)
{
    const gpu_spec *g = in->gpu;
    if ((long)size * stride <= local_unit(in)) return g->nvlink_gbps * GB;
    double bw = ranks_per_unit(in, size, stride) * g->scaleout_gbps * GB;
    double cap = g->nvlink_gbps * GB;
    return bw < cap ? bw : cap;
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
    return fmin(g->scaleout_gbps, g->nvlink_gbps) * GB;
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
    int local = ranks_per_unit(in, k_ep, stride);
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
    double t_remote = T * copies_remote * token_bytes / (g->scaleout_gbps * GB * c->collective_eff);
    return t_local > t_remote ? t_local : t_remote;
}

/* ring all-reduce of `bytes` over k ranks: 2(k−1)/k · bytes / busbw (NCCL's busbw definition) */
double coll_allreduce_s(double bytes, int k, double bw, const est_cal *c)
{
    return k > 1 ? 2.0 * (k - 1) / k * bytes / (bw * c->collective_eff) : 0.0;
}

/* all-gather or reduce-scatter of a `bytes` full buffer over k ranks: (k−1)/k · bytes / busbw */
double coll_gather_s(double bytes, int k, double bw, const est_cal *c)
{
    return k > 1 ? (double)(k - 1) / k * bytes / (bw * c->collective_eff) : 0.0;
}
