/* cmd_emulate_serve.c — `autoconfig emulate-serve`: vLLM and trtllm-bench emulated for
 * machines without GPUs (exec/emulate_serve.h).  Tests put shims named `vllm` and
 * `trtllm-bench` on PATH that exec `autoconfig emulate-serve [--gpu NAME] vllm "$@"`, so a
 * job script runs exactly as it would on a GPU node.
 *
 * `vllm serve` checks what the engine checks at start-up, writes the configuration it
 * serves to ./.emulated_vllm_<port> (for the client, which runs in the same job folder)
 * and answers HTTP on 127.0.0.1:<port> (200 to any request: GET /health) until it is
 * killed.  `vllm bench serve` reads that file (none: the connection error the client
 * prints) and writes vLLM's result block and --save-result JSON.  trtllm-bench's
 * prepare-dataset writes the JSONL requests, its throughput the report and --report_json.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cost/cost.h"
#include "exec/emulate_serve.h"
#include "util/fsutil.h"
#include "util/proc.h"

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: autoconfig emulate-serve [--gpu NAME] vllm serve MODEL_DIR [vLLM flags]\n"
               "       autoconfig emulate-serve [--gpu NAME] vllm bench serve [vLLM flags]\n"
               "       autoconfig emulate-serve [--gpu NAME] trtllm-bench --model DIR [--model_path DIR] "
               "prepare-dataset|throughput ...\n"
               "\n"
               "An EMULATED serving engine for machines without GPUs: it takes the engine's real flags\n"
               "(unknown ones are refused), fails where the engine would (attention heads not divisible\n"
               "by TP, weights larger than the GPU, a KV cache smaller than one sequence) and writes the\n"
               "engine's outputs with the serving model's figures for that configuration.\n"
               "  --gpu NAME   the GPU emulated (catalog name; default a100_80gb)\n"
               "  AUTOCONFIG_EMULATE_SCALE  times x scale, throughputs / scale (default 1)\n");
    return status;
}

static int fail_engine(const char *why)
{
    fprintf(stderr, "%s (EMULATED by autoconfig emulate-serve)\n", why);
    return 1;
}

/* A benchmark client's run: the serving model's figures for the configuration, the engine's
 * text report on stdout and, when json_path is set, its JSON report there.  The engine's
 * exit status: 0, 1 where the engine fails, or cli_fail's on bad input. */
static int bench_report(const emu_serve_args *a, const gpu_spec *g, double scale,
                        void (*text)(const emu_serve_args *, const results_serve_metrics *, strbuf *),
                        void (*json)(const emu_serve_args *, const results_serve_metrics *, strbuf *), const char *json_path)
{
    char why[1024];
    results_serve_metrics m;
    ac_err e;
    int r = emu_serve_run(a, g, scale, &m, why, sizeof why, &e);
    if (r < 0) return cli_fail(&e);
    if (r > 0) return fail_engine(why);
    proc_sleep_ms(200);
    strbuf b;
    sb_init(&b);
    text(a, &m, &b);
    int rc = sb_str(&b) ? 0 : 1;
    if (!rc) fputs(b.s, stdout);
    sb_free(&b);
    if (!rc && json_path) {
        sb_init(&b);
        json(a, &m, &b);
        if (fs_write_sb(json_path, &b, &e)) rc = cli_fail(&e);
        sb_free(&b);
    }
    return rc;
}

/* the state file, removed when the emulated server is stopped (unlink is async-signal-safe) */
static char g_state[64];
static void on_term(int sig)
{
    (void)sig;
    if (g_state[0]) unlink(g_state);
    _exit(0);
}

/* answers 200 to every connection on 127.0.0.1:port until killed */
static int http_serve(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) { perror("socket"); return 1; }
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(s, 16) < 0) {
        fprintf(stderr, "OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', %d): "
                        "address already in use (EMULATED)\n", port);
        close(s);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c < 0) continue;
        char buf[4096];
        ssize_t n = read(c, buf, sizeof buf);
        (void)n;
        ssize_t w = write(c, reply, sizeof reply - 1);
        (void)w;
        close(c);
    }
}

/* what vllm serve tells its client: "tp pp max_num_seqs max_model_len fp8_weights fp8_kv dtype model" */
static int state_path(char *buf, size_t len, int port) { return snprintf(buf, len, ".emulated_vllm_%d", port) < (int)len ? 0 : -1; }

int cmd_emulate_serve(int argc, char **argv)
{
    const char *gpu_name = "a100_80gb";
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout, 0);
        if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu_name = argv[++i];
        else { fprintf(stderr, "autoconfig: error: emulate-serve: unknown option '%s'\n", argv[i]); return 2; }
    }
    if (i >= argc) return usage(stderr, 2);
    ac_err e;
    if (gpu_catalog_load(&e) < 0) return cli_fail(&e);
    const gpu_spec *g = gpu_find(gpu_name);
    if (!g) { fprintf(stderr, "autoconfig: error: emulate-serve: unknown GPU '%s'\n", gpu_name); return 2; }
    double scale;
    if (emulate_knob(NULL, "AUTOCONFIG_EMULATE_SCALE", 1.0, 0.01, 100.0, &scale) < 0) {
        fprintf(stderr, "autoconfig: error: AUTOCONFIG_EMULATE_SCALE must be in [0.01, 100]\n");
        return 2;
    }
    emu_serve_args a;
    const char *engine = argv[i];
    if (emu_serve_parse(argc - i, argv + i, &a, &e) != 0) {
        fprintf(stderr, "%s: %s (EMULATED by autoconfig emulate-serve)\n", engine, e.msg);
        return 2;
    }
    char why[1024];
    strbuf b;
    sb_init(&b);
    int rc = 0;
    switch (a.cmd) {
    case EMU_VLLM_SERVE: {
        int r = emu_serve_run(&a, g, scale, NULL, why, sizeof why, &e);
        if (r < 0) { rc = cli_fail(&e); break; }
        if (r > 0) { rc = fail_engine(why); break; }
        char path[64];
        state_path(path, sizeof path, a.port);
        sb_printf(&b, "%d %d %d %d %d %d %s %s\n", a.tp, a.pp, a.max_num_seqs, a.max_model_len, a.fp8_weights, a.fp8_kv,
                  a.dtype[0] ? a.dtype : "bfloat16", a.model);
        if (fs_write_sb(path, &b, &e)) { rc = cli_fail(&e); break; }
        snprintf(g_state, sizeof g_state, "%s", path);
        signal(SIGTERM, on_term);
        signal(SIGINT, on_term);
        printf("INFO: EMULATED vLLM API server (autoconfig emulate-serve, no GPU) on %s: TP %d, PP %d, max_num_seqs %d\n"
               "INFO:     Uvicorn running on http://127.0.0.1:%d (Press CTRL+C to quit)\n",
               g->name, a.tp, a.pp, a.max_num_seqs, a.port);
        fflush(stdout);
        sb_free(&b);
        return http_serve(a.port);
    }
    case EMU_VLLM_BENCH: {
        char path[64];
        state_path(path, sizeof path, a.port);
        size_t len = 0;
        char *st = fs_exists(path) ? fs_read_file(path, &len, &e) : NULL;
        if (!st) {
            fprintf(stderr, "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host 127.0.0.1:%d "
                            "(EMULATED: no emulated vllm serve in this folder)\n", a.port);
            rc = 1;
            break;
        }
        int fw = 0, fk = 0;
        char dtype[24] = "", model[1024] = "";
        int n = sscanf(st, "%d %d %d %d %d %d %23s %1023[^\n]", &a.tp, &a.pp, &a.max_num_seqs, &a.max_model_len, &fw, &fk,
                       dtype, model);
        free(st);
        if (n != 8) { fprintf(stderr, "emulate-serve: %s is unreadable\n", path); rc = 1; break; }
        a.fp8_weights = fw;
        a.fp8_kv = fk;
        a.dummy = true;
        snprintf(a.dtype, sizeof a.dtype, "%s", dtype);
        snprintf(a.model, sizeof a.model, "%s", model);
        char out[1400];
        snprintf(out, sizeof out, "%s/%s", a.result_dir[0] ? a.result_dir : ".",
                 a.result_file[0] ? a.result_file : "vllm-result.json");
        rc = bench_report(&a, g, scale, emu_serve_vllm_text, emu_serve_vllm_json, a.save_result ? out : NULL);
        break;
    }
    case EMU_TRTLLM_DATASET: {
        char path[1100];
        snprintf(path, sizeof path, "%s/config.json", a.model);
        cost_model cm;
        if (cost_hf_config_load(path, &cm, &e)) { rc = cli_fail(&e); break; }
        emu_serve_trtllm_dataset(&a, cm.shape.vocab, &b);
        if (fs_write_sb(a.dataset, &b, &e)) rc = cli_fail(&e);
        break;
    }
    case EMU_TRTLLM_THROUGHPUT: {
        size_t len = 0;
        char *ds = fs_read_file(a.dataset, &len, &e);
        if (!ds) { rc = cli_fail(&e); break; }
        int nreq, il, ol;
        int bad = emu_serve_read_dataset(ds, len, &nreq, &il, &ol);
        free(ds);
        if (bad) { fprintf(stderr, "trtllm-bench: %s holds no requests (EMULATED)\n", a.dataset); rc = 1; break; }
        a.input_len = il;
        a.output_len = ol;
        if (!a.num_prompts || a.num_prompts > nreq) a.num_prompts = nreq;
        rc = bench_report(&a, g, scale, emu_serve_trtllm_text, emu_serve_trtllm_json, a.report[0] ? a.report : NULL);
        break;
    }
    }
    sb_free(&b);
    return rc;
}
