/* instance.c — the instance catalog parsed from data/instances.csv. */
#include "cost/instance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_instances[]; /* build/gen/data_instances.c */

enum { INSTANCE_MAX = 64 };
static cost_instance catalog[INSTANCE_MAX];
static size_t catalog_n;

static int row_num(const csv_table *t, const csv_row *r, const char *col, double lo, bool allow_null, double *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    if (allow_null && (!*s || !strcmp(s, "null"))) {
        *out = NAN;
        return 0;
    }
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v))
        return ac_err_at(e, AC_E_INPUT, t->file, r->line, 0, col, "not a number: '%s'", s);
    if (v < lo)
        return ac_err_at(e, AC_E_INPUT, t->file, r->line, 0, col, "%g is below %g%s", v, lo,
                         allow_null ? " (write null for the GPU catalog's price)" : "");
    *out = v;
    return 0;
}

int cost_instances_parse(const char *text, size_t len, const char *file, cost_instance *out, size_t cap, size_t *n, ac_err *e)
{
    *n = 0;
    if (gpu_catalog_load(e)) return -1;
    csv_table t;
    if (csv_parse(text, len, file, &t, e)) return -1;
    static const char *const cols[] = {"name", "gpu", "gpus", "host_ram_gib", "price_usd_per_hour", "network_gbps", "interconnect", "source"};
    int rc = -1;
    if (csv_require_cols(&t, cols, sizeof cols / sizeof *cols, AC_E_INPUT, NULL, e)) goto out;
    for (size_t i = 0; i < t.n; i++) {
        const csv_row *r = &t.rows[i];
        if (*n >= cap) {
            ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "name", "more than %zu instance types", cap);
            goto out;
        }
        cost_instance in = {0};
        double gpus, ram, price, net;
        if (csv_copy_cell(&t, r, "name", in.name, sizeof in.name, AC_E_INPUT, e) ||
            csv_copy_cell(&t, r, "gpu", in.gpu_name, sizeof in.gpu_name, AC_E_INPUT, e) ||
            csv_copy_cell(&t, r, "interconnect", in.interconnect, sizeof in.interconnect, AC_E_INPUT, e) ||
            csv_copy_cell(&t, r, "source", in.source, sizeof in.source, AC_E_INPUT, e) ||
            row_num(&t, r, "gpus", 1, false, &gpus, e) || row_num(&t, r, "host_ram_gib", 1, false, &ram, e) ||
            row_num(&t, r, "price_usd_per_hour", 1e-9, true, &price, e) || row_num(&t, r, "network_gbps", 0, false, &net, e))
            goto out;
        if (!in.name[0]) { ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "name", "is empty"); goto out; }
        if (!in.source[0]) { ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "source", "%s has no source", in.name); goto out; }
        if (gpus != floor(gpus) || gpus > 72) { ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "gpus", "not a GPU count: %g", gpus); goto out; }
        for (size_t j = 0; j < *n; j++)
            if (!strcasecmp(out[j].name, in.name)) {
                ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "name", "%s is listed twice", in.name);
                goto out;
            }
        const gpu_spec *g = gpu_find(in.gpu_name);
        if (!g) {
            const char *s = gpu_suggest(in.gpu_name);
            ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "gpu", "unknown GPU '%s'%s%s%s (data/gpus.csv)", in.gpu_name,
                      s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
            goto out;
        }
        in.gpus = (int)gpus;
        in.host_ram_gib = ram;
        in.network_gbps = net;
        in.price_from_catalog = isnan(price);
        in.price_per_hour = in.price_from_catalog ? g->price_per_hour * in.gpus : price;
        if (!(in.price_per_hour > 0)) {
            ac_err_at(e, AC_E_INPUT, t.file, r->line, 0, "price_usd_per_hour", "%s: null, and %s has no catalog price", in.name, g->name);
            goto out;
        }
        /* the node as the estimator sees it: this instance's GPUs per node and its
         * network share per GPU and direction (Gb/s -> GB/s) */
        in.node = *g;
        in.node.gpus_per_node = in.gpus;
        if (in.node.nvlink_domain > in.gpus) in.node.nvlink_domain = in.gpus;
        if (net > 0) in.node.scaleout_gbps = net / 8.0 / in.gpus;
        in.node.price_per_hour = in.price_per_hour / in.gpus;
        out[(*n)++] = in;
    }
    rc = 0;
out:
    csv_free(&t);
    return rc;
}

int cost_instance_catalog_load(ac_err *e)
{
    if (catalog_n) return 0;
    size_t n;
    if (cost_instances_parse(ac_data_instances, strlen(ac_data_instances), "data/instances.csv", catalog, INSTANCE_MAX, &n, e)) return -1;
    catalog_n = n;
    return 0;
}

size_t cost_instance_count(void) { return catalog_n; }

const cost_instance *cost_instance_at(size_t i) { return i < catalog_n ? &catalog[i] : NULL; }

const cost_instance *cost_instance_find(const char *name)
{
    if (!name || cost_instance_catalog_load(NULL)) return NULL;
    for (size_t i = 0; i < catalog_n; i++)
        if (!strcasecmp(catalog[i].name, name)) return &catalog[i];
    return NULL;
}

void cost_instance_close(const char *name, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (!name || cost_instance_catalog_load(NULL)) return;
    /* the family is the part before the dot ("g5" of "g5.96xlarge") */
    size_t fam = strcspn(name, ".");
    for (size_t i = 0; i < catalog_n && used < len; i++) {
        const char *c = catalog[i].name;
        bool same_family = fam > 0 && strlen(c) > fam && c[fam] == '.' && !strncasecmp(c, name, fam);
        if (!same_family && text_edit_distance(name, c) > 2) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c);
        if (w < 0) return;
        used += (size_t)w;
    }
}
