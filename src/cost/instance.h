/* instance.h — instance types as data (data/instances.csv, compiled in).
 *
 * A cloud instance or on-premise node: its GPU type (a data/gpus.csv row) and
 * count, host RAM, on-demand price per instance-hour, scale-out bandwidth and
 * how its GPUs are joined.  The cost stage rents whole instances: a pool made
 * from one searches 1, 2, 4, ... instances, checks host memory against the
 * instance's RAM, and prices GPU-hours at the instance price / GPUs.
 */
#ifndef AC_COST_INSTANCE_H
#define AC_COST_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "estimator/gpu.h"
#include "util/err.h"

typedef struct {
    char name[32];
    char gpu_name[32];
    int gpus;                 /* GPUs per instance */
    double host_ram_gib;      /* RAM as the provider lists it (GiB) */
    double price_per_hour;    /* USD per instance-hour */
    bool price_from_catalog;  /* "null" in the file: GPU catalog price x gpus */
    double network_gbps;      /* scale-out, Gb/s per instance */
    char interconnect[96];
    char source[320];
    gpu_spec node;            /* the catalog GPU with this node's GPU count and network share */
} cost_instance;

/* Parses an instance table (the file's format).  Bad rows are AC_E_INPUT with
 * file:line and the column: an unknown GPU, a count or RAM below 1, a price of 0
 * or below (use "null" for the catalog price), a duplicate name, a missing source. */
int cost_instances_parse(const char *text, size_t len, const char *file, cost_instance *out, size_t cap, size_t *n, ac_err *e);

/* the compiled-in catalog (loaded once) */
int cost_instance_catalog_load(ac_err *e);
size_t cost_instance_count(void);
const cost_instance *cost_instance_at(size_t i);
/* by name, case-insensitive; NULL when unknown */
const cost_instance *cost_instance_find(const char *name);
/* the names close to a mistyped one (same family prefix, or a few edits), comma-separated */
void cost_instance_close(const char *name, char *buf, size_t len);

#endif
