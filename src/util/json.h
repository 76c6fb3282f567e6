/* json.h — a tiny streaming JSON writer for --json output (values are written
 * as they come; the caller provides the structure).  Strings are escaped per
 * RFC 8259; non-finite numbers become null. */
#ifndef AC_JSON_H
#define AC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

typedef struct {
    FILE *out;
    int depth;
    bool need_comma[32];
} json_writer;

void json_begin(json_writer *w, FILE *out);
void json_obj_open(json_writer *w, const char *key);   /* key NULL inside arrays/top */
void json_obj_close(json_writer *w);
void json_arr_open(json_writer *w, const char *key);
void json_arr_close(json_writer *w);
void json_str(json_writer *w, const char *key, const char *v);
void json_num(json_writer *w, const char *key, double v);
void json_int(json_writer *w, const char *key, long long v);
void json_bool(json_writer *w, const char *key, bool v);
void json_null(json_writer *w, const char *key);
void json_end(json_writer *w); /* newline */
void json_write_escaped(FILE *out, const char *s);

/* A document built in memory and then written to a file atomically (a reader
 * never sees half of it): json_file_begin, write through jf.w, json_file_commit
 * (which also frees; on a begin error there is nothing to free). */
typedef struct {
    json_writer w;
    FILE *f;
    char *buf;
    size_t len;
} json_file;

int json_file_begin(json_file *jf, ac_err *e);
int json_file_commit(json_file *jf, const char *path, ac_err *e);

/* the current UTC time as ISO 8601 ("2026-11-24T12:10:11Z"): each stage's summary.json says when
 * it was written, so the report can tell this search's sections from an earlier one's */
void json_utc_now(char *buf, size_t len);

#endif
