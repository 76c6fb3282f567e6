/* gpu.h — the GPU and network catalog (data/gpus.csv, compiled in).
 *
 * Each row: peak dense TFLOP/s per precision, memory size and bandwidth, NVLink
 * and scale-out bandwidth per GPU and direction, GPUs per node, default price,
 * and the GEMM efficiency the estimator assumes.  Names and aliases are matched
 * case-insensitively ("h100", "H100_SXM"); gpu_match() maps the free-text GPU
 * column of published benchmarks ("H100 SXM 80GB (DGX-H100)") to a row.
 */
#ifndef AC_ESTIMATOR_GPU_H
#define AC_ESTIMATOR_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include "util/err.h"

typedef struct {
    char name[32];
    char aliases[96];   /* '|'-separated */
    char match[128];    /* '|'-separated substrings of benchmark gpu_type text */
    double bf16_tflops, fp8_tflops, fp4_tflops; /* dense peaks; 0 = unsupported */
    double memory_gb;   /* GiB (2^30 bytes), as nvidia-smi reports it: an "80 GB" part has 80 GiB */
    double hbm_gbps;
    double nvlink_gbps; /* per GPU per direction; the PCIe rate when nvlink_domain = 1 */
    int nvlink_domain;  /* GPUs joined by NVLink (8 DGX, 72 NVL72, 1 PCIe) */
    double scaleout_gbps; /* per GPU per direction */
    int gpus_per_node;
    double price_per_hour; /* USD per GPU-hour, default */
    double gemm_eff, fp8_gemm_eff;
    double attn_speedup; /* attention forward's rate relative to attn_eff of the bf16 peak (exponential units) */
    double host_gbps;    /* GPU <-> host memory per direction (PCIe or NVLink-C2C): CPU offload; each
                          * GPU's share when all host_link_gpus of one uplink copy at once */
    int host_link_gpus;  /* GPUs sharing one host uplink (2 on HGX/DGX boards and Grace superchips) */
    int sm_count;          /* streaming multiprocessors: GEMM tiles per wave (layer_gemm_eff) */
    int sm_arch;           /* compute capability × 10 (80 A100, 90 H100, 100 Blackwell) */
    int fp8_weight_copies; /* 1-byte copies an FP8 weight needs: 2 (with its transpose) on Hopper/Ada, 1 on Blackwell */
    /* derived at load: the useful share of the 8192³ reference GEMM that gemm_eff and
     * fp8_gemm_eff describe (layer_gemm_shape_k with 16-bit and 1-byte operands), so an
     * evaluation need not recompute it */
    double gemm_ref16, gemm_ref8;
    /* derived at load: the SM clock large GEMMs run at over the clock the datasheet peak is
     * quoted at (bf16_tflops / (sm_count x bf16_flops_per_sm_clock)); 1 where the catalog
     * gives no gemm_clock_mhz */
    double clock_scale;
    /* bf16 tensor-core FLOPs per exponential the special-function units retire, per SM and clock
     * (bf16_flops_per_sm_clock / sfu_ops_per_sm_clock: Hopper 256, Blackwell 512) */
    double mma_per_exp;
    /* the fraction of the datasheet bf16 peak this GPU's fused attention forward measures in
     * bursts at the reference range (8192 causal tokens, 128-wide heads); 0 where only the
     * reference GPUs' figure is measured (data/gpus.csv attn_burst_8k) */
    double attn_burst_8k;
    /* key blocks' worth of time its fused attention kernel spends per query block, where its own
     * curve over key ranges is measured; 0: calibration.csv attn_block_overhead */
    double attn_block_overhead;
    char source[256];
} gpu_spec;

/* Loads the compiled-in catalog once (later calls are free).  -1 only when the
 * data file is malformed, which a test catches before a release. */
int gpu_catalog_load(ac_err *e);
size_t gpu_count(void);
const gpu_spec *gpu_at(size_t i);
/* by name or alias, case-insensitive, '-' and '_' equal; NULL when unknown */
const gpu_spec *gpu_find(const char *name);
/* the row text names (gpu_find), else the one whose match pattern is the longest substring of
 * text; NULL when none */
const gpu_spec *gpu_match(const char *text);
/* the memory a free-text GPU name states ("A100-SXM-64GB", "H100 94 GB"), in GB as vendors print
 * it (the binary gigabytes nvidia-smi shows, give or take a percent); 0 when it states none */
double gpu_stated_memory_gb(const char *text);
/* the stated memory where it is another size than part g's (more than the 5 % "80 GB" parts
 * round by: 79.6 GiB), else 0: what a row's usable memory is instead of g's */
double gpu_other_memory_gb(const gpu_spec *g, const char *text);
/* the catalog's A100 of that memory size (the original's gpu_memory_gb 40/80) */
const gpu_spec *gpu_default_for_memory(int gpu_memory_gb);
/* "a100_40gb, a100_80gb, ..." for error messages and --help */
void gpu_names(char *buf, size_t len);
/* the same list of the GPUs keep() accepts (keep NULL: all of them) */
void gpu_names_where(char *buf, size_t len, bool (*keep)(const gpu_spec *g, const void *ctx), const void *ctx);
/* the closest catalog name to a mistyped one (for "did you mean"), or NULL */
const char *gpu_suggest(const char *name);

#endif
