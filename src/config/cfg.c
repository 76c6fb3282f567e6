/* cfg.c — composes the configuration the way Hydra does for the original:
 * config.yaml → defaults list (group files) → overrides → interpolation →
 * schema check → typed struct.  See cfg.h. */
#include "config/cfg.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/interp.h"
#include "config/override.h"
#include "config/schema.h"
#include "config/yaml_io.h"
#include "util/fsutil.h"

enum { MAX_GROUPS = 8 };

typedef struct {
    char name[64];
    char choice[CFG_NAME_MAX];
    const node *where; /* the defaults entry, for messages */
} group_choice;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* lists "<sub>/<name>" for every YAML file one or two levels under dir */
static int list_yaml(const char *dir, bool two_levels, char *buf, size_t len)
{
    char *names[512];
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d) { if (len) buf[0] = '\0'; return 0; }
    struct dirent *de;
    while ((de = readdir(d)) && n < 512) {
        if (de->d_name[0] == '.') continue;
        char sub[CFG_PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        if (two_levels && fs_is_dir(sub)) {
            DIR *d2 = opendir(sub);
            if (!d2) continue;
            struct dirent *de2;
            while ((de2 = readdir(d2)) && n < 512) {
                size_t l = strlen(de2->d_name);
                if (l > 5 && !strcmp(de2->d_name + l - 5, ".yaml")) {
                    char item[300];
                    snprintf(item, sizeof item, "%s/%.*s", de->d_name, (int)(l - 5), de2->d_name);
                    names[n++] = strdup(item);
                }
            }
            closedir(d2);
        } else if (!two_levels) {
            size_t l = strlen(de->d_name);
            if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) names[n++] = strndup(de->d_name, l - 5);
        }
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    size_t off = 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (names[i] && off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    return (int)n;
}

int cfg_list_search_configs(const char *conf_dir, char *buf, size_t len)
{
    char dir[CFG_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/search_config", conf_dir);
    return list_yaml(dir, true, buf, len);
}

static int read_defaults(const node *root, const char *file, group_choice *groups, int *n_groups, ac_err *e)
{
    *n_groups = 0;
    const node *defs = node_map_get(root, "defaults");
    if (!defs) return 0;
    if (defs->kind != NODE_SEQ)
        return ac_err_at(e, AC_E_INPUT, file, defs->line, defs->col, "defaults", "expected a list");
    for (size_t i = 0; i < defs->len; i++) {
        const node *it = defs->items[i];
        if (it->kind == NODE_SCALAR) continue; /* _self_ */
        if (it->kind != NODE_MAP || it->len != 1)
            return ac_err_at(e, AC_E_INPUT, file, it->line, it->col, "defaults", "each entry is _self_ or 'group: option'");
        const char *g = it->pairs[0].key;
        if (!strncmp(g, "override ", 9)) continue; /* hydra/job_logging etc. */
        const node *v = it->pairs[0].val;
        if (v->kind != NODE_SCALAR)
            return ac_err_at(e, AC_E_INPUT, file, v->line, v->col, g, "expected an option name");
        if (*n_groups >= MAX_GROUPS) return ac_err_at(e, AC_E_INPUT, file, it->line, it->col, "defaults", "too many groups");
        group_choice *gc = &groups[(*n_groups)++];
        snprintf(gc->name, sizeof gc->name, "%s", g);
        snprintf(gc->choice, sizeof gc->choice, "%s", v->text);
        gc->where = v;
    }
    return 0;
}

static int load_group(node *root, const char *conf_dir, const group_choice *g, ac_err *e)
{
    char path[CFG_PATH_MAX * 2];
    /* an option name is a relative file name: no "..", no absolute paths */
    if (strstr(g->choice, "..") || g->choice[0] == '/' || !g->choice[0])
        return ac_err_at(e, AC_E_INPUT, g->where ? g->where->file : NULL, g->where ? g->where->line : 0, 0, g->name,
                         "bad option name '%s'", g->choice);
    snprintf(path, sizeof path, "%s/%s/%s.yaml", conf_dir, g->name, g->choice);
    if (!fs_exists(path)) {
        char dir[CFG_PATH_MAX + 64], avail[8192];
        snprintf(dir, sizeof dir, "%s/%s", conf_dir, g->name);
        list_yaml(dir, !strcmp(g->name, "search_config"), avail, sizeof avail);
        return ac_err_at(e, AC_E_INPUT, node_origin_file(g->where), node_origin_line(g->where), 0,
                         g->name, "no %s '%s' (%s does not exist); available: %s", g->name, g->choice, path,
                         avail[0] ? avail : "none");
    }
    node *sub = yaml_load_file(path, e);
    if (!sub) return -1;
    if (sub->kind != NODE_MAP) {
        ac_err_at(e, AC_E_INPUT, path, sub->line, sub->col, NULL, "expected a mapping at the top level");
        node_free(sub);
        return -1;
    }
    node *existing = node_map_get(root, g->name);
    if (existing && existing->kind == NODE_MAP) {
        /* the group file's keys win over config.yaml's (_self_ comes first) */
        for (size_t i = 0; i < sub->len; i++) {
            node *v = sub->pairs[i].val;
            sub->pairs[i].val = NULL;
            node_map_set(existing, sub->pairs[i].key, v);
        }
        for (size_t i = 0; i < sub->len; i++) sub->pairs[i].val = node_null();
        node_free(sub);
        return 0;
    }
    return node_map_set(root, g->name, sub) == 0 ? 0 : ac_err_set(e, AC_E_NOMEM, "out of memory");
}

/* The presets' results folder <family>/<size>_<mem>gb names the A100 of gpu_memory_gb (the
 * original's layout); with a catalog GPU it becomes <family>/<size>_<gpu> so searches of one
 * model on H100, H200 and B200 do not overwrite each other.  Only the preset's own value
 * changes: a logs the user set stays as it is. */
static int logs_for_gpu(node *root, ac_err *e)
{
    static const char PRESET_LOGS[] = "${base_results_dir}/${search_config_value}_${.gpu_memory_gb}gb";
    node *logs = node_get_path(root, "search_config.train_settings.logs");
    const node *gpu = node_get_path(root, "search_config.train_settings.gpu");
    const char *t = node_text(logs), *g = node_text(gpu);
    if (!t || strcmp(t, PRESET_LOGS) || !g || !*g || node_is_null(gpu)) return 0;
    node *v = node_str("${base_results_dir}/${search_config_value}_${.gpu}");
    if (!v) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (node_set_path(root, "search_config.train_settings.logs", v, true) != 0)
        return ac_err_set(e, AC_E_INTERNAL, "cannot set search_config.train_settings.logs");
    return 0;
}

int cfg_load(const char *conf_dir, int n_overrides, char **overrides, ac_config *out, ac_err *e)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.yaml", conf_dir);
    size_t len;
    char *text = fs_read_file(path, &len, e);
    if (!text) { memset(out, 0, sizeof *out); return -1; }
    int rc = cfg_load_text(conf_dir, text, len, n_overrides, overrides, out, e);
    free(text);
    return rc;
}

int cfg_load_text(const char *conf_dir, const char *text, size_t len, int n_overrides, char **overrides, ac_config *out,
                  ac_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->conf_dir, sizeof out->conf_dir, "%s", conf_dir);
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.yaml", conf_dir);
    node *root = yaml_load_string(text, len, path, e);
    if (!root) return -1;
    if (root->kind != NODE_MAP) {
        ac_err_at(e, AC_E_INPUT, path, root->line, root->col, NULL, "expected a mapping at the top level");
        node_free(root);
        return -1;
    }
    override *ovs = calloc((size_t)(n_overrides > 0 ? n_overrides : 1), sizeof *ovs);
    group_choice groups[MAX_GROUPS];
    int n_groups = 0, rc = -1, n_parsed = 0;
    if (!ovs) { ac_err_set(e, AC_E_NOMEM, "out of memory"); goto done; }
    if (read_defaults(root, path, groups, &n_groups, e) != 0) goto done;

    for (int i = 0; i < n_overrides; i++, n_parsed++)
        if (override_parse(overrides[i], i + 1, &ovs[i], e) != 0) { n_parsed++; goto done; }

    /* group selections: search_config=gpt3/20b, cluster=bcm */
    for (int i = 0; i < n_overrides; i++) {
        for (int g = 0; g < n_groups; g++) {
            if (strcmp(ovs[i].key, groups[g].name) != 0 || ovs[i].kind == OV_DELETE) continue;
            if (!ovs[i].value || ovs[i].value->kind != NODE_SCALAR) {
                ac_err_at(e, AC_E_INPUT, "command line", 0, 0, ovs[i].key, "override %d: expected an option name such as gpt3/5b", i + 1);
                goto done;
            }
            snprintf(groups[g].choice, sizeof groups[g].choice, "%s", ovs[i].value->text);
            groups[g].where = NULL;
            ovs[i].kind = OV_DELETE; /* consumed */
            ovs[i].key[0] = '\0';
        }
    }
    for (int g = 0; g < n_groups; g++)
        if (load_group(root, conf_dir, &groups[g], e) != 0) goto done;
    for (int g = 0; g < n_groups; g++) {
        if (!strcmp(groups[g].name, "cluster")) snprintf(out->cluster_name, sizeof out->cluster_name, "%s", groups[g].choice);
        if (!strcmp(groups[g].name, "search_config")) {
            snprintf(out->search_config_value, sizeof out->search_config_value, "%s", groups[g].choice);
            if (node_map_set(root, "search_config_value", node_str(groups[g].choice)) != 0) {
                ac_err_set(e, AC_E_NOMEM, "out of memory");
                goto done;
            }
        }
    }
    if (!out->search_config_value[0]) {
        ac_err_at(e, AC_E_INPUT, path, 0, 0, "defaults", "no search_config in the defaults list");
        goto done;
    }

    for (int i = 0; i < n_overrides; i++) {
        if (!ovs[i].key[0]) continue;
        const schema_entry *req = ovs[i].kind == OV_DELETE ? schema_find(ovs[i].key) : NULL;
        if (req && schema_required(req)) {
            ac_err_at(e, AC_E_INPUT, "command line", 0, 0, ovs[i].key, "override %d: a required key cannot be removed", i + 1);
            goto done;
        }
        int r = override_apply(root, &ovs[i], e);
        const schema_entry *known = r == -2 ? schema_find(ovs[i].key) : NULL;
        if (known && known->def && known->type != ST_SECTION) {
            /* a key the schema defaults (e.g. cost_settings.*) exists implicitly: set it */
            ovs[i].kind = OV_ADD;
            r = override_apply(root, &ovs[i], e);
        }
        if (r == -2) {
            const char *s = schema_suggest(ovs[i].key);
            if (s)
                ac_err_at(e, AC_E_INPUT, "command line", 0, 0, ovs[i].key,
                          "override %d: no such key; did you mean '%s'? (use +key=value to add a key)", i + 1, s);
            else if (schema_find(ovs[i].key))
                ac_err_at(e, AC_E_INPUT, "command line", 0, 0, ovs[i].key,
                          "override %d: key is not in %s; add it with +%s", i + 1, out->search_config_value, ovs[i].raw);
            else
                ac_err_at(e, AC_E_INPUT, "command line", 0, 0, ovs[i].key, "override %d: unknown key (see `autoconfig keys`)", i + 1);
            goto done;
        }
        if (r != 0) goto done;
    }

    if (schema_check_keys(root, e) != 0) goto done;
    if (logs_for_gpu(root, e) != 0) goto done;
    if (interp_resolve_all(root, e) != 0) goto done;
    if (schema_fill(root, out, e) != 0) goto done;
    if (!strcmp(out->cluster_type, "bcp")) {
        /* the original runs on Base Command Platform from inside a multi-node BCP job, one run after
         * another; autoconfig has no way to test that launcher, so it refuses rather than pretend */
        const node_pair *p = node_map_pair(root, "cluster_type");
        ac_err_at(e, AC_E_INPUT, p && p->val && p->val->file ? p->val->file : path, p && p->val ? p->val->line : 0,
                  p && p->val ? p->val->col : 0, "cluster_type",
                  "bcp (NVIDIA Base Command Platform) is not supported by autoconfig: its runs must be launched from "
                  "inside a BCP multi-node job, which autoconfig cannot drive or test; use sim (estimator only), "
                  "bcm (Slurm) or local");
        goto done;
    }

    const char *slash = strchr(out->search_config_value, '/');
    if (!slash || slash == out->search_config_value || !slash[1] || strchr(slash + 1, '/')) {
        ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "search_config",
                  "expected <family>/<size>, e.g. gpt3/5b, got '%s'", out->search_config_value);
        goto done;
    }
    snprintf(out->family, sizeof out->family, "%.*s", (int)(slash - out->search_config_value), out->search_config_value);
    snprintf(out->preset, sizeof out->preset, "%s", slash + 1);
    out->infer.present = node_get_path(root, "search_config.inference_settings") != NULL;
    rc = 0;
done:
    for (int i = 0; i < n_parsed && i < n_overrides; i++) node_free(ovs[i].value);
    free(ovs);
    if (rc != 0) { node_free(root); out->root = NULL; return -1; }
    out->root = root;
    return 0;
}

void cfg_free(ac_config *c)
{
    if (!c) return;
    node_free(c->root);
    c->root = NULL;
}

bool cfg_runs_real_jobs(const ac_config *c)
{
    return !strcmp(c->cluster_type, "bcm") || !strcmp(c->cluster_type, "local");
}
