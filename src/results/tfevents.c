/* tfevents.c — TFRecord framing with CRC32C, Event protobufs via protobuf-c,
 * the original's step-time averaging, a text-log fallback, and a writer. */
#include "results/tfevents.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfevent.pb-c.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

/* ---- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) ---- */

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[i] = c;
    }
    crc_ready = 1;
}

uint32_t tfev_crc32c(const void *data, size_t n)
{
    if (!crc_ready) crc_init();
    const uint8_t *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* TFRecord's masked CRC: rotate right by 15 and add a constant (tensorflow crc32c.h) */
uint32_t tfev_masked_crc(const void *data, size_t n)
{
    uint32_t c = tfev_crc32c(data, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put_le32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* ---- values list ---- */

typedef struct { double *v; size_t n, cap; } dvec;

static int dvec_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 64;
        double *nv = realloc(d->v, nc * sizeof *nv);
        if (!nv) return -1;
        d->v = nv; d->cap = nc;
    }
    d->v[d->n++] = x;
    return 0;
}

/* the scalar of a summary value: simple_value, or a one-element float/double tensor */
static int value_scalar(const Tfev__SummaryValue *v, double *x)
{
    if (v->value_case == TFEV__SUMMARY_VALUE__VALUE_SIMPLE_VALUE) { *x = v->simple_value; return 0; }
    if (v->value_case != TFEV__SUMMARY_VALUE__VALUE_TENSOR || !v->tensor) return -1;
    const Tfev__Tensor *t = v->tensor;
    if (t->n_float_val) { *x = t->float_val[0]; return 0; }
    if (t->n_double_val) { *x = t->double_val[0]; return 0; }
    if (t->dtype == 1 && t->tensor_content.len == 4) {
        uint32_t u = le32(t->tensor_content.data);
        float f;
        memcpy(&f, &u, 4);
        *x = f;
        return 0;
    }
    if (t->dtype == 2 && t->tensor_content.len == 8) {
        uint64_t u = le64(t->tensor_content.data);
        memcpy(x, &u, 8);
        return 0;
    }
    return -1;
}

int tfev_parse(const uint8_t *buf, size_t len, const char *what, double **vals, size_t *n, ac_err *e)
{
    dvec cur = {0}, old = {0};
    size_t off = 0;
    *vals = NULL;
    *n = 0;
    if (!what) what = "event file";
    while (off < len) {
        if (len - off < 12) {
            ac_err_set(e, AC_E_INPUT, "%s: truncated record header at byte %zu", what, off);
            goto fail;
        }
        uint64_t rl = le64(buf + off);
        if (tfev_masked_crc(buf + off, 8) != le32(buf + off + 8)) {
            ac_err_set(e, AC_E_INPUT, "%s: length CRC mismatch at byte %zu (not a TFRecord file, or corrupt)", what, off);
            goto fail;
        }
        if (rl > len - off - 12 || len - off - 12 - rl < 4) {
            ac_err_set(e, AC_E_INPUT, "%s: record at byte %zu claims %llu bytes, file is truncated", what, off,
                       (unsigned long long)rl);
            goto fail;
        }
        const uint8_t *data = buf + off + 12;
        if (tfev_masked_crc(data, (size_t)rl) != le32(data + rl)) {
            ac_err_set(e, AC_E_INPUT, "%s: data CRC mismatch in the record at byte %zu", what, off);
            goto fail;
        }
        Tfev__Event *ev = tfev__event__unpack(NULL, (size_t)rl, data);
        if (!ev) {
            ac_err_set(e, AC_E_INPUT, "%s: record at byte %zu is not an Event protobuf", what, off);
            goto fail;
        }
        if (ev->what_case == TFEV__EVENT__WHAT_SUMMARY && ev->summary) {
            for (size_t i = 0; i < ev->summary->n_value; i++) {
                const Tfev__SummaryValue *v = ev->summary->value[i];
                double x;
                if (!v || !v->tag || value_scalar(v, &x) < 0) continue;
                dvec *dst = !strcmp(v->tag, TFEV_TAG) ? &cur : !strcmp(v->tag, TFEV_TAG_OLD) ? &old : NULL;
                if (dst && dvec_push(dst, x) < 0) {
                    tfev__event__free_unpacked(ev, NULL);
                    ac_err_set(e, AC_E_NOMEM, "%s: out of memory", what);
                    goto fail;
                }
            }
        }
        tfev__event__free_unpacked(ev, NULL);
        off += 12 + (size_t)rl + 4;
    }
    if (cur.n) { *vals = cur.v; *n = cur.n; free(old.v); }
    else { *vals = old.v; *n = old.n; free(cur.v); }
    return 0;
fail:
    free(cur.v);
    free(old.v);
    return -1;
}

int tfev_read_file(const char *path, double **vals, size_t *n, ac_err *e)
{
    size_t len;
    char *buf = fs_read_file(path, &len, e);
    *vals = NULL;
    *n = 0;
    if (!buf) return -1;
    int rc = tfev_parse((const uint8_t *)buf, len, path, vals, n, e);
    free(buf);
    return rc;
}

/* reference §6: ≤ 6 values → no result; else mean of all but the first 5, rounded to 4 places */
int tfev_average(const double *vals, size_t n, double *avg)
{
    if (n <= 6) return -1;
    double s = 0;
    for (size_t i = 5; i < n; i++) s += vals[i];
    double m = s / (double)(n - 5);
    if (!isfinite(m)) return -1;
    *avg = round(m * 1e4) / 1e4;
    return 0;
}

/* ---- text fallback ---- */

int tfev_parse_text(const char *text, double **vals, size_t *n, ac_err *e)
{
    static const char *const tags[] = { TFEV_TAG, TFEV_TAG_OLD };
    dvec d = {0};
    *vals = NULL;
    *n = 0;
    for (size_t t = 0; t < 2 && d.n == 0; t++) {
        size_t tl = strlen(tags[t]);
        for (const char *p = strstr(text, tags[t]); p; p = strstr(p + tl, tags[t])) {
            const char *q = p + tl;
            if (t == 1 && !strncmp(q, " in s", 5)) continue; /* the new tag, seen by the old name */
            while (*q == ' ') q++;
            if (*q != '=' && *q != ':') continue;
            q++;
            while (*q == ' ') q++;
            char *end;
            double x = strtod(q, &end);
            if (end == q || !isfinite(x)) continue;
            if (dvec_push(&d, x) < 0) { free(d.v); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
        }
    }
    *vals = d.v;
    *n = d.n;
    return 0;
}

/* ---- a run directory ---- */

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* sorted names in dir starting with prefix (NULL: any) or ending with one of the suffixes */
static int list_dir(const char *dir, const char *prefix, const char *const *suffixes, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    size_t cap = 0;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        if (nm[0] == '.') continue;
        int ok = prefix && !strncmp(nm, prefix, strlen(prefix));
        for (size_t i = 0; !ok && suffixes && suffixes[i]; i++) {
            size_t a = strlen(nm), b = strlen(suffixes[i]);
            ok = a > b && !strcmp(nm + a - b, suffixes[i]);
        }
        if (!ok) continue;
        if (*count == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char **nn = realloc(*names, nc * sizeof *nn);
            if (!nn) break;
            *names = nn; cap = nc;
        }
        char *cp = strdup(nm);
        if (!cp) break;
        (*names)[(*count)++] = cp;
    }
    closedir(d);
    if (*count) qsort(*names, *count, sizeof **names, name_cmp);
    return 0;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

int tfev_run_step_time(const char *run_dir, double *avg, size_t *n_values, ac_err *e)
{
    char res[2048], path[2048];
    char first_err[1024] = "";
    char **names;
    size_t count, best_n = 0;
    int found = 0;
    *n_values = 0;
    if (fs_join(res, sizeof res, run_dir, "results", e) < 0) return -1;
    list_dir(res, "events", NULL, &names, &count);
    for (size_t i = 0; i < count; i++) {
        double *v;
        size_t nv;
        ac_err fe;
        if (fs_join(path, sizeof path, res, names[i], &fe) < 0) continue;
        if (tfev_read_file(path, &v, &nv, &fe) < 0) {
            if (!first_err[0]) snprintf(first_err, sizeof first_err, "%s", fe.msg);
            continue;
        }
        double a;
        if (tfev_average(v, nv, &a) == 0) { *avg = a; best_n = nv; found = 1; }
        else if (nv > best_n && !found) best_n = nv;
        free(v);
    }
    free_names(names, count);
    if (found) { *n_values = best_n; return 0; }

    static const char *const sfx[] = { ".log", ".out", NULL };
    const char *dirs[2] = { run_dir, res };
    for (int k = 0; k < 2 && !found; k++) {
        list_dir(dirs[k], NULL, sfx, &names, &count);
        for (size_t i = 0; i < count && !found; i++) {
            ac_err fe;
            size_t len;
            if (fs_join(path, sizeof path, dirs[k], names[i], &fe) < 0) continue;
            char *txt = fs_read_file(path, &len, &fe);
            if (!txt) continue;
            double *v;
            size_t nv;
            if (tfev_parse_text(txt, &v, &nv, &fe) == 0) {
                double a;
                if (tfev_average(v, nv, &a) == 0) { *avg = a; *n_values = nv; found = 1; }
                free(v);
            }
            free(txt);
        }
        free_names(names, count);
    }
    if (found) return 0;
    if (first_err[0]) return ac_err_set(e, AC_E_INPUT, "%s", first_err);
    return ac_err_set(e, AC_E_INPUT, "%s: no step timing (tag \"%s\") with more than 6 values in results/events* or a log",
                      run_dir, TFEV_TAG);
}

/* ---- writer ---- */

static int add_record(strbuf *sb, const Tfev__Event *ev)
{
    size_t plen = tfev__event__get_packed_size(ev);
    uint8_t *payload = malloc(plen ? plen : 1);
    if (!payload) return -1;
    tfev__event__pack(ev, payload);
    uint8_t hdr[12], tail[4];
    put_le64(hdr, plen);
    put_le32(hdr + 8, tfev_masked_crc(hdr, 8));
    put_le32(tail, tfev_masked_crc(payload, plen));
    sb_addn(sb, (const char *)hdr, 12);
    sb_addn(sb, (const char *)payload, plen);
    sb_addn(sb, (const char *)tail, 4);
    free(payload);
    return sb->oom ? -1 : 0;
}

int tfev_encode(const char *tag, const double *vals, size_t n, long first_step, uint8_t **out, size_t *len, ac_err *e)
{
    strbuf sb;
    sb_init(&sb);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double now = (double)ts.tv_sec + ts.tv_nsec / 1e9;

    Tfev__Event ev = TFEV__EVENT__INIT;
    ev.wall_time = now;
    ev.what_case = TFEV__EVENT__WHAT_FILE_VERSION;
    ev.file_version = "brain.Event:2";
    int bad = add_record(&sb, &ev);
    for (size_t i = 0; i < n && !bad; i++) {
        Tfev__SummaryValue v = TFEV__SUMMARY_VALUE__INIT;
        v.tag = (char *)tag;
        v.value_case = TFEV__SUMMARY_VALUE__VALUE_SIMPLE_VALUE;
        v.simple_value = (float)vals[i];
        Tfev__SummaryValue *vp = &v;
        Tfev__Summary s = TFEV__SUMMARY__INIT;
        s.n_value = 1;
        s.value = &vp;
        Tfev__Event se = TFEV__EVENT__INIT;
        se.wall_time = now;
        se.step = first_step + (long)i;
        se.what_case = TFEV__EVENT__WHAT_SUMMARY;
        se.summary = &s;
        bad = add_record(&sb, &se);
    }
    if (bad || sb.oom) { sb_free(&sb); return ac_err_set(e, AC_E_NOMEM, "out of memory encoding events"); }
    *len = sb.len;
    *out = (uint8_t *)sb.s;
    if (!*out) { *out = malloc(1); if (!*out) return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    return 0;
}

int tfev_write_file(const char *path, const char *tag, const double *vals, size_t n, long first_step, ac_err *e)
{
    uint8_t *buf;
    size_t len;
    if (tfev_encode(tag, vals, n, first_step, &buf, &len, e) < 0) return -1;
    int rc = fs_write_atomic(path, buf, len, e);
    free(buf);
    return rc;
}
