/* nemo_contract.h — what NeMo's start-up refuses, for the emulated job.
 *
 * `autoconfig emulate-job` stands in for megatron_*_pretraining.py on machines
 * without GPUs.  So that the end-to-end tests fail where a real cluster would,
 * it first plays NeMo v2.0.0's start-up on the config it is handed:
 *   - OmegaConf resolves the file with NeMo's resolvers only (`multiply`):
 *     any other resolver is "Unsupported interpolation type", a key the file
 *     does not hold is "Interpolation key ... not found";
 *   - every model key is one NeMo knows: in its megatron_<family>_config.yaml
 *     (read from nemo_conf_dir when given) or in data/nemo_passthrough_keys.csv;
 *   - a Llama 3 config loads a Hugging Face tokenizer: its tokenizer.model is a
 *     tiktoken BPE file that SentencePiece cannot parse;
 *   - TP > 1 or CP > 1 runs with CUDA_DEVICE_MAX_CONNECTIONS=1 (Megatron-Core
 *     only warns, and then its TP/SP communication cannot overlap compute; the
 *     emulation fails the run so the step time is never measured biased).
 */
#ifndef AC_EXEC_NEMO_CONTRACT_H
#define AC_EXEC_NEMO_CONTRACT_H

#include <stddef.h>

#include "config/node.h"
#include "util/err.h"

/* The family's pretraining script config in NeMo: "gpt", "t5" or "bert" (T5 and
 * mT5 configs carry model.encoder/decoder; BERT configs name megatron_bert). */
const char *nemo_model_kind(const node *cfg);

/* 0 when NeMo would start on cfg with the environment variable
 * CUDA_DEVICE_MAX_CONNECTIONS = max_connections (NULL: unset); 1 when it
 * would not, with NeMo's error in why; -1 on an internal error (e).
 * nemo_conf_dir: the folder holding NeMo's megatron_*_config.yaml, NULL or ""
 * to skip the unknown-key check. */
int nemo_startup_check(const node *cfg, const char *nemo_conf_dir, const char *max_connections, char *why, size_t len,
                       ac_err *e);

#endif
