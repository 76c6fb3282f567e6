/* svg.h — the few SVG primitives the HTML report draws its charts with:
 * escaping, linear scales with "nice" ticks, a chart frame (axes, ticks,
 * labels, title) and marks.  Everything is appended to a strbuf; nothing is
 * printed.  Coordinates that are not finite are clamped so a bad value in a
 * result file can never produce invalid SVG.
 *
 * Why SVG written in C and not a charting library: the report must open
 * offline from one file, and the charts are a handful of scatters and bars;
 * a few hundred lines here need no npm, no build step and no inlined bundle
 * of someone else's JavaScript to audit.
 */
#ifndef AC_RESULTS_SVG_H
#define AC_RESULTS_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* text with & < > " ' replaced by entities (safe in element text and in
 * attribute values); NULL writes nothing */
void svg_esc(strbuf *b, const char *s);

/* a number shown to people: 3 significant digits, k/M/G suffixes above 10^4;
 * non-finite → "—" */
const char *svg_fmt_num(char *buf, size_t len, double v);

/* linear map from a data interval to a pixel interval */
typedef struct {
    double d0, d1; /* data  */
    double p0, p1; /* pixel */
} svg_scale;

/* domain [lo, hi] widened to round numbers (and to a non-empty interval) */
void svg_scale_nice(svg_scale *s, double lo, double hi, double p0, double p1);
double svg_scale_map(const svg_scale *s, double v);
/* up to max ticks at round steps inside the domain; returns how many */
int svg_ticks(const svg_scale *s, double *ticks, int max);

/* a chart: fixed pixel size, plot area inside the margins */
typedef struct {
    int w, h;
    int ml, mr, mt, mb; /* margins */
    svg_scale x, y;
} svg_chart;

/* sets size and margins; scales come from svg_scale_nice on the plot area */
void svg_chart_init(svg_chart *c, int w, int h);
void svg_chart_xdomain(svg_chart *c, double lo, double hi);
void svg_chart_ydomain(svg_chart *c, double lo, double hi);
/* <svg> with aria label, grid lines, axes, tick labels and axis titles */
void svg_chart_begin(strbuf *b, const svg_chart *c, const char *id, const char *xlabel, const char *ylabel);
void svg_chart_end(strbuf *b);

/* a chart that has nothing to show: an SVG holding one sentence */
void svg_no_data(strbuf *b, const char *id, int w, const char *why);

/* marks in data coordinates of chart c; tip (may be NULL) becomes a <title> tooltip */
void svg_point(strbuf *b, const svg_chart *c, double x, double y, double r, const char *fill, const char *tip);
void svg_cross(strbuf *b, const svg_chart *c, double x, double y, double r, const char *stroke, const char *tip);
void svg_vline(strbuf *b, const svg_chart *c, double x, const char *stroke, const char *label);
void svg_hline(strbuf *b, const svg_chart *c, double y, const char *stroke, const char *label);
/* straight line between two data points (e.g. the y = x diagonal) */
void svg_segment(strbuf *b, const svg_chart *c, double x0, double y0, double x1, double y1, const char *stroke,
                 bool dashed);
/* polyline through n data points */
void svg_polyline(strbuf *b, const svg_chart *c, const double *xs, const double *ys, int n, const char *stroke);

/* pixel-space primitives */
void svg_rect_px(strbuf *b, double x, double y, double w, double h, const char *fill, const char *tip);
void svg_text_px(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text);
/* legend row at pixel (x, y): coloured square and text */
void svg_legend_px(strbuf *b, double x, double y, const char *fill, const char *text);

/* a colour from a fixed qualitative palette (i wraps) */
const char *svg_palette(int i);
/* sequential colour for t in [0, 1] (light → dark), into buf as #rrggbb */
const char *svg_ramp(char *buf, size_t len, double t);

#endif
