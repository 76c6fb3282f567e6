/* report.c — see report.h.  The JSON trees are read with cJSON and walked
 * directly (no intermediate structs): each chart takes what it needs and
 * skips entries whose fields are missing or not numbers.  The page is built
 * in one strbuf and written with one atomic write. */
#include "results/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/ledger.h"
#include "results/svg.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#define CHART_W 720
#define CHART_H 340
#define MAX_AXIS_VALUES 16 /* heatmap rows / columns shown */
#define MAX_GROUPS 8       /* GPU types / length pairs with their own colour */

static const char *const COLOUR_OK = "#1f77b4", *const COLOUR_MEASURED = "#ff7f0e", *const COLOUR_FAIL = "#d62728",
                         *const COLOUR_LIMIT = "#d62728", *const COLOUR_PREDICTED = "#7f7f7f";

/* ---- reading fields ------------------------------------------------------- */

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static const cJSON *obj(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsObject(v) ? v : NULL;
}

static const cJSON *arr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsArray(v) ? v : NULL;
}

static bool run_ok(const cJSON *r) { return !strcmp(str(r, "status"), "ok"); }
static bool run_measured(const cJSON *r) { return !strcmp(str(r, "source"), "measured"); }

static void add_num(strbuf *b, double v)
{
    char buf[40];
    sb_add(b, svg_fmt_num(buf, sizeof buf, v));
}

/* ---- page frame ----------------------------------------------------------- */

static const char PAGE_CSS[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;max-width:1180px;"
    "padding:0 16px;color:#1b1f24;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #d8dee4;padding-bottom:4px}"
    ".sub{color:#57606a;margin:0 0 12px}.note{color:#57606a;margin:2px 0 8px}.warn{color:#9a3412}"
    "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}dl.facts dt{color:#57606a}"
    "dl.facts dd{margin:0}code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f3f4f6;padding:1px 4px;border-radius:3px}"
    ".grid2{display:flex;flex-wrap:wrap;gap:8px 24px}.grid2 section{flex:1 1 540px}"
    ".scroll{overflow:auto;max-height:520px;border:1px solid #d8dee4}"
    /* the candidates table breaks out of the page's 1180 px to the window's width */
    "section.wide{margin-left:calc(50% - 50vw + 24px);margin-right:calc(50% - 50vw + 24px)}"
    "#runs td.name,#runs th.name{position:sticky;left:0;z-index:1;background:#fff;max-width:26em;overflow:hidden;"
    "text-overflow:ellipsis}#runs th.name{z-index:2;background:#f6f8fa}#runs tr.best td.name{background:#eef6ee}"
    "input.filter{font:13px system-ui,sans-serif;padding:3px 6px;width:22em;margin:0 8px 6px 0}"
    ".stale{opacity:.55}.stage{color:#57606a;font-size:12px;margin:0 0 6px}"
    "table{border-collapse:collapse;font-size:12px;white-space:nowrap}"
    "th,td{padding:3px 8px;border-bottom:1px solid #eaeef2;text-align:right}"
    "th{position:sticky;top:0;background:#f6f8fa;cursor:pointer;user-select:none}"
    "th.s,td.s{text-align:left}th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}tr.failed td{color:#9a3412}tr.best td{background:#eef6ee;font-weight:600}"
    "svg.chart{max-width:100%;height:auto;display:block}"
    "svg text{font:11px system-ui,sans-serif;fill:#1b1f24}svg text.label{font-size:12px;fill:#57606a}"
    "svg text.tick{fill:#57606a}svg text.mark{fill:#d62728}svg text.cell{font-size:11px}"
    "svg text.nodata{font-size:13px;fill:#57606a}svg .nodata-box{fill:#f6f8fa;stroke:#d8dee4}"
    "svg .grid{stroke:#eaeef2}svg .axis{stroke:#57606a;fill:none}svg .pt{fill-opacity:.8}";

/* The candidates table: sorts by the clicked column (numbers by data-v, text otherwise; empty
 * values stay last either way), filters rows by the text box, and keeps both in the page's
 * address (#sort=COLUMN:asc|desc&filter=TEXT) so a view can be shared; a link with that address
 * opens the same view.  It also records, for a headless-browser test, how many charts drew a box
 * and whether the last column can be scrolled into view. */
static const char PAGE_JS[] =
    "(function(){\n"
    "function key(td){var v=td.getAttribute('data-v');if(v===null)return td.textContent.trim().toLowerCase();"
    "return v===''?null:parseFloat(v);}\n"
    "function sortBy(t,i,asc){var heads=t.tHead.rows[0].cells;\n"
    "  Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});\n"
    "  heads[i].setAttribute('aria-sort',asc?'ascending':'descending');\n"
    "  var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
    "  rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);\n"
    "   if(x===null||y===null)return (x===null)-(y===null);\n"
    "   var c=x<y?-1:x>y?1:0;return asc?c:-c;});\n"
    "  rows.forEach(function(r){body.appendChild(r);});}\n"
    "function filterRows(t,text){var q=text.trim().toLowerCase(),n=0;\n"
    "  Array.prototype.forEach.call(t.tBodies[0].rows,function(r){var hit=!q||r.textContent.toLowerCase().indexOf(q)>=0;\n"
    "   r.style.display=hit?'':'none';if(hit)n++;});\n"
    "  t.setAttribute('data-shown',String(n));var c=document.getElementById('shown');if(c)c.textContent=n+' shown';}\n"
    "function state(){var h={};location.hash.replace(/^#/,'').split('&').forEach(function(p){var i=p.indexOf('=');\n"
    "  if(i>0)h[p.slice(0,i)]=decodeURIComponent(p.slice(i+1));});return h;}\n"
    "function save(t){var th=t.tHead.rows[0].querySelector('th[aria-sort]'),f=document.getElementById('filter');\n"
    "  var s=[];if(th)s.push('sort='+th.getAttribute('data-key')+':'+(th.getAttribute('aria-sort')==='ascending'?'asc':'desc'));\n"
    "  if(f&&f.value)s.push('filter='+encodeURIComponent(f.value));\n"
    "  if(history.replaceState)history.replaceState(null,'',s.length?'#'+s.join('&'):location.pathname);}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " var heads=t.tHead.rows[0].cells;\n"
    " Array.prototype.forEach.call(heads,function(th,i){th.addEventListener('click',function(){\n"
    "  sortBy(t,i,th.getAttribute('aria-sort')!=='ascending');save(t);});});\n"
    " var f=document.getElementById('filter');\n"
    " if(f)f.addEventListener('input',function(){filterRows(t,f.value);save(t);});\n"
    " var h=state();\n"
    " if(h.sort){var p=h.sort.split(':');Array.prototype.forEach.call(heads,function(th,i){\n"
    "  if(th.getAttribute('data-key')===p[0])sortBy(t,i,p[1]!=='desc');});}\n"
    " if(f&&h.filter){f.value=h.filter;}filterRows(t,f?f.value:'');\n"
    " var box=t.parentNode,last=heads[heads.length-1];box.scrollLeft=box.scrollWidth;\n"
    " var br=box.getBoundingClientRect(),lr=last.getBoundingClientRect();\n"
    " t.setAttribute('data-last-col-reachable',lr.right<=br.right+1&&lr.left>=br.left-1?'1':'0');box.scrollLeft=0;\n"
    "});\n"
    /* lets a headless browser test see that the script ran and every chart has a drawn box */
    "var n=0;document.querySelectorAll('svg.chart').forEach(function(s){var b=s.getBBox();if(b.width>0&&b.height>0)n++;});\n"
    "document.body.setAttribute('data-charts-rendered',String(n));\n"
    "})();\n";

void report_page_head(strbuf *b, const char *title_prefix, const char *title)
{
    sb_add(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    svg_esc(b, title_prefix);
    svg_esc(b, title);
    sb_add(b, "</title><style>");
    sb_add(b, PAGE_CSS);
    sb_add(b, "</style></head><body>\n");
}

/* the stage and time of the section being drawn (report_build_html_opts sets it per group) */
static const char *cur_prov;

static void section_open(strbuf *b, const char *title, const char *note)
{
    sb_add(b, "<section><h2>");
    svg_esc(b, title);
    sb_add(b, "</h2>");
    if (cur_prov) {
        sb_add(b, "<p class=\"stage\">");
        svg_esc(b, cur_prov);
        sb_add(b, "</p>");
    }
    if (note) {
        sb_add(b, "<p class=\"note\">");
        svg_esc(b, note);
        sb_add(b, "</p>");
    }
}

static void fact(strbuf *b, const char *label, const char *value)
{
    sb_add(b, "<dt>");
    svg_esc(b, label);
    sb_add(b, "</dt><dd>");
    svg_esc(b, value && *value ? value : "\xe2\x80\x94");
    sb_add(b, "</dd>");
}

static void fact_num(strbuf *b, const char *label, double v, const char *unit)
{
    char buf[64], out[96];
    svg_fmt_num(buf, sizeof buf, v);
    snprintf(out, sizeof out, "%s%s", buf, isfinite(v) && unit ? unit : "");
    fact(b, label, out);
}

static void write_header(strbuf *b, const cJSON *s)
{
    const cJSON *m = obj(s, "model"), *c = obj(s, "cluster"), *q = obj(s, "search");
    char line[512];
    sb_add(b, "<h1>autoconfig report: ");
    svg_esc(b, *str(m, "name") ? str(m, "name") : "unnamed model");
    sb_add(b, "</h1><p class=\"sub\">");
    snprintf(line, sizeof line, "%s %s, generated %s", str(s, "tool"), str(s, "version"), str(s, "generated"));
    svg_esc(b, line);
    sb_add(b, "</p><dl class=\"facts\">");
    fact(b, "Model family", str(m, "family"));
    fact_num(b, "Parameters", num(m, "params_b"), " B");
    fact_num(b, "Sequence length", num(m, "seq_length"), NULL);
    char nb[40], gb[40];
    snprintf(line, sizeof line, "%s nodes x %s GPUs (%s), cluster type %s", svg_fmt_num(nb, sizeof nb, num(c, "nodes")),
             svg_fmt_num(gb, sizeof gb, num(c, "gpus_per_node")), str(c, "gpu"), str(c, "type"));
    fact(b, "Cluster", line);
    fact_num(b, "GPU price", num(c, "price_per_gpu_hour"), " USD/GPU-hour");
    char a[40], v[40], f[40], o[40], l[40], ms[40], fl[40], rk[40];
    svg_fmt_num(a, sizeof a, num(q, "candidates"));
    svg_fmt_num(v, sizeof v, num(q, "valid"));
    svg_fmt_num(f, sizeof f, num(q, "predicted_fit"));
    svg_fmt_num(o, sizeof o, num(q, "predicted_oom"));
    svg_fmt_num(l, sizeof l, num(q, "launched"));
    svg_fmt_num(ms, sizeof ms, num(q, "measured"));
    svg_fmt_num(fl, sizeof fl, num(q, "failed"));
    svg_fmt_num(rk, sizeof rk, num(q, "ranked"));
    /* the console's words (search_train_counts): sim launches nothing and ranks its top candidates */
    if (strcmp(str(c, "type"), "sim"))
        snprintf(line, sizeof line, "%s: %s candidates, %s valid, %s predicted to fit, %s predicted out of memory; "
                 "%s launched, %s measured, %s failed", str(q, "mode"), a, v, f, o, l, ms, fl);
    else
        snprintf(line, sizeof line, "%s: %s candidates, %s valid, %s predicted to fit, %s predicted out of memory; "
                 "0 launched (cluster_type sim: the top %s are ranked by prediction)", str(q, "mode"), a, v, f, o, rk);
    fact(b, "Search", line);
    fact(b, "Best configuration", str(s, "best"));
    const cJSON *rec = obj(s, "recommendation");
    if (rec) {
        /* the optimal config written: the best of everything scored, ties to the conventional layout */
        char ties[40], band[40];
        snprintf(line, sizeof line, "%s (%s; %s candidates within the %s %% tie band, chosen as %s)", str(rec, "name"),
                 str(rec, "source"), svg_fmt_num(ties, sizeof ties, num(rec, "ties")),
                 svg_fmt_num(band, sizeof band, 100.0 * num(rec, "tie_band")), str(rec, "preferred_for"));
        fact(b, "Optimal config (recommended)", line);
    }
    const cJSON *x = obj(q, "exhaustive");
    if (x) {
        snprintf(line, sizeof line, "%s (%s candidates, %s %% faster)", str(x, "best_name"),
                 svg_fmt_num(a, sizeof a, num(x, "candidates")), svg_fmt_num(v, sizeof v, num(x, "gain_pct")));
        fact(b, "Exhaustive best", line);
    }
    sb_add(b, "</dl>\n");
}

/* ---- summary table ---------------------------------------------------------- */

typedef enum { COL_TEXT, COL_INT, COL_NUM, COL_BOOL } col_kind;
static const struct {
    const char *key, *head;
    col_kind kind;
} TABLE_COLS[] = {
    { "rank", "#", COL_INT },
    { "name", "Name", COL_TEXT },
    { "status", "Status", COL_TEXT },
    { "source", "Source", COL_TEXT },
    { "tp", "TP", COL_INT },
    { "pp", "PP", COL_INT },
    { "cp", "CP", COL_INT },
    { "ep", "EP", COL_INT },
    { "vp", "VP", COL_INT },
    { "sequence_parallel", "SP", COL_BOOL },
    { "recompute", "Recompute", COL_TEXT },
    { "act_ckpt_layers", "Act ckpt", COL_INT },
    { "precision", "Precision", COL_TEXT },
    { "distributed_optimizer", "Dist. opt.", COL_BOOL },
    { "mbs", "MBS", COL_INT },
    { "gbs", "GBS", COL_INT },
    { "step_time_s", "Step [s]", COL_NUM },
    { "band_pct", "\xc2\xb1 band [%]", COL_NUM },
    { "error_pct", "Pred. error [%]", COL_NUM },
    { "tokens_per_s", "Tokens/s", COL_NUM },
    { "tflops_per_gpu", "TFLOPS/GPU", COL_NUM },
    { "mfu", "MFU", COL_NUM },
    { "peak_mem_gib", "Peak mem [GiB]", COL_NUM },
    { "mem_limit_gib", "Limit [GiB]", COL_NUM },
    { "days_to_train", "Days", COL_NUM },
    { "cost_usd", "Cost [USD]", COL_NUM },
    { "reason", "Reason", COL_TEXT },
};
#define N_TABLE_COLS (sizeof TABLE_COLS / sizeof TABLE_COLS[0])

static void write_table(strbuf *b, const cJSON *runs, const char *best, const char *prov)
{
    sb_add(b, "<section class=\"wide\"><h2>All candidates</h2>");
    if (prov) { sb_add(b, "<p class=\"stage\">"); svg_esc(b, prov); sb_add(b, "</p>"); }
    sb_add(b, "<p class=\"note\">Click a column heading to sort; type to filter. Failed rows come last, unnumbered, "
              "and say why in the last column.</p>");
    if (!cJSON_GetArraySize(runs)) {
        sb_add(b, "<p class=\"note\">No runs recorded yet.</p></section>\n");
        return;
    }
    sb_add(b, "<input class=\"filter\" id=\"filter\" type=\"search\" placeholder=\"Filter rows (text in any cell)\" "
              "aria-label=\"Filter rows\"><span class=\"note\" id=\"shown\"></span>");
    sb_add(b, "<div class=\"scroll\"><table class=\"sortable\" id=\"runs\"><thead><tr>");
    for (size_t i = 0; i < N_TABLE_COLS; i++) {
        bool name = !strcmp(TABLE_COLS[i].key, "name");
        sb_printf(b, "<th%s data-key=\"%s\">", name ? " class=\"s name\"" : TABLE_COLS[i].kind == COL_TEXT ? " class=\"s\"" : "",
                  TABLE_COLS[i].key);
        svg_esc(b, TABLE_COLS[i].head);
        sb_add(b, "</th>");
    }
    sb_add(b, "</tr></thead><tbody>\n");
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        if (!cJSON_IsObject(r)) continue;
        bool is_best = *best && !strcmp(str(r, "name"), best);
        sb_add(b, is_best ? "<tr class=\"best\">" : run_ok(r) ? "<tr>" : "<tr class=\"failed\">");
        for (size_t i = 0; i < N_TABLE_COLS; i++) {
            if (!strcmp(TABLE_COLS[i].key, "name")) {
                sb_add(b, "<td class=\"s name\" title=\"");
                svg_esc(b, str(r, "name"));
                sb_add(b, "\">");
                svg_esc(b, str(r, "name"));
            } else if (TABLE_COLS[i].kind == COL_TEXT) {
                sb_add(b, "<td class=\"s\">");
                svg_esc(b, str(r, TABLE_COLS[i].key));
            } else if (TABLE_COLS[i].kind == COL_BOOL) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, TABLE_COLS[i].key);
                sb_add(b, "<td class=\"s\">");
                sb_add(b, cJSON_IsTrue(v) ? "on" : cJSON_IsFalse(v) ? "off" : "\xe2\x80\x94");
            } else if (!strcmp(TABLE_COLS[i].key, "rank") && !(num(r, "rank") > 0)) {
                sb_add(b, "<td data-v=\"\">"); /* a failed row has no rank */
            } else {
                double v = num(r, TABLE_COLS[i].key);
                if (isfinite(v)) sb_printf(b, "<td data-v=\"%.9g\">", v);
                else sb_add(b, "<td data-v=\"\">");
                if (TABLE_COLS[i].kind == COL_INT && isfinite(v) && fabs(v) < 1e15 && v == floor(v))
                    sb_printf(b, "%.0f", v);
                else add_num(b, v);
            }
            sb_add(b, "</td>");
        }
        sb_add(b, "</tr>\n");
    }
    sb_add(b, "</tbody></table></div></section>\n");
}

/* ---- charts ----------------------------------------------------------------- */

/* "name: key value, key value" for a tooltip */
static void tip_run(char *buf, size_t len, const cJSON *r)
{
    char t[40], m[40], s[40];
    snprintf(buf, len, "%s (%s, %s): %s tokens/s, %s GiB, step %s s %s", str(r, "name"), str(r, "status"),
             str(r, "source"), svg_fmt_num(t, sizeof t, num(r, "tokens_per_s")),
             svg_fmt_num(m, sizeof m, num(r, "peak_mem_gib")), svg_fmt_num(s, sizeof s, num(r, "step_time_s")),
             str(r, "reason"));
}

static double fmax_finite(double a, double v) { return isfinite(v) && (!isfinite(a) || v > a) ? v : a; }

/* throughput against peak memory, the memory limit as a vertical line */
static bool chart_memory(strbuf *b, const cJSON *runs, double limit)
{
    section_open(b, "Throughput vs peak memory", "Each candidate; crosses are failed runs and candidates predicted "
                                                 "not to fit, at their predicted throughput (zero when there is none). "
                                                 "The dashed line is the usable GPU memory.");
    double xmax = limit, ymax = NAN;
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        double m = num(r, "peak_mem_gib"), t = num(r, "tokens_per_s");
        if (!isfinite(m)) continue;
        if (!isfinite(limit)) xmax = fmax_finite(xmax, num(r, "mem_limit_gib"));
        xmax = fmax_finite(xmax, m);
        ymax = fmax_finite(ymax, t);
        n++;
    }
    if (!n) {
        svg_no_data(b, "chart-memory", CHART_W, "No data: no run has a peak memory figure.");
        sb_add(b, "</section>\n");
        return false;
    }
    if (!isfinite(limit)) {
        cJSON_ArrayForEach(r, runs) if (isfinite(num(r, "mem_limit_gib"))) { limit = num(r, "mem_limit_gib"); break; }
    }
    svg_chart c;
    svg_chart_init(&c, CHART_W, CHART_H);
    svg_chart_xdomain(&c, 0, xmax * 1.05);
    svg_chart_ydomain(&c, 0, isfinite(ymax) ? ymax * 1.05 : 1);
    svg_chart_begin(b, &c, "chart-memory", "peak memory per GPU [GiB]", "throughput [tokens/s]");
    char tip[1024];
    cJSON_ArrayForEach(r, runs) {
        double m = num(r, "peak_mem_gib"), t = num(r, "tokens_per_s");
        if (!isfinite(m)) continue;
        tip_run(tip, sizeof tip, r);
        if (!run_ok(r)) svg_cross(b, &c, m, isfinite(t) ? t : 0, 4, COLOUR_FAIL, tip);
        else if (isfinite(t)) svg_point(b, &c, m, t, 4, run_measured(r) ? COLOUR_MEASURED : COLOUR_OK, tip);
    }
    if (isfinite(limit)) {
        char lb[64], nb[40];
        snprintf(lb, sizeof lb, "limit %s GiB", svg_fmt_num(nb, sizeof nb, limit));
        svg_vline(b, &c, limit, COLOUR_LIMIT, lb);
    }
    svg_legend_px(b, c.ml + 10, c.mt + 12, COLOUR_OK, "predicted");
    svg_legend_px(b, c.ml + 90, c.mt + 12, COLOUR_MEASURED, "measured");
    svg_legend_px(b, c.ml + 170, c.mt + 12, COLOUR_FAIL, "failed");
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

/* sorted distinct values, at most max; returns how many */
static int add_distinct(double *vals, int n, int max, double v)
{
    for (int i = 0; i < n; i++)
        if (vals[i] == v) return n;
    if (n >= max) return n;
    int i = n;
    while (i > 0 && vals[i - 1] > v) { vals[i] = vals[i - 1]; i--; }
    vals[i] = v;
    return n + 1;
}

static int index_of(const double *vals, int n, double v)
{
    for (int i = 0; i < n; i++)
        if (vals[i] == v) return i;
    return -1;
}

/* best throughput of successful runs per (TP, PP) cell */
static bool chart_heatmap(strbuf *b, const cJSON *runs)
{
    section_open(b, "Best throughput by TP x PP", "Highest tokens/s among successful candidates with that tensor "
                                                 "and pipeline parallel size; empty cells had none.");
    double tps[MAX_AXIS_VALUES], pps[MAX_AXIS_VALUES], best[MAX_AXIS_VALUES][MAX_AXIS_VALUES];
    int ntp = 0, npp = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        if (!run_ok(r) || !isfinite(num(r, "tokens_per_s")) || !isfinite(num(r, "tp")) || !isfinite(num(r, "pp")))
            continue;
        ntp = add_distinct(tps, ntp, MAX_AXIS_VALUES, num(r, "tp"));
        npp = add_distinct(pps, npp, MAX_AXIS_VALUES, num(r, "pp"));
    }
    if (!ntp || !npp) {
        svg_no_data(b, "chart-heatmap", CHART_W, "No data: no successful run with TP, PP and a throughput.");
        sb_add(b, "</section>\n");
        return false;
    }
    double top = 0;
    for (int i = 0; i < MAX_AXIS_VALUES; i++)
        for (int j = 0; j < MAX_AXIS_VALUES; j++) best[i][j] = NAN;
    cJSON_ArrayForEach(r, runs) {
        double t = num(r, "tokens_per_s");
        if (!run_ok(r) || !isfinite(t)) continue;
        int i = index_of(pps, npp, num(r, "pp")), j = index_of(tps, ntp, num(r, "tp"));
        if (i < 0 || j < 0) continue;
        best[i][j] = fmax_finite(best[i][j], t);
        top = fmax_finite(top, t);
    }
    const double ml = 64, mt = 14, mb = 46, cw = (CHART_W - ml - 20) / ntp;
    /* cells at least 48 px, and together tall enough for the rotated axis label */
    const double ch = fmin(fmax(48, 170.0 / npp), (CHART_H - mt - mb) / npp), h = mt + ch * npp + mb;
    sb_printf(b, "<svg class=\"chart\" id=\"chart-heatmap\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %.0f\" "
                 "width=\"%d\" height=\"%.0f\" role=\"img\">", CHART_W, h, CHART_W, h);
    char nb[40], col[16], tip[160], tb[40], pb[40];
    for (int i = 0; i < npp; i++) {
        svg_text_px(b, ml - 8, mt + ch * i + ch / 2 + 4, "end", "tick", svg_fmt_num(nb, sizeof nb, pps[i]));
        for (int j = 0; j < ntp; j++) {
            double v = best[i][j], x = ml + cw * j, y = mt + ch * i;
            double t = top > 0 && isfinite(v) ? v / top : 0;
            snprintf(tip, sizeof tip, "TP %s, PP %s: %s tokens/s", svg_fmt_num(tb, sizeof tb, tps[j]),
                     svg_fmt_num(pb, sizeof pb, pps[i]), svg_fmt_num(nb, sizeof nb, v));
            svg_rect_px(b, x + 1, y + 1, cw - 2, ch - 2, isfinite(v) ? svg_ramp(col, sizeof col, 0.1 + 0.9 * t) : "#f6f8fa",
                        tip);
            sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"cell\"%s>", x + cw / 2,
                      y + ch / 2 + 4, t > 0.55 ? " style=\"fill:#fff\"" : "");
            sb_add(b, svg_fmt_num(nb, sizeof nb, v));
            sb_add(b, "</text>");
        }
    }
    for (int j = 0; j < ntp; j++)
        svg_text_px(b, ml + cw * j + cw / 2, mt + ch * npp + 16, "middle", "tick", svg_fmt_num(nb, sizeof nb, tps[j]));
    svg_text_px(b, ml + (CHART_W - ml - 20) / 2, h - 8, "middle", "label", "tensor parallel size (TP)");
    sb_printf(b, "<text transform=\"rotate(-90)\" x=\"%.1f\" y=\"14\" text-anchor=\"middle\" class=\"label\">"
                 "pipeline parallel size (PP)</text>", -(mt + ch * npp / 2));
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

/* measured step time against the estimator's prediction, y = x dashed */
static bool chart_predicted(strbuf *b, const cJSON *runs)
{
    section_open(b, "Predicted vs measured step time", "Measured runs only; points on the dashed line were "
                                                       "predicted exactly, above it the estimator was optimistic.");
    double top = NAN;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        double p = num(r, "predicted_step_time_s"), m = num(r, "measured_step_time_s");
        if (!run_measured(r) || !isfinite(p) || !isfinite(m)) continue;
        top = fmax_finite(top, fmax(p, m));
    }
    if (!isfinite(top)) {
        svg_no_data(b, "chart-predicted", CHART_W, "No data: no measured runs (cluster type sim predicts every run).");
        sb_add(b, "</section>\n");
        return false;
    }
    svg_chart c;
    svg_chart_init(&c, CHART_W, CHART_H);
    svg_chart_xdomain(&c, 0, top * 1.05);
    svg_chart_ydomain(&c, 0, top * 1.05);
    svg_chart_begin(b, &c, "chart-predicted", "predicted step time [s]", "measured step time [s]");
    svg_segment(b, &c, c.x.d0, c.x.d0, c.x.d1, c.x.d1, "#57606a", true);
    char tip[1024], eb[40];
    cJSON_ArrayForEach(r, runs) {
        double p = num(r, "predicted_step_time_s"), m = num(r, "measured_step_time_s");
        if (!run_measured(r) || !isfinite(p) || !isfinite(m)) continue;
        snprintf(tip, sizeof tip, "%s: predicted %.4g s, measured %.4g s, error %s %%", str(r, "name"), p, m,
                 svg_fmt_num(eb, sizeof eb, num(r, "error_pct")));
        svg_point(b, &c, p, m, 4, COLOUR_MEASURED, tip);
    }
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

/* colour index of a group name, remembered in names (at most MAX_GROUPS; later ones share the last) */
static int group_index(const char **names, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name)) return i;
    if (*n < MAX_GROUPS) { names[*n] = name; return (*n)++; }
    return MAX_GROUPS - 1;
}

/* cost against time: the cost stage's options per GPU type, else the runs on this cluster's GPU */
static bool chart_cost(strbuf *b, const cJSON *runs, const cJSON *cost, const char *cluster_gpu)
{
    const cJSON *opts = cost ? arr(cost, "options") : NULL;
    int n = 0;
    const cJSON *o;
    double xmax = NAN, ymax = NAN;
    cJSON_ArrayForEach(o, opts) {
        if (!isfinite(num(o, "hours")) || !isfinite(num(o, "usd_per_mtok"))) continue;
        xmax = fmax_finite(xmax, num(o, "hours"));
        ymax = fmax_finite(ymax, num(o, "usd_per_mtok"));
        n++;
    }
    bool from_cost = n > 0;
    if (!from_cost) {
        cJSON_ArrayForEach(o, runs) {
            if (!run_ok(o) || !isfinite(num(o, "days_to_train")) || !isfinite(num(o, "cost_usd"))) continue;
            xmax = fmax_finite(xmax, num(o, "days_to_train"));
            ymax = fmax_finite(ymax, num(o, "cost_usd"));
            n++;
        }
    }
    section_open(b, "Cost vs time to train",
                 from_cost ? "Options from the cost stage: each GPU type and count; crosses are infeasible."
                           : "Successful candidates on this cluster's GPU type (no cost comparison across GPU "
                             "types was run: <logs>/cost/summary.json is absent).");
    if (!n) {
        svg_no_data(b, "chart-cost", CHART_W, "No data: no cost options and no run with both cost and days to train.");
        sb_add(b, "</section>\n");
        return false;
    }
    svg_chart c;
    svg_chart_init(&c, CHART_W, CHART_H);
    svg_chart_xdomain(&c, 0, xmax * 1.05);
    svg_chart_ydomain(&c, 0, ymax * 1.05);
    svg_chart_begin(b, &c, "chart-cost", from_cost ? "time [hours]" : "time to train [days]",
                    from_cost ? "cost [USD per million tokens]" : "cost to train [USD]");
    const char *names[MAX_GROUPS];
    int ng = 0;
    char tip[1024], hb[40], cb[40], mb[40], fb[40];
    if (from_cost) {
        cJSON_ArrayForEach(o, opts) {
            double x = num(o, "hours"), y = num(o, "usd_per_mtok");
            if (!isfinite(x) || !isfinite(y)) continue;
            int g = group_index(names, &ng, str(o, "gpu"));
            snprintf(tip, sizeof tip, "%s: %s x %s, %s h, %s USD/Mtok, MFU %s%s", str(o, "label"), str(o, "gpu"),
                     svg_fmt_num(cb, sizeof cb, num(o, "num_gpus")), svg_fmt_num(hb, sizeof hb, x),
                     svg_fmt_num(mb, sizeof mb, y), svg_fmt_num(fb, sizeof fb, num(o, "mfu")),
                     cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "feasible")) ? " (infeasible)" : "");
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "feasible"))) svg_cross(b, &c, x, y, 4, svg_palette(g), tip);
            else svg_point(b, &c, x, y, 5, svg_palette(g), tip);
        }
    } else {
        int g = group_index(names, &ng, *cluster_gpu ? cluster_gpu : "this cluster");
        cJSON_ArrayForEach(o, runs) {
            double x = num(o, "days_to_train"), y = num(o, "cost_usd");
            if (!run_ok(o) || !isfinite(x) || !isfinite(y)) continue;
            snprintf(tip, sizeof tip, "%s: %s days, %s USD", str(o, "name"), svg_fmt_num(hb, sizeof hb, x),
                     svg_fmt_num(cb, sizeof cb, y));
            svg_point(b, &c, x, y, 4, svg_palette(g), tip);
        }
    }
    /* a veil behind the legend keeps it readable over the points it covers */
    if (ng > 0) svg_rect_px(b, c.w - c.mr - 156, c.mt + 2, 152, 16 * ng + 6, "#ffffffd9", NULL);
    for (int i = 0; i < ng; i++)
        svg_legend_px(b, c.w - c.mr - 150, c.mt + 14 + 16 * i, svg_palette(i), names[i][0] ? names[i] : "(unnamed)");
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

static int cmp_double_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

/* a measured serving row's prediction (latency, requests/s per GPU), when the summary has one */
static bool predicted_point(const cJSON *r, double *x, double *y)
{
    double tp = num(r, "tp"), pp = num(r, "pp");
    *x = num(r, "predicted_latency_ms");
    *y = num(r, "predicted_requests_per_s") / (tp * pp);
    return isfinite(*x) && isfinite(*y) && tp > 0 && pp > 0;
}

/* inference: throughput per GPU against latency, per (input, output) pair, with the frontier */
/* one (input, output) pair's limit line and, when it drew points, its legend entry (the k-th) */
static void limit_and_legend(strbuf *b, const svg_chart *c, const cJSON *pair, const char *limit_key, int np, int *k,
                             const char *colour)
{
    char lb[96], nb[40], xb[40];
    double lim = num(pair, limit_key);
    if (isfinite(lim)) {
        snprintf(lb, sizeof lb, "limit %s ms", svg_fmt_num(nb, sizeof nb, lim));
        svg_vline(b, c, lim, COLOUR_LIMIT, lb);
    }
    if (np && *k < MAX_GROUPS) {
        snprintf(lb, sizeof lb, "in %s / out %s", svg_fmt_num(nb, sizeof nb, num(pair, "input_len")),
                 svg_fmt_num(xb, sizeof xb, num(pair, "output_len")));
        svg_legend_px(b, c->w - c->mr - 130, c->h - c->mb - 10 - 16 * *k, colour, lb);
    }
    if (np) (*k)++;
}

static bool chart_inference(strbuf *b, const cJSON *infer, const char *infer_problem)
{
    const cJSON *pairs = infer ? arr(infer, "pairs") : NULL, *p, *r;
    bool has_limit = false;
    cJSON_ArrayForEach(p, pairs) has_limit |= isfinite(num(p, "max_latency_ms")) != 0;
    section_open(b, "Inference: latency vs throughput",
                 has_limit ? "Each configuration (TP, PP, batch size) per input/output length pair; the line joins the "
                             "configurations no other beats on both latency and throughput; the dashed line is the "
                             "latency limit."
                           : "Each configuration (TP, PP, batch size) per input/output length pair; the line joins the "
                             "configurations no other beats on both latency and throughput. No latency limit was set "
                             "(search_config.inference_settings.max_latency_ms is null).");
    if (infer_problem) {
        sb_add(b, "<p class=\"note warn\">");
        svg_esc(b, infer_problem);
        sb_add(b, "</p>");
    }
    double xmax = NAN, ymax = NAN;
    int n = 0;
    cJSON_ArrayForEach(p, pairs) {
        xmax = fmax_finite(xmax, num(p, "max_latency_ms"));
        cJSON_ArrayForEach(r, arr(p, "rows")) {
            double x = num(r, "latency_ms"), y = num(r, "throughput_per_gpu");
            if (strcmp(str(r, "status"), "ok") || !isfinite(x) || !isfinite(y)) continue;
            xmax = fmax_finite(xmax, x);
            ymax = fmax_finite(ymax, y);
            double px, py;
            if (predicted_point(r, &px, &py)) { xmax = fmax_finite(xmax, px); ymax = fmax_finite(ymax, py); }
            n++;
        }
    }
    if (!n) {
        svg_no_data(b, "chart-inference", CHART_W,
                    infer ? "No data: the inference summary has no successful rows." : "No data: no inference search was run.");
        sb_add(b, "</section>\n");
        return false;
    }
    svg_chart c;
    svg_chart_init(&c, CHART_W, CHART_H);
    svg_chart_xdomain(&c, 0, xmax * 1.05);
    svg_chart_ydomain(&c, 0, ymax * 1.05);
    svg_chart_begin(b, &c, "chart-inference", "latency [ms]", "throughput per GPU [samples/s]");
    int k = 0;
    char tip[512], lb[96], nb[40], xb[40], yb[40], bb[40], tb[40];
    cJSON_ArrayForEach(p, pairs) {
        const cJSON *rows = arr(p, "rows");
        int m = cJSON_GetArraySize(rows);
        if (m <= 0) continue;
        double *pts = malloc((size_t)m * 2 * sizeof *pts);
        if (!pts) { b->oom = true; break; }
        int np = 0;
        const char *colour = svg_palette(k);
        cJSON_ArrayForEach(r, rows) {
            double x = num(r, "latency_ms"), y = num(r, "throughput_per_gpu");
            if (strcmp(str(r, "status"), "ok") || !isfinite(x) || !isfinite(y)) continue;
            snprintf(tip, sizeof tip, "TP %s, PP %s, BS %s: %s ms, %s per GPU", svg_fmt_num(nb, sizeof nb, num(r, "tp")),
                     svg_fmt_num(lb, sizeof lb, num(r, "pp")), svg_fmt_num(bb, sizeof bb, num(r, "bs")),
                     svg_fmt_num(xb, sizeof xb, x), svg_fmt_num(yb, sizeof yb, y));
            svg_point(b, &c, x, y, 3.5, colour, tip);
            double px, py;
            if (predicted_point(r, &px, &py)) {
                /* a measured serving run: its prediction beside it, small and grey */
                snprintf(tip, sizeof tip, "predicted for TP %s, PP %s, BS %s, concurrency %s: %s ms, %s per GPU",
                         svg_fmt_num(nb, sizeof nb, num(r, "tp")), svg_fmt_num(lb, sizeof lb, num(r, "pp")),
                         svg_fmt_num(bb, sizeof bb, num(r, "bs")), svg_fmt_num(xb, sizeof xb, num(r, "concurrency")),
                         svg_fmt_num(yb, sizeof yb, px), svg_fmt_num(tb, sizeof tb, py));
                svg_point(b, &c, px, py, 2.0, COLOUR_PREDICTED, tip);
            }
            pts[2 * np] = x;
            pts[2 * np + 1] = y;
            np++;
        }
        /* frontier: by rising latency, keep each point that beats every faster one's throughput */
        qsort(pts, (size_t)np, 2 * sizeof *pts, cmp_double_pair);
        double *fx = malloc((size_t)(np ? np : 1) * sizeof *fx), *fy = malloc((size_t)(np ? np : 1) * sizeof *fy);
        if (fx && fy) {
            int nf = 0;
            for (int i = 0; i < np; i++)
                if (!nf || pts[2 * i + 1] > fy[nf - 1]) { fx[nf] = pts[2 * i]; fy[nf] = pts[2 * i + 1]; nf++; }
            svg_polyline(b, &c, fx, fy, nf, colour);
        } else {
            b->oom = true;
        }
        free(fx);
        free(fy);
        free(pts);
        limit_and_legend(b, &c, p, "max_latency_ms", np, &k, colour);
    }
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

/* serving: a row's time for one limit, at the percentile the limits apply to when one is set */
static double serve_time(const cJSON *r, const char *mean_key, const char *p_key)
{
    double v = num(r, p_key);
    return isfinite(v) ? v : num(r, mean_key);
}

static const struct {
    const char *mean, *pkey, *limit, *label;
} SERVE_LIMITS[] = {
    { "ttft_ms", "ttft_p_ms", "max_ttft_ms", "TTFT" },
    { "itl_ms", "itl_p_ms", "max_itl_ms", "ITL" },
};

/* does a serving row meet every limit of its pair but limit `skip` (the one on the x axis)? */
static bool serve_meets_others(const cJSON *p, const cJSON *r, int skip)
{
    for (int i = 0; i < 2; i++) {
        double lim = num(p, SERVE_LIMITS[i].limit);
        if (i != skip && isfinite(lim) && !(serve_time(r, SERVE_LIMITS[i].mean, SERVE_LIMITS[i].pkey) <= lim)) return false;
    }
    double lim = num(p, "max_latency_ms");
    return !isfinite(lim) || serve_time(r, "latency_ms", "latency_p_ms") <= lim;
}

/* a serving row the chart draws (ranked or over a limit, with a goodput: an in-flight engine's), at
 * *x its time for the limit `which` and *y its requests/s per GPU */
static bool serve_point(const cJSON *r, int which, double *x, double *y)
{
    const char *st = str(r, "status");
    *x = serve_time(r, SERVE_LIMITS[which].mean, SERVE_LIMITS[which].pkey);
    *y = num(r, "throughput_per_gpu");
    return (!strcmp(st, "ok") || !strcmp(st, "over_latency")) && isfinite(*x) && isfinite(*y) &&
           isfinite(num(r, "goodput_requests_per_s_per_gpu"));
}

/* serving: goodput (requests/s per GPU) against the TTFT and ITL limits.  Each configuration and load is a
 * point at its time; the step line is the frontier: the best goodput any configuration reaches if that limit
 * were x, the other limits as set; the dashed line is the limit set.  Only for in-flight engines' rows. */
static bool chart_serving(strbuf *b, const cJSON *infer, int which)
{
    const cJSON *pairs = infer ? arr(infer, "pairs") : NULL, *p, *r;
    const char *lk = SERVE_LIMITS[which].limit;
    int pct = 0;
    double xmax = NAN, ymax = NAN;
    int n = 0;
    cJSON_ArrayForEach(p, pairs) {
        if (isfinite(num(p, "percentile"))) pct = (int)num(p, "percentile");
        xmax = fmax_finite(xmax, num(p, lk));
        cJSON_ArrayForEach(r, arr(p, "rows")) {
            double x, y;
            if (!serve_point(r, which, &x, &y)) continue;
            xmax = fmax_finite(xmax, x);
            ymax = fmax_finite(ymax, y);
            n++;
        }
    }
    if (!n) return false; /* no serving rows: the static-batch chart says it all */
    char title[96], xl[64], id[32];
    const char *what = SERVE_LIMITS[which].label;
    snprintf(title, sizeof title, "Serving: goodput against the %s limit", what);
    if (pct) snprintf(xl, sizeof xl, "%s p%d [ms]", what, pct);
    else snprintf(xl, sizeof xl, "%s, mean [ms]", what);
    snprintf(id, sizeof id, "chart-serving-%s", which ? "itl" : "ttft");
    section_open(b, title,
                 "Each configuration (TP, PP, EP, max batch, precision) at each load, at its time for this limit and its "
                 "requests/s per GPU; the step line is the goodput frontier: the most requests/s per GPU any "
                 "configuration meeting the other limits serves if this limit were x; the dashed line is the limit set.");
    svg_chart c;
    svg_chart_init(&c, CHART_W, CHART_H);
    svg_chart_xdomain(&c, 0, xmax * 1.05);
    svg_chart_ydomain(&c, 0, ymax * 1.05);
    svg_chart_begin(b, &c, id, xl, "goodput [requests/s per GPU]");
    int k = 0;
    char tip[512], lb[96], nb[40], xb[40], yb[40], bb[40], load[48];
    cJSON_ArrayForEach(p, pairs) {
        const cJSON *rows = arr(p, "rows");
        int m = cJSON_GetArraySize(rows);
        if (m <= 0) continue;
        double *pts = malloc((size_t)m * 2 * sizeof *pts);
        double *fx = malloc((size_t)(2 * m + 1) * sizeof *fx), *fy = malloc((size_t)(2 * m + 1) * sizeof *fy);
        if (!pts || !fx || !fy) { b->oom = true; free(pts); free(fx); free(fy); break; }
        int np = 0;
        const char *colour = svg_palette(k);
        cJSON_ArrayForEach(r, rows) {
            double x, y;
            if (!serve_point(r, which, &x, &y)) continue;
            double rate = num(r, "request_rate_per_instance");
            if (isfinite(rate)) snprintf(load, sizeof load, "%s requests/s", svg_fmt_num(bb, sizeof bb, rate));
            else snprintf(load, sizeof load, "concurrency %s", svg_fmt_num(bb, sizeof bb, num(r, "concurrency")));
            snprintf(tip, sizeof tip, "TP %s, PP %s, BS %s, %s%s%s: %s %s ms, %s requests/s per GPU",
                     svg_fmt_num(nb, sizeof nb, num(r, "tp")), svg_fmt_num(lb, sizeof lb, num(r, "pp")),
                     svg_fmt_num(xb, sizeof xb, num(r, "bs")), load, *str(r, "precision") ? ", " : "", str(r, "precision"), what,
                     svg_fmt_num(yb, sizeof yb, x), svg_fmt_num(bb, sizeof bb, y));
            if (!serve_meets_others(p, r, which)) {
                svg_cross(b, &c, x, y, 3.5, colour, tip); /* misses another limit: not on the frontier */
                continue;
            }
            svg_point(b, &c, x, y, 3.5, colour, tip);
            pts[2 * np] = x;
            pts[2 * np + 1] = y;
            np++;
        }
        /* the frontier as a step function: by rising time, the best throughput so far */
        qsort(pts, (size_t)np, 2 * sizeof *pts, cmp_double_pair);
        int nf = 0;
        double best = 0.0;
        for (int i = 0; i < np; i++) {
            if (pts[2 * i + 1] <= best) continue;
            if (nf) { fx[nf] = pts[2 * i]; fy[nf] = best; nf++; }
            best = pts[2 * i + 1];
            fx[nf] = pts[2 * i]; fy[nf] = best; nf++;
        }
        if (nf) { fx[nf] = xmax * 1.05; fy[nf] = best; nf++; }
        svg_polyline(b, &c, fx, fy, nf, colour);
        free(fx);
        free(fy);
        free(pts);
        limit_and_legend(b, &c, p, lk, np, &k, colour);
    }
    svg_chart_end(b);
    sb_add(b, "</section>\n");
    return true;
}

typedef struct {
    const char *key, *label;
} part;

static const part MEM_PARTS[] = {
    { "weights", "weights" },       { "grads", "gradients" }, { "optimizer", "optimizer" },
    { "activations", "activations" }, { "logits", "logits" }, { "comm_buffers", "comm buffers" },
    { "allowance", "allowance" },
};
static const part TIME_PARTS[] = {
    { "compute_fwd", "forward" },   { "compute_bwd", "backward" }, { "recompute", "recompute" },
    { "tp_comm", "TP comm" },       { "cp_comm", "CP comm" },      { "ep_comm", "EP comm" },
    { "pp_bubble", "PP bubble" },   { "pp_p2p", "PP p2p" },        { "dp_exposed", "DP exposed" },
    { "optimizer", "optimizer" },   { "overhead", "overhead" },
};

/* one horizontal stacked bar of the parts of run[field], an optional limit line */
static bool chart_stacked(strbuf *b, const char *id, const cJSON *run, const char *field, const part *parts, int n,
                          double limit, const char *unit)
{
    const cJSON *o = run ? obj(run, field) : NULL;
    double total = 0;
    for (int i = 0; i < n; i++) {
        double v = num(o, parts[i].key);
        if (isfinite(v) && v > 0) total += v;
    }
    if (!(total > 0) || !isfinite(total)) {
        svg_no_data(b, id, CHART_W, "No data: no breakdown recorded for the best configuration.");
        return false;
    }
    /* legend in three columns: "comm buffers: 0.25 GiB (0 %)" needs about 200 px */
    const int w = CHART_W, ml = 16, mr = 20, bar_y = 30, bar_h = 34, rows = (n + 2) / 3, h = 92 + 18 * rows;
    const double col_w = (w - ml - mr) / 3.0;
    svg_scale s;
    svg_scale_nice(&s, 0, isfinite(limit) && limit > total ? limit : total, ml, w - mr);
    sb_add(b, "<svg class=\"chart\" id=\"");
    svg_esc(b, id);
    sb_printf(b, "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">",
              w, h, w, h);
    char nb[40], lb[96];
    double ticks[16];
    int nt = svg_ticks(&s, ticks, 16);
    for (int i = 0; i < nt; i++) {
        double px = svg_scale_map(&s, ticks[i]);
        sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", px, bar_y - 6, px,
                  bar_y + bar_h + 4);
        snprintf(lb, sizeof lb, "%s%s", svg_fmt_num(nb, sizeof nb, ticks[i]), i == nt - 1 ? unit : "");
        svg_text_px(b, px, bar_y + bar_h + 18, i == nt - 1 ? "end" : "middle", "tick", lb);
    }
    double acc = 0;
    int shown = 0;
    for (int i = 0; i < n; i++) {
        double v = num(o, parts[i].key);
        if (!isfinite(v) || v <= 0) continue;
        double x0 = svg_scale_map(&s, acc), x1 = svg_scale_map(&s, acc + v);
        snprintf(lb, sizeof lb, "%s: %s%s (%.0f %%)", parts[i].label, svg_fmt_num(nb, sizeof nb, v), unit,
                 100 * v / total);
        /* colours by shown part, so the few non-zero parts never share one */
        svg_rect_px(b, x0, bar_y, x1 - x0, bar_h, svg_palette(shown), lb);
        svg_legend_px(b, ml + col_w * (shown % 3), bar_y + bar_h + 42 + 18 * (shown / 3), svg_palette(shown), lb);
        shown++;
        acc += v;
    }
    if (isfinite(limit)) {
        double px = svg_scale_map(&s, limit);
        sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
                     "stroke-dasharray=\"5 3\"/>", px, bar_y - 10, px, bar_y + bar_h + 6, COLOUR_LIMIT);
        snprintf(lb, sizeof lb, "limit %s%s", svg_fmt_num(nb, sizeof nb, limit), unit);
        svg_text_px(b, px - 4, bar_y - 12, "end", "mark", lb);
    }
    snprintf(lb, sizeof lb, "total %s%s", svg_fmt_num(nb, sizeof nb, total), unit);
    svg_text_px(b, ml, bar_y - 12, NULL, "label", lb);
    svg_chart_end(b);
    return true;
}

/* the run named best, else the best-ranked successful one */
static const cJSON *best_run(const cJSON *runs, const char *best)
{
    const cJSON *r, *pick = NULL;
    cJSON_ArrayForEach(r, runs) if (*best && !strcmp(str(r, "name"), best)) return r;
    cJSON_ArrayForEach(r, runs) {
        if (!run_ok(r)) continue;
        double k = num(r, "rank");
        if (!pick || (isfinite(k) && (!isfinite(num(pick, "rank")) || k < num(pick, "rank")))) pick = r;
    }
    return pick;
}

/* ---- the page ------------------------------------------------------------- */

/* a whole text as JSON: trailing bytes other than white space are an error
 * (a half-overwritten file must not pass for its first object) */
static cJSON *parse_all(const char *text, size_t len)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!j || !end) return j;
    for (const char *p = end; p < text + len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\0') { cJSON_Delete(j); return NULL; }
    return j;
}

static cJSON *parse_optional(const char *text, size_t len, const char *what, char *problem, size_t plen)
{
    if (!text) return NULL;
    cJSON *j = parse_all(text, len);
    if (!cJSON_IsObject(j)) {
        snprintf(problem, plen, "The %s summary could not be read (not a JSON object); it is left out.", what);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

char *report_build_html(const char *summary, size_t summary_len, const char *infer, size_t infer_len,
                        const char *cost, size_t cost_len, report_info *info, ac_err *e)
{
    return report_build_html_opts(summary, summary_len, infer, infer_len, cost, cost_len, false, info, e);
}

/* a stage's summary written before this search's training summary is an earlier search's
 * (ISO 8601 UTC times compare as text); one without a time is from before stages said when */
static bool stale_stage(const cJSON *stage, const char *search_time)
{
    const char *t = str(stage, "generated");
    return *search_time && (!*t || strcmp(t, search_time) < 0);
}

/* the line under a section that says which stage wrote it and when */
static void provenance(char *buf, size_t len, const char *stage, const cJSON *x, bool stale)
{
    const char *t = str(x, "generated");
    if (stale) snprintf(buf, len, "From an earlier search: written by the %s stage at %s (shown because of --include-stale).",
                        stage, *t ? t : "an unknown time");
    else snprintf(buf, len, "Written by the %s stage of this search at %s.", stage, *t ? t : "an unknown time");
}

char *report_build_html_opts(const char *summary, size_t summary_len, const char *infer, size_t infer_len,
                             const char *cost, size_t cost_len, bool include_stale, report_info *info, ac_err *e)
{
    report_info tmp;
    if (!info) info = &tmp;
    memset(info, 0, sizeof *info);
    cJSON *s = summary ? parse_all(summary, summary_len) : NULL;
    if (!cJSON_IsObject(s)) {
        cJSON_Delete(s);
        ac_err_set(e, AC_E_INPUT, "summary.json is not a JSON object%s", summary ? "" : " (no text)");
        return NULL;
    }
    char infer_problem[512] = "", cost_problem[160] = "";
    cJSON *inf = parse_optional(infer, infer_len, "inference", infer_problem, sizeof infer_problem);
    if (inf) {
        /* a sweep of another model or GPU (an older search in the same folder) is not this report's */
        const char *im = str(inf, "model"), *ig = str(inf, "gpu");
        const char *tm = str(obj(s, "model"), "name"), *tg = str(obj(s, "cluster"), "gpu");
        if ((*im && *tm && strcmp(im, tm)) || (*ig && *tg && strcmp(ig, tg))) {
            snprintf(infer_problem, sizeof infer_problem,
                     "The inference summary in this folder is from another search (%.60s on %.30s), not this one "
                     "(%.60s on %.30s); it is left out. Run the inference search again to chart it.",
                     im, ig, tm, tg);
            cJSON_Delete(inf);
            inf = NULL;
        }
    }
    cJSON *cst = parse_optional(cost, cost_len, "cost", cost_problem, sizeof cost_problem);
    /* one search's report: a stage that did not run in this search is left out (or greyed) */
    const char *when = str(s, "generated");
    char left_out[600] = "";
    bool inf_stale = inf && stale_stage(inf, when), cst_stale = cst && stale_stage(cst, when);
    if (!include_stale && (inf_stale || cst_stale)) {
        snprintf(left_out, sizeof left_out, "Left out: the %s%s%s in this folder %s from an earlier search (written before "
                 "this search's training results, %s); `autoconfig report --include-stale` shows %s greyed.",
                 inf_stale ? "inference results" : "", inf_stale && cst_stale ? " and the " : "",
                 cst_stale ? "cost comparison" : "", inf_stale && cst_stale ? "are" : "is", when,
                 inf_stale && cst_stale ? "them" : "it");
        if (inf_stale) { cJSON_Delete(inf); inf = NULL; }
        if (cst_stale) { cJSON_Delete(cst); cst = NULL; }
    }
    info->inference = inf != NULL;
    info->cost = cst != NULL;

    cJSON *empty = cJSON_CreateArray();
    const cJSON *runs = arr(s, "runs") ? arr(s, "runs") : empty;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) if (cJSON_IsObject(r)) info->runs++;
    const char *best = str(s, "best");
    const cJSON *cl = obj(s, "cluster");

    strbuf b;
    sb_init(&b);
    report_page_head(&b, "autoconfig report: ", *str(obj(s, "model"), "name") ? str(obj(s, "model"), "name") : "search");
    write_header(&b, s);
    if (*cost_problem) {
        sb_add(&b, "<p class=\"note warn\">");
        svg_esc(&b, cost_problem);
        sb_add(&b, "</p>");
    }
    if (*left_out) {
        sb_add(&b, "<p class=\"note\">");
        svg_esc(&b, left_out);
        sb_add(&b, "</p>");
    }
    if (!info->runs) sb_add(&b, "<p class=\"note warn\">No runs are recorded in summary.json yet (an interrupted or empty search).</p>");
    char prov_train[200], prov_inf[200], prov_cost[200];
    provenance(prov_train, sizeof prov_train, "training", s, false);
    provenance(prov_inf, sizeof prov_inf, "inference", inf, inf_stale);
    provenance(prov_cost, sizeof prov_cost, "cost", cst, cst_stale);

    const cJSON *br = best_run(runs, best);
    double limit = num(cl, "gpu_memory_gb");
    if (br && isfinite(num(br, "mem_limit_gib"))) limit = num(br, "mem_limit_gib");
    bool drawn[10];
    int nc = 0;
    sb_add(&b, "<div class=\"grid2\">");
    cur_prov = prov_train;
    drawn[nc++] = chart_memory(&b, runs, br ? num(br, "mem_limit_gib") : NAN);
    drawn[nc++] = chart_heatmap(&b, runs);
    drawn[nc++] = chart_predicted(&b, runs);
    /* the cost and inference sections exist only when their stage wrote results */
    if (cst) {
        cur_prov = prov_cost;
        if (cst_stale) sb_add(&b, "<div class=\"stale\">");
        drawn[nc++] = chart_cost(&b, runs, cst, str(cl, "gpu"));
        if (cst_stale) sb_add(&b, "</div>");
    }
    if (inf || *infer_problem) {
        cur_prov = prov_inf;
        if (inf_stale) sb_add(&b, "<div class=\"stale\">");
        drawn[nc++] = chart_inference(&b, inf, *infer_problem ? infer_problem : NULL);
        /* in-flight engines' rows: goodput against the TTFT and ITL limits */
        for (int w = 0; w < 2 && inf; w++)
            if (chart_serving(&b, inf, w)) drawn[nc++] = true;
        if (inf_stale) sb_add(&b, "</div>");
    }
    cur_prov = prov_train;
    sb_add(&b, "</div>\n");
    {
        char title[600];
        snprintf(title, sizeof title, "Best configuration: %s", br ? str(br, "name") : "none");
        section_open(&b, title, "Where the memory per GPU and the time per step go, as the estimator models them.");
        drawn[nc++] = chart_stacked(&b, "chart-mem-breakdown", br, "memory_gib", MEM_PARTS,
                                    (int)(sizeof MEM_PARTS / sizeof MEM_PARTS[0]), limit, " GiB");
        drawn[nc++] = chart_stacked(&b, "chart-time-breakdown", br, "time_s", TIME_PARTS,
                                    (int)(sizeof TIME_PARTS / sizeof TIME_PARTS[0]), NAN, " s");
        sb_add(&b, "</section>\n");
    }
    write_table(&b, runs, best, prov_train);
    cur_prov = NULL;
    sb_add(&b, "<script>");
    sb_add(&b, PAGE_JS);
    sb_add(&b, "</script></body></html>\n");

    info->charts = nc;
    for (int i = 0; i < nc; i++) info->charts_with_data += drawn[i];
    cJSON_Delete(empty);
    cJSON_Delete(s);
    cJSON_Delete(inf);
    cJSON_Delete(cst);
    char *page = sb_take(&b);
    if (!page) ac_err_set(e, AC_E_NOMEM, "out of memory building the report");
    return page;
}

/* reads an optional file: NULL text and no error when it does not exist */
static int read_optional(const char *path, char **text, size_t *len, ac_err *e)
{
    *text = NULL;
    *len = 0;
    if (!fs_exists(path)) return 0;
    *text = fs_read_file(path, len, e);
    return *text ? 0 : -1;
}

int report_write_dirs(const char *logs_dir, const char *infer_dir, char *path_out, size_t path_len, report_info *info,
                      ac_err *e)
{
    return report_write_stale(logs_dir, infer_dir, false, path_out, path_len, info, e);
}

int report_write_stale(const char *logs_dir, const char *infer_dir, bool include_stale, char *path_out, size_t path_len,
                       report_info *info, ac_err *e)
{
    char dir[4096], spath[4096], ipath[4096], cpath[4096], out[4096];
    if (!logs_dir || !*logs_dir) return ac_err_set(e, AC_E_INPUT, "no logs directory given");
    if (!fs_is_dir(logs_dir)) return ac_err_set(e, AC_E_INPUT, "%s: no such directory", logs_dir);
    if (!infer_dir || !*infer_dir) infer_dir = logs_dir;
    if (fs_join(dir, sizeof dir, logs_dir, "final_result", e) || fs_join(spath, sizeof spath, dir, "summary.json", e) ||
        fs_join(out, sizeof out, dir, "report.html", e) ||
        fs_join(ipath, sizeof ipath, infer_dir, "inference/final_summary/summary.json", e) ||
        fs_join(cpath, sizeof cpath, logs_dir, "cost/summary.json", e))
        return -1;
    if (!fs_exists(spath)) {
        /* a search stopped before its summary still has its runs in the ledger */
        char lpath[sizeof dir + 32];
        if (fs_join(lpath, sizeof lpath, logs_dir, LEDGER_FILE, e)) return -1;
        if (fs_exists(lpath))
            return ac_err_set(e, AC_E_INPUT,
                              "%s: no such file: the search stopped before its summary; run the same `autoconfig run` "
                              "again to finish it (measured runs are reused, nothing is launched twice; `autoconfig "
                              "status` lists them meanwhile)", spath);
        return ac_err_set(e, AC_E_INPUT, "%s: no such file (has the training search run with logs=%s?)", spath, logs_dir);
    }
    size_t slen, ilen, clen;
    char *s = fs_read_file(spath, &slen, e);
    if (!s) return -1;
    char *inf = NULL, *cst = NULL;
    int rc = -1;
    if (read_optional(ipath, &inf, &ilen, e) == 0 && read_optional(cpath, &cst, &clen, e) == 0) {
        char *html = report_build_html_opts(s, slen, inf, ilen, cst, clen, include_stale, info, e);
        if (!html && e->code == AC_E_INPUT) ac_err_at(e, AC_E_INPUT, spath, 0, 0, NULL, "not a JSON object");
        if (html) {
            rc = fs_write_atomic(out, html, strlen(html), e);
            free(html);
        }
    }
    if (rc == 0 && path_out) snprintf(path_out, path_len, "%s", out);
    free(s);
    free(inf);
    free(cst);
    return rc;
}

int report_write_info(const char *logs_dir, char *path, size_t path_len, report_info *info, ac_err *e)
{
    return report_write_dirs(logs_dir, NULL, path, path_len, info, e);
}

int report_write(const char *logs_dir, ac_err *e) { return report_write_info(logs_dir, NULL, 0, NULL, e); }
