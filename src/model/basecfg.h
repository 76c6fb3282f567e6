/* basecfg.h — the base NeMo training config for the chosen model (reference §3).
 *
 * Starts from the family template (base_configs/<family>.yaml) or the user's
 * custom_config and writes what the original writes: run name and time limit,
 * trainer nodes/steps/time, the architecture for the size, learning rate and
 * schedule, default GBS/TP/PP, W&B logger keys.  The result is a node tree
 * (written to <logs>/base_cfg_<size>b.yaml) and the model_shape the later
 * stages use.
 */
#ifndef AC_MODEL_BASECFG_H
#define AC_MODEL_BASECFG_H

#include "config/cfg.h"
#include "config/node.h"
#include "model/family.h"
#include "model/shape.h"
#include "util/err.h"

typedef struct {
    const model_family *family;
    double size_b;          /* requested (or recommended) size */
    char size_text[32];     /* "5", "0.126" */
    char run_name[96];      /* gpt3_5b, or the full model name (llama3_70b) */
    char name_prefix[64];   /* the built-in architecture's name (llama3_70b) when the config names one, else "" */
    model_shape shape;
    double lr;
    int gbs, tp, pp;
    double param_b;         /* parameters of the generated architecture */
    bool from_custom;       /* custom_config was used (shape read from it) */
    bool arch_given;        /* the shape came from a config.json or a published name, not a preset */
    int max_context;        /* with arch_given: the positions its release supports (the file's
                             * max_position_embeddings, the name's data/models.csv context); 0 = unpublished */
    const model_preset_arch *preset; /* the built-in architecture (model_name), NULL when sized */
    node *cfg;              /* the NeMo config (owned) */
    char path[CFG_PATH_MAX + 64]; /* where it was written ("" until written) */
} model_base_config;

int model_base_config_build(const ac_config *c, double size_b, model_base_config *out, ac_err *e);
/* the same with the architecture given (a Hugging Face config.json's shape): arch's layers,
 * widths, heads, vocabulary and experts over the family template; name names the runs */
int model_base_config_build_arch(const ac_config *c, double size_b, const model_shape *arch, const char *name,
                                 model_base_config *out, ac_err *e);
/* why the NeMo Llama/Mixtral training config cannot describe an architecture trained at
 * seq_length (a feature its template has no key for), with that feature's config.json key in
 * *key; NULL when it can */
const char *model_base_config_unwritable(const model_shape *s, int seq_length, const char **key);
/* writes <logs>/base_cfg_<size>b.yaml atomically (creating logs) */
int model_base_config_write(model_base_config *b, const char *logs_dir, ac_err *e);
void model_base_config_free(model_base_config *b);

/* reads the architecture from a NeMo training config (custom configs, round trips) */
int model_shape_from_nemo(const node *nemo, const model_family *f, int vocab, model_shape *s, ac_err *e);

/* the original's time formats (§3.1): run.time_limit "D-HH:00:00" and trainer.max_time "D:HH:30:00" */
void model_time_limit_text(double days, char *buf, size_t len);
void model_max_time_text(double days, char *buf, size_t len);

#endif
