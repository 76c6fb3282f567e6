/* json.c — see json.h. */
#include "util/json.h"

#include <stdlib.h>
#include <time.h>

#include "util/fsutil.h"

#include <math.h>

void json_write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void prefix(json_writer *w, const char *key)
{
    if (w->depth > 0 && w->depth < 32) {
        if (w->need_comma[w->depth]) fputc(',', w->out);
        w->need_comma[w->depth] = true;
    }
    if (key) {
        json_write_escaped(w->out, key);
        fputc(':', w->out);
    }
}

void json_begin(json_writer *w, FILE *out)
{
    w->out = out;
    w->depth = 0;
    for (int i = 0; i < 32; i++) w->need_comma[i] = false;
}

static void open_(json_writer *w, const char *key, char c)
{
    prefix(w, key);
    fputc(c, w->out);
    if (w->depth < 31) w->need_comma[++w->depth] = false;
}

static void close_(json_writer *w, char c)
{
    fputc(c, w->out);
    if (w->depth > 0) w->depth--;
}

void json_obj_open(json_writer *w, const char *key) { open_(w, key, '{'); }
void json_obj_close(json_writer *w) { close_(w, '}'); }
void json_arr_open(json_writer *w, const char *key) { open_(w, key, '['); }
void json_arr_close(json_writer *w) { close_(w, ']'); }

void json_str(json_writer *w, const char *key, const char *v)
{
    prefix(w, key);
    if (v) json_write_escaped(w->out, v);
    else fputs("null", w->out);
}

void json_num(json_writer *w, const char *key, double v)
{
    prefix(w, key);
    if (isfinite(v)) fprintf(w->out, "%.10g", v);
    else fputs("null", w->out);
}

void json_int(json_writer *w, const char *key, long long v)
{
    prefix(w, key);
    fprintf(w->out, "%lld", v);
}

void json_bool(json_writer *w, const char *key, bool v)
{
    prefix(w, key);
    fputs(v ? "true" : "false", w->out);
}

void json_null(json_writer *w, const char *key)
{
    prefix(w, key);
    fputs("null", w->out);
}

void json_end(json_writer *w)
{
    fputc('\n', w->out);
}

int json_file_begin(json_file *jf, ac_err *e)
{
    jf->buf = NULL;
    jf->len = 0;
    jf->f = open_memstream(&jf->buf, &jf->len);
    if (!jf->f) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    json_begin(&jf->w, jf->f);
    return 0;
}

int json_file_commit(json_file *jf, const char *path, ac_err *e)
{
    json_end(&jf->w);
    int failed = ferror(jf->f);
    if (fclose(jf->f) != 0 || failed || !jf->buf) {
        free(jf->buf);
        return ac_err_set(e, AC_E_NOMEM, "out of memory building %s", path);
    }
    int rc = fs_write_atomic(path, jf->buf, jf->len, e);
    free(jf->buf);
    jf->buf = NULL;
    return rc;
}

void json_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tmv;
    if (!len) return;
    if (!gmtime_r(&now, &tmv) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tmv)) buf[0] = '\0';
}
