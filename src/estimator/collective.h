/* collective.h — where a training job's parallel groups sit and what their
 * collectives cost.  Rank order is Megatron-Core's default tp-cp-ep-dp-pp
 * (parallel_state.py): a group of `size` ranks spaced `stride` apart stays inside one
 * NVLink domain (or node) when size·stride fits in it, else each GPU drives its own NIC.
 * Times are seconds: the bandwidth term at the calibrated share of link rate
 * (est_cal.collective_eff, data/calibration.csv), plus for all-reduce, all-gather and
 * reduce-scatter the latency NCCL's own cost model gives each call (collective.c); the
 * point-to-point rates and the MoE dispatch are bandwidth only.
 */
#ifndef AC_ESTIMATOR_COLLECTIVE_H
#define AC_ESTIMATOR_COLLECTIVE_H

#include <stdbool.h>

#include "estimator/est.h"

/* per-GPU bandwidth (bytes/s) of a group of `size` ranks spaced `stride` apart */
double coll_group_bw(const est_input *in, int size, int stride);

/* per-GPU bandwidth of a point-to-point ring (the CP ring): NVLink inside a unit, one
 * NIC's share across units */
double coll_p2p_bw(const est_input *in, int size, int stride);

/* A parallel group as NCCL's tuning model sees it: its ranks, the NVLink domains ("nodes";
 * an NVL72 rack is one, as NCCL's multi-node NVLink) they span, and the per-GPU bus
 * bandwidth of coll_group_bw */
typedef struct {
    int ranks;
    int units;
    double bw;   /* bytes/s */
    bool pcie;   /* the ranks of a unit talk over PCIe, not NVLink */
    int sm_arch; /* the GPU generation NCCL's tables key on */
} coll_group;

coll_group coll_group_of(const est_input *in, int size, int stride);

/* all-reduce of a `bytes` buffer over the group, issued as `calls` collectives of equal size
 * (gradient buckets; 1 for an activation): each pays NCCL's latency for its algorithm and
 * protocol, and the fastest of them is taken, as NCCL's tuner does */
double coll_allreduce_s(double bytes, double calls, const coll_group *g, const est_cal *c);

/* all-gather or reduce-scatter of a `bytes` full buffer, in `calls` collectives */
double coll_gather_s(double bytes, double calls, const coll_group *g, const est_cal *c);

/* MoE token dispatch (or combine) of one layer: T tokens of `token_bytes` to k experts
 * spread over the k_ep ranks of an EP group `stride` apart */
double coll_dispatch_s(const est_input *in, double T, double k, double token_bytes, int k_ep, int stride,
                       const est_cal *c);

#endif
