/* test_report.c — the HTML report: hostile names escaped, empty and partial
 * searches still give a page whose charts say "no data", optional files
 * missing or broken, the SVG helpers' numbers and scales. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "results/report.h"
#include "results/svg.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static char *build(const char *summary, const char *infer, const char *cost, report_info *info, ac_err *e)
{
    return report_build_html(summary, summary ? strlen(summary) : 0, infer, infer ? strlen(infer) : 0, cost,
                             cost ? strlen(cost) : 0, info, e);
}

static const char HOSTILE[] =
    "{\"model\":{\"name\":\"<img src=x onerror=alert(2)>\"},\"cluster\":{\"gpu\":\"a100_80gb\",\"gpu_memory_gb\":80},"
    "\"best\":\"<script>alert(1)</script>\",\"runs\":[{\"name\":\"<script>alert(1)</script>\",\"rank\":1,"
    "\"status\":\"ok\",\"source\":\"predicted\",\"reason\":\"a \\\"quoted\\\" & <b>bold</b> reason\",\"tp\":1,\"pp\":1,"
    "\"tokens_per_s\":1000,\"peak_mem_gib\":40,\"mem_limit_gib\":78.4,\"days_to_train\":3,\"cost_usd\":100,"
    "\"memory_gib\":{\"weights\":10,\"activations\":30},\"time_s\":{\"compute_fwd\":1,\"compute_bwd\":2}}]}";

static void test_hostile_run_name_is_escaped(void)
{
    ac_err e;
    report_info info;
    char *html = build(HOSTILE, NULL, NULL, &info, &e);
    CHECK(html != NULL);
    if (!html) return;
    /* the only <script> element is the report's own sorting code */
    CHECK_INT(count_str(html, "<script"), 1);
    CHECK(!strstr(html, "<script>alert"));
    CHECK(!strstr(html, "<img"));
    CHECK(!strstr(html, "<b>bold"));
    CHECK_CONTAINS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_CONTAINS(html, "&lt;img src=x onerror=alert(2)&gt;");
    CHECK_CONTAINS(html, "a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; reason");
    CHECK_INT(info.runs, 1);
    /* a training-only search: no cost or inference section; memory, heatmap, both breakdowns drawn */
    CHECK_INT(info.charts, 5);
    CHECK_INT(info.charts_with_data, 4);
    CHECK(!strstr(html, "chart-inference") && !strstr(html, "chart-cost"));
    CHECK_CONTAINS(html, "<tr class=\"best\">");
    free(html);
}

static void test_empty_runs_say_no_data(void)
{
    ac_err e;
    report_info info;
    const char *inputs[] = { "{\"runs\":[]}", "{}", "{\"runs\":{\"not\":\"an array\"},\"model\":3,\"best\":null}",
                             "{\"runs\":[1,\"x\",null,[],{}]}" };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char *html = build(inputs[i], NULL, NULL, &info, &e);
        CHECK(html != NULL);
        if (!html) continue;
        CHECK_INT(info.charts, 5);
        CHECK_INT(info.charts_with_data, 0);
        CHECK_INT(count_str(html, "class=\"chart nodata\""), 5);
        CHECK(!strstr(html, "chart-inference"));
        CHECK_CONTAINS(html, "</html>");
        free(html);
    }
}

static void test_not_json_is_input_error(void)
{
    ac_err e;
    const char *bad[] = { "", "[]", "{\"runs\":", "null", "\"text\"", "{\"a\":1}}" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e.code = AC_OK;
        char *html = build(bad[i], NULL, NULL, NULL, &e);
        CHECK(html == NULL);
        CHECK_INT(e.code, AC_E_INPUT);
        free(html);
    }
}

static void test_optional_files_broken_or_odd(void)
{
    ac_err e;
    report_info info;
    char *html = build(HOSTILE, "not json", "{\"options\":\"nope\"}", &info, &e);
    CHECK(html != NULL);
    if (!html) return;
    CHECK(!info.inference);
    CHECK(info.cost);
    CHECK_CONTAINS(html, "The inference summary could not be read");
    /* no usable cost options: the chart falls back to the runs */
    CHECK_CONTAINS(html, "Successful candidates on this cluster&#39;s GPU type");
    free(html);
    const char *infer = "{\"pairs\":[{\"input_len\":60,\"output_len\":20,\"max_latency_ms\":500,\"rows\":["
                        "{\"tp\":1,\"pp\":1,\"bs\":1,\"latency_ms\":100,\"throughput_per_gpu\":10,\"status\":\"ok\"},"
                        "{\"tp\":2,\"pp\":1,\"bs\":8,\"latency_ms\":300,\"throughput_per_gpu\":40,\"status\":\"ok\"},"
                        "{\"tp\":2,\"pp\":1,\"bs\":4,\"latency_ms\":350,\"throughput_per_gpu\":20,\"status\":\"ok\"},"
                        "{\"tp\":4,\"pp\":1,\"bs\":8,\"latency_ms\":null,\"throughput_per_gpu\":null,\"status\":\"failed\"}]},"
                        "{\"rows\":[]}, 7]}";
    html = build(HOSTILE, infer, NULL, &info, &e);
    CHECK(html != NULL);
    if (!html) return;
    CHECK(info.inference);
    CHECK_INT(info.charts_with_data, 5); /* no cost stage: no cost section */
    CHECK_CONTAINS(html, "limit 500 ms");
    /* the frontier keeps (100, 10) and (300, 40), not the dominated (350, 20) */
    CHECK_INT(count_str(html, "<polyline"), 1);
    free(html);
}

static void test_write_to_logs_dir(void)
{
    char dir[] = "/tmp/test_report_XXXXXX", sub[256], path[512];
    CHECK(mkdtemp(dir) != NULL);
    ac_err e;
    CHECK(report_write(dir, &e) == -1); /* no summary.json */
    CHECK_INT(e.code, AC_E_INPUT);
    CHECK_CONTAINS(e.msg, "final_result/summary.json: no such file");
    CHECK(report_write("/nonexistent/logs", &e) == -1);
    CHECK_INT(e.code, AC_E_INPUT);
    snprintf(sub, sizeof sub, "%s/final_result", dir);
    CHECK(fs_mkdir_p(sub, &e) == 0);
    snprintf(path, sizeof path, "%s/summary.json", sub);
    CHECK(fs_write_atomic(path, "[1,2", 4, &e) == 0);
    CHECK(report_write(dir, &e) == -1);
    CHECK_INT(e.code, AC_E_INPUT);
    CHECK_CONTAINS(e.file, "summary.json");
    CHECK(fs_write_atomic(path, HOSTILE, strlen(HOSTILE), &e) == 0);
    report_info info;
    char out[512];
    /* the inference file is missing: still a report, saying so */
    CHECK(report_write_info(dir, out, sizeof out, &info, &e) == 0);
    CHECK(!info.inference);
    CHECK(!info.cost);
    snprintf(path, sizeof path, "%s/report.html", sub);
    CHECK_STR(out, path);
    size_t len;
    char *html = fs_read_file(path, &len, &e);
    CHECK(html != NULL);
    CHECK(!strstr(html, "chart-inference")); /* the stage did not run: no section */
    free(html);
    unlink(path);
    snprintf(path, sizeof path, "%s/summary.json", sub);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

/* what the page says must match what ran: a sim search launches nothing, and the
 * latency line is only promised when a limit was set */
static void test_captions_follow_the_search(void)
{
    static const char SIM[] =
        "{\"cluster\":{\"type\":\"sim\"},\"search\":{\"mode\":\"heuristic\",\"candidates\":20,\"valid\":20,"
        "\"predicted_fit\":19,\"predicted_oom\":1,\"ranked\":19,\"launched\":0,\"measured\":0,\"failed\":0},\"runs\":[]}";
    static const char BCM[] =
        "{\"cluster\":{\"type\":\"bcm\"},\"search\":{\"mode\":\"heuristic\",\"candidates\":20,\"valid\":20,"
        "\"predicted_fit\":19,\"predicted_oom\":1,\"ranked\":19,\"launched\":19,\"measured\":17,\"failed\":2},\"runs\":[]}";
    static const char INFER_NO_LIMIT[] =
        "{\"pairs\":[{\"input_len\":60,\"output_len\":20,\"max_latency_ms\":null,\"rows\":[{\"tp\":1,\"pp\":1,"
        "\"bs\":8,\"latency_ms\":100,\"throughput_per_gpu\":50,\"status\":\"ok\"}]}]}";
    static const char INFER_LIMIT[] =
        "{\"pairs\":[{\"input_len\":60,\"output_len\":20,\"max_latency_ms\":500,\"rows\":[{\"tp\":1,\"pp\":1,"
        "\"bs\":8,\"latency_ms\":100,\"throughput_per_gpu\":50,\"status\":\"ok\"}]}]}";
    ac_err e;
    char *html = build(SIM, INFER_NO_LIMIT, NULL, NULL, &e);
    CHECK(html != NULL);
    if (html) {
        CHECK_CONTAINS(html, "19 predicted to fit, 1 predicted out of memory; 0 launched (cluster_type sim: the top 19 are ranked by prediction)");
        CHECK(!strstr(html, "19 launched"));
        CHECK_CONTAINS(html, "No latency limit was set");
        CHECK(!strstr(html, "the dashed line is the latency limit"));
        CHECK(!strstr(html, "limit 500 ms"));
    }
    free(html);
    html = build(BCM, INFER_LIMIT, NULL, NULL, &e);
    CHECK(html != NULL);
    if (html) {
        CHECK_CONTAINS(html, "19 launched, 17 measured, 2 failed");
        CHECK_CONTAINS(html, "the dashed line is the latency limit");
        CHECK_CONTAINS(html, "limit 500 ms");
    }
    free(html);
}

/* one search's report: a stage's results written before the training results are an earlier
 * search's and are left out (named in a note), or greyed with include_stale */
static void test_stale_sections(void)
{
    static const char SUM[] = "{\"generated\":\"2026-11-24T12:00:00Z\",\"cluster\":{\"type\":\"sim\"},\"runs\":[]}";
    static const char OLD_INF[] = "{\"generated\":\"2026-11-24T11:53:00Z\",\"pairs\":[{\"input_len\":60,\"output_len\":20,"
                                  "\"max_latency_ms\":null,\"rows\":[{\"tp\":1,\"pp\":1,\"bs\":8,\"latency_ms\":100,"
                                  "\"throughput_per_gpu\":50,\"status\":\"ok\"}]}]}";
    static const char NEW_COST[] = "{\"generated\":\"2026-11-24T12:00:01Z\",\"options\":[{\"gpu\":\"h100\",\"hours\":5,"
                                   "\"usd_per_mtok\":1,\"feasible\":true}]}";
    ac_err e;
    report_info info;
    char *html = report_build_html_opts(SUM, strlen(SUM), OLD_INF, strlen(OLD_INF), NEW_COST, strlen(NEW_COST), false,
                                        &info, &e);
    CHECK(html != NULL);
    if (html) {
        CHECK(!info.inference && info.cost);
        CHECK(!strstr(html, "id=\"chart-inference\""));
        CHECK_CONTAINS(html, "Left out: the inference results in this folder is from an earlier search");
        CHECK_CONTAINS(html, "Written by the cost stage of this search at 2026-11-24T12:00:01Z.");
        CHECK_CONTAINS(html, "Written by the training stage of this search at 2026-11-24T12:00:00Z.");
    }
    free(html);
    html = report_build_html_opts(SUM, strlen(SUM), OLD_INF, strlen(OLD_INF), NULL, 0, true, &info, &e);
    CHECK(html != NULL);
    if (html) {
        CHECK(info.inference && !info.cost);
        CHECK_CONTAINS(html, "<div class=\"stale\"><section><h2>Inference");
        CHECK_CONTAINS(html, "From an earlier search: written by the inference stage at 2026-11-24T11:53:00Z");
        CHECK(!strstr(html, "chart-cost"));
    }
    free(html);
}

static void test_svg_numbers_and_scales(void)
{
    char b[40];
    CHECK_STR(svg_fmt_num(b, sizeof b, 918805.7), "919k");
    CHECK_STR(svg_fmt_num(b, sizeof b, 999999), "1M");
    CHECK_STR(svg_fmt_num(b, sizeof b, 20000), "20k");
    CHECK_STR(svg_fmt_num(b, sizeof b, 1234), "1234");
    CHECK_STR(svg_fmt_num(b, sizeof b, 12.34), "12.3");
    CHECK_STR(svg_fmt_num(b, sizeof b, 0.5), "0.5");
    CHECK_STR(svg_fmt_num(b, sizeof b, 2.5e9), "2.5G");
    CHECK_STR(svg_fmt_num(b, sizeof b, NAN), "\xe2\x80\x94");
    svg_scale s;
    svg_scale_nice(&s, 0, 73.0, 0, 100);
    CHECK_NEAR(s.d1, 80, 1e-12);
    double t[16];
    CHECK_INT(svg_ticks(&s, t, 16), 5); /* 0 20 40 60 80 */
    CHECK_NEAR(svg_scale_map(&s, 40), 50, 1e-12);
    svg_scale_nice(&s, 5, 5, 0, 100); /* an empty domain is widened, not divided by */
    CHECK(s.d1 > s.d0);
    svg_scale_nice(&s, -1e308, 1e308, 0, 100);
    CHECK(isfinite(svg_scale_map(&s, 1e308)));
    strbuf sb;
    sb_init(&sb);
    svg_esc(&sb, "a<b>&\"c'\x01");
    CHECK_STR(sb_str(&sb), "a&lt;b&gt;&amp;&quot;c&#39;");
    sb_free(&sb);
}

/* pages are built in a strbuf and handed over whole; an allocation failure hands over nothing */
static void test_strbuf_take(void)
{
    strbuf b;
    sb_init(&b);
    sb_add(&b, "<p>");
    char *s = sb_take(&b);
    CHECK(s && !strcmp(s, "<p>"));
    CHECK(b.s == NULL && b.len == 0 && !b.oom);
    free(s);
    CHECK(sb_take(&b) == NULL); /* nothing added */
    sb_add(&b, "x");
    b.oom = true; /* as after a failed realloc: the partial buffer is freed, not returned */
    CHECK(sb_take(&b) == NULL && b.s == NULL);
}

int main(void)
{
    RUN(test_hostile_run_name_is_escaped);
    RUN(test_strbuf_take);
    RUN(test_empty_runs_say_no_data);
    RUN(test_not_json_is_input_error);
    RUN(test_optional_files_broken_or_odd);
    RUN(test_write_to_logs_dir);
    RUN(test_captions_follow_the_search);
    RUN(test_stale_sections);
    RUN(test_svg_numbers_and_scales);
    CHECK_DONE();
}
