/* svg.c — see svg.h.  Pixel coordinates are written with one decimal; any
 * value that is not finite (a null or a nonsense number in a result file)
 * is clamped before it reaches the output. */
#include "results/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SVG_DATA_MAX 1e15  /* data beyond this is clamped: keeps spans finite */
#define SVG_PX_MAX 1e5     /* pixels beyond this are clamped */

void svg_esc(strbuf *b, const char *s)
{
    if (!s) return;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        const char *ent = NULL;
        switch (*p) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        default: break;
        }
        /* control characters are not allowed in XML 1.0 text: drop them */
        bool ctl = (unsigned char)*p < 0x20 && *p != '\n' && *p != '\t';
        if (ent || ctl) {
            sb_addn(b, run, (size_t)(p - run));
            if (ent) sb_add(b, ent);
            run = p + 1;
        }
    }
    sb_add(b, run);
}

/* "12.50" → "12.5", "3.00" → "3" */
static void trim_zeros(char *s)
{
    if (!strchr(s, '.') || strchr(s, 'e')) return;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '0') s[--n] = '\0';
    if (n > 0 && s[n - 1] == '.') s[--n] = '\0';
}

const char *svg_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v)) { snprintf(buf, len, "\xe2\x80\x94"); return buf; }
    /* at: where the suffix starts (just under the unit, so 999999 → "1M", not "1e+03k") */
    static const struct { double at, unit; const char *suffix; } big[] = {
        { 0.9995e12, 1e12, "T" }, { 0.9995e9, 1e9, "G" }, { 0.9995e6, 1e6, "M" }, { 1e4, 1e3, "k" },
    };
    double a = fabs(v);
    if (a >= 0.9995e15) { snprintf(buf, len, "%.3g", v); return buf; }
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        if (a >= big[i].at) {
            snprintf(buf, len, "%.3g", v / big[i].unit);
            trim_zeros(buf);
            size_t n = strlen(buf);
            snprintf(buf + n, len > n ? len - n : 0, "%s", big[i].suffix);
            return buf;
        }
    if (a >= 100) snprintf(buf, len, "%.0f", v);
    else if (a >= 10) snprintf(buf, len, "%.1f", v);
    else if (a >= 1) snprintf(buf, len, "%.2f", v);
    else if (a == 0) snprintf(buf, len, "0");
    else snprintf(buf, len, "%.2g", v);
    trim_zeros(buf);
    return buf;
}

static double clampd(double v, double lim)
{
    if (!isfinite(v)) return v > 0 ? lim : (v < 0 ? -lim : 0);
    return v > lim ? lim : (v < -lim ? -lim : v);
}

/* 1, 2 or 5 times a power of ten, about span / n */
static double nice_step(double span, int n)
{
    double raw = span / (n > 0 ? n : 1);
    if (!(raw > 0) || !isfinite(raw)) return 1;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void svg_scale_nice(svg_scale *s, double lo, double hi, double p0, double p1)
{
    lo = isfinite(lo) ? clampd(lo, SVG_DATA_MAX) : 0;
    hi = isfinite(hi) ? clampd(hi, SVG_DATA_MAX) : 1;
    if (hi < lo) { double t = lo; lo = hi; hi = t; }
    if (hi - lo < 1e-12 * (fabs(lo) + fabs(hi)) || hi == lo) {
        double pad = lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= pad;
        hi += pad;
    }
    double step = nice_step(hi - lo, 5);
    s->d0 = floor(lo / step) * step;
    s->d1 = ceil(hi / step) * step;
    if (!(s->d1 > s->d0)) s->d1 = s->d0 + step;
    s->p0 = p0;
    s->p1 = p1;
}

double svg_scale_map(const svg_scale *s, double v)
{
    double span = s->d1 - s->d0;
    if (!(span > 0) || !isfinite(span)) return s->p0;
    double px = s->p0 + (clampd(v, SVG_DATA_MAX) - s->d0) / span * (s->p1 - s->p0);
    return clampd(px, SVG_PX_MAX);
}

int svg_ticks(const svg_scale *s, double *ticks, int max)
{
    double step = nice_step(s->d1 - s->d0, 5);
    int n = 0;
    for (double t = s->d0; t <= s->d1 + step * 1e-6 && n < max; t = s->d0 + step * n) {
        ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t; /* no "-0" */
    }
    return n;
}

void svg_chart_init(svg_chart *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->h = h;
    c->ml = 64;
    c->mr = 20;
    c->mt = 14;
    c->mb = 46;
    svg_chart_xdomain(c, 0, 1);
    svg_chart_ydomain(c, 0, 1);
}

void svg_chart_xdomain(svg_chart *c, double lo, double hi) { svg_scale_nice(&c->x, lo, hi, c->ml, c->w - c->mr); }
void svg_chart_ydomain(svg_chart *c, double lo, double hi) { svg_scale_nice(&c->y, lo, hi, c->h - c->mb, c->mt); }

void svg_text_px(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text)
{
    sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\"", clampd(x, SVG_PX_MAX), clampd(y, SVG_PX_MAX));
    if (anchor) sb_printf(b, " text-anchor=\"%s\"", anchor);
    if (cls) sb_printf(b, " class=\"%s\"", cls);
    sb_add(b, ">");
    svg_esc(b, text);
    sb_add(b, "</text>");
}

void svg_chart_begin(strbuf *b, const svg_chart *c, const char *id, const char *xlabel, const char *ylabel)
{
    sb_add(b, "<svg class=\"chart\" id=\"");
    svg_esc(b, id);
    sb_printf(b, "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">",
              c->w, c->h, c->w, c->h);
    double ticks[16];
    char num[32];
    double x0 = c->ml, x1 = c->w - c->mr, y0 = c->h - c->mb, y1 = c->mt;
    int n = svg_ticks(&c->x, ticks, 16);
    for (int i = 0; i < n; i++) {
        double px = svg_scale_map(&c->x, ticks[i]);
        sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, y0, px, y1);
        svg_text_px(b, px, y0 + 16, "middle", "tick", svg_fmt_num(num, sizeof num, ticks[i]));
    }
    n = svg_ticks(&c->y, ticks, 16);
    for (int i = 0; i < n; i++) {
        double py = svg_scale_map(&c->y, ticks[i]);
        sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0, py, x1, py);
        svg_text_px(b, x0 - 6, py + 4, "end", "tick", svg_fmt_num(num, sizeof num, ticks[i]));
    }
    sb_printf(b, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>", x0, y1, y0, x1);
    svg_text_px(b, (x0 + x1) / 2, c->h - 8, "middle", "label", xlabel);
    sb_printf(b, "<text transform=\"rotate(-90)\" x=\"%.1f\" y=\"14\" text-anchor=\"middle\" class=\"label\">",
              -(y0 + y1) / 2);
    svg_esc(b, ylabel);
    sb_add(b, "</text>");
}

void svg_chart_end(strbuf *b) { sb_add(b, "</svg>\n"); }

void svg_no_data(strbuf *b, const char *id, int w, const char *why)
{
    sb_add(b, "<svg class=\"chart nodata\" id=\"");
    svg_esc(b, id);
    sb_printf(b, "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d 56\" width=\"%d\" height=\"56\" role=\"img\">", w, w);
    sb_printf(b, "<rect x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"55\" class=\"nodata-box\"/>", w - 1);
    svg_text_px(b, 16, 33, NULL, "nodata", why);
    sb_add(b, "</svg>\n");
}

static void tip_title(strbuf *b, const char *tip)
{
    if (!tip) return;
    sb_add(b, "<title>");
    svg_esc(b, tip);
    sb_add(b, "</title>");
}

void svg_point(strbuf *b, const svg_chart *c, double x, double y, double r, const char *fill, const char *tip)
{
    sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" class=\"pt\">", svg_scale_map(&c->x, x),
              svg_scale_map(&c->y, y), r, fill);
    tip_title(b, tip);
    sb_add(b, "</circle>");
}

void svg_cross(strbuf *b, const svg_chart *c, double x, double y, double r, const char *stroke, const char *tip)
{
    double px = svg_scale_map(&c->x, x), py = svg_scale_map(&c->y, y);
    sb_printf(b, "<path d=\"M%.1f %.1fl%.1f %.1fM%.1f %.1fl%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\" class=\"pt\">",
              px - r, py - r, 2 * r, 2 * r, px - r, py + r, 2 * r, -2 * r, stroke);
    tip_title(b, tip);
    sb_add(b, "</path>");
}

void svg_vline(strbuf *b, const svg_chart *c, double x, const char *stroke, const char *label)
{
    double px = svg_scale_map(&c->x, x);
    sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
              px, c->mt, px, c->h - c->mb, stroke);
    if (label) svg_text_px(b, px - 4, c->mt + 12, "end", "mark", label);
}

void svg_hline(strbuf *b, const svg_chart *c, double y, const char *stroke, const char *label)
{
    double py = svg_scale_map(&c->y, y);
    sb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
              c->ml, py, c->w - c->mr, py, stroke);
    if (label) svg_text_px(b, c->w - c->mr - 4, py - 4, "end", "mark", label);
}

void svg_segment(strbuf *b, const svg_chart *c, double x0, double y0, double x1, double y1, const char *stroke,
                 bool dashed)
{
    sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>", svg_scale_map(&c->x, x0),
              svg_scale_map(&c->y, y0), svg_scale_map(&c->x, x1), svg_scale_map(&c->y, y1), stroke,
              dashed ? " stroke-dasharray=\"4 4\"" : "");
}

void svg_polyline(strbuf *b, const svg_chart *c, const double *xs, const double *ys, int n, const char *stroke)
{
    if (n < 2) return;
    sb_add(b, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"");
    sb_add(b, stroke);
    sb_add(b, "\" points=\"");
    for (int i = 0; i < n; i++)
        sb_printf(b, "%s%.1f,%.1f", i ? " " : "", svg_scale_map(&c->x, xs[i]), svg_scale_map(&c->y, ys[i]));
    sb_add(b, "\"/>");
}

void svg_rect_px(strbuf *b, double x, double y, double w, double h, const char *fill, const char *tip)
{
    w = clampd(w, SVG_PX_MAX);
    h = clampd(h, SVG_PX_MAX);
    sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", clampd(x, SVG_PX_MAX),
              clampd(y, SVG_PX_MAX), w > 0 ? w : 0, h > 0 ? h : 0, fill);
    tip_title(b, tip);
    sb_add(b, "</rect>");
}

void svg_legend_px(strbuf *b, double x, double y, const char *fill, const char *text)
{
    svg_rect_px(b, x, y - 9, 10, 10, fill, NULL);
    svg_text_px(b, x + 14, y, NULL, "legend", text);
}

const char *svg_palette(int i)
{
    static const char *const colours[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#bcbd22",
                                           "#7f7f7f", "#aec7e8", "#98df8a" };
    int n = (int)(sizeof colours / sizeof colours[0]);
    return colours[((i % n) + n) % n];
}

const char *svg_ramp(char *buf, size_t len, double t)
{
    if (!isfinite(t)) t = 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    /* light blue #e8f1fa → dark blue #08306b */
    int r = (int)lround(232 + (8 - 232) * t), g = (int)lround(241 + (48 - 241) * t), bl = (int)lround(250 + (107 - 250) * t);
    snprintf(buf, len, "#%02x%02x%02x", r, g, bl);
    return buf;
}
