/* cmd_report.c — `autoconfig report LOGS_DIR`: (re)writes the HTML report of a
 * search from its result files, so a search can be looked at without running
 * anything again (one stopped before its training summary is finished by `run`). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "results/report.h"
#include "util/fsutil.h"

static const char REPORT_HELP[] =
    "usage: autoconfig report LOGS_DIR [--inference-dir DIR] [--include-stale] [--json]\n"
    "\n"
    "Writes LOGS_DIR/final_result/report.html from LOGS_DIR/final_result/summary.json\n"
    "(and, when present, LOGS_DIR/inference/final_summary/summary.json and\n"
    "LOGS_DIR/cost/summary.json): one self-contained page that opens offline with\n"
    "the sortable table of candidates, throughput vs memory, a TP x PP heatmap,\n"
    "predicted vs measured step times, cost vs time, the inference latency frontier\n"
    "and the memory and time breakdown of the best configuration.\n"
    "LOGS_DIR is search_config.train_settings.logs of the search; --inference-dir is\n"
    "search_config.inference_settings.run.results_dir when it was set elsewhere.\n"
    "The report is one search's: each section says which stage wrote it and when; inference or\n"
    "cost results written before the training results (an earlier search in the same folder) are\n"
    "left out, or shown greyed with --include-stale.\n"
    "example: autoconfig report results/gpt3/5b_80gb\n";

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *infer_dir = NULL;
    bool json = false, stale = false;
    ac_err e;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(REPORT_HELP, stdout); return 0; }
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--include-stale")) stale = true;
        else if (!strcmp(a, "--inference-dir") || !strncmp(a, "--inference-dir=", 16)) {
            infer_dir = a[15] == '=' ? a + 16 : i + 1 < argc ? argv[++i] : NULL;
            if (!infer_dir || !*infer_dir) {
                ac_err_set(&e, AC_E_INPUT, "--inference-dir needs a directory (see --help)");
                return cli_fail(&e);
            }
            if (!fs_is_dir(infer_dir)) {
                ac_err_set(&e, AC_E_INPUT, "--inference-dir %s: no such directory", infer_dir);
                return cli_fail(&e);
            }
        }
        else if (a[0] == '-' && a[1]) {
            ac_err_set(&e, AC_E_INPUT, "unknown option '%s' (see --help)", a);
            return cli_fail(&e);
        } else if (dir) {
            ac_err_set(&e, AC_E_INPUT, "one LOGS_DIR expected, got '%s' and '%s' (see --help)", dir, a);
            return cli_fail(&e);
        } else dir = a;
    }
    if (!dir) {
        ac_err_set(&e, AC_E_INPUT, "missing LOGS_DIR (usage: autoconfig report LOGS_DIR [--json])");
        return cli_fail(&e);
    }
    char path[4096];
    report_info info;
    if (report_write_stale(dir, infer_dir, stale, path, sizeof path, &info, &e)) return cli_fail(&e);
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_str(&w, "report", path);
        json_int(&w, "runs", info.runs);
        json_int(&w, "charts", info.charts);
        json_int(&w, "charts_with_data", info.charts_with_data);
        json_bool(&w, "inference", info.inference);
        json_bool(&w, "cost", info.cost);
        json_obj_close(&w);
        json_end(&w);
    } else {
        printf("Report: %s (%d runs, %d of %d charts with data%s%s)\n", path, info.runs, info.charts_with_data,
               info.charts, info.inference ? ", inference" : "", info.cost ? ", cost" : "");
    }
    return 0;
}
