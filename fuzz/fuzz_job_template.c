/* fuzz_job_template.c — job script rendering (exec_job_script) with an arbitrary
 * job template, run name, partition and container mount: the input is split at
 * "\n@@\n" into those four parts.  Every rendered script ends by recording the
 * exit code; no value may leave its quotes (a NUL-free script, no crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

static const char SEP[] = "\n@@\n";

static char *part(const char **p, const char *end)
{
    if (!*p) return strdup("");
    const char *start = *p, *hit = NULL;
    for (const char *q = start; q + 4 <= end; q++)
        if (!memcmp(q, SEP, 4)) { hit = q; break; }
    size_t n = (size_t)((hit ? hit : end) - start);
    *p = hit ? hit + 4 : NULL;
    return strndup(start, n); /* stops at a NUL: setenv and the config hold C strings */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    char *tmpl = part(&p, end), *name = part(&p, end), *partition = part(&p, end), *mount = part(&p, end);
    if (!tmpl || !name || !partition || !mount) goto out;
    static ac_config c; /* large: not on the stack */
    memset(&c, 0, sizeof c);
    snprintf(c.cluster_type, sizeof c.cluster_type, "%s", size % 2 ? "bcm" : "local");
    snprintf(c.family, sizeof c.family, "gpt3");
    c.train.max_minutes_per_run = 20;
    c.train.max_steps_per_run = 50;
    c.train.gpu_memory_gb = 80;
    c.cluster.gpus_per_node = 8;
    c.cluster.exclusive = true;
    snprintf(c.cluster.job_name_prefix, sizeof c.cluster.job_name_prefix, "nemo_megatron_autoconfig:");
    snprintf(c.cluster.partition, sizeof c.cluster.partition, "%s", partition);
    snprintf(c.cluster.container_image, sizeof c.cluster.container_image, "nvcr.io/nvidia/nemo:24.05");
    snprintf(c.container_mounts[0], sizeof c.container_mounts[0], "%s", mount);
    c.n_container_mounts = 1;
    if (tmpl[0]) setenv("AUTOCONFIG_JOB_TEMPLATE", tmpl, 1);
    else unsetenv("AUTOCONFIG_JOB_TEMPLATE");
    exec_job j = { 0 };
    snprintf(j.name, sizeof j.name, "%s", name[0] ? name : "gpt3_5b_tp_1");
    /* a real candidate: the script hands NeMo the config resolved from it */
    snprintf(j.config_path, sizeof j.config_path, "fuzz/corpus/fuzz_candidate/gpt3_5b_tp2_pp2.yaml");
    j.nodes = 2;
    j.gpus_per_node = 8;
    char *script = NULL, **argv = NULL;
    ac_err e;
    if (exec_job_script(&c, "/logs dir/x", &j, &script, &argv, NULL, &e) == 0) {
        if (!script || !strstr(script, "mv -f exit_code.tmp exit_code")) abort();
        free(script);
        exec_argv_free(argv);
    }
out:
    free(tmpl);
    free(name);
    free(partition);
    free(mount);
    return 0;
}
