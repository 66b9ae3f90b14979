/* train_settings.h — a training run's settings by name: one parser for train's options and for
 * the library's name = value pairs (include/ldagpu.h), so every setting reaches both.
 *
 * A name is a row of the settings table (model/settings.h: what a model records: K, α, β,
 * seed, model, how the corpus is read, ...) or one of the run's own settings that no model
 * records (lda_train_run_setting_name: iterations, device, split, gpus, threads, eval-every, top).
 * What only the command line has (-o, --resume, --force, --cache, --checkpoint-every, -q,
 * Mallet's output files) stays with cmd_train.c. */
#ifndef LDA_TRAIN_SETTINGS_H
#define LDA_TRAIN_SETTINGS_H

#include <stddef.h>

#include "core/error.h"
#include "train/trainer.h"

/* What was given, for the checks that join two settings. */
typedef struct {
    int model_given, update_given, gpus_given;
    lda_model_kind model;   /* --model as given, and where (a flag, a config line, a name) */
    lda_update update;      /* --update as given, and where */
    char model_where[512], update_where[512];
} lda_train_given;

/* The name of the run's own setting i (NULL past the last). */
const char *lda_train_run_setting_name(size_t i);

/* Train's defaults: lda_settings_default, but the sampler auto (the library default is what
 * older models ran), 20 top words, no output folder. */
void lda_train_options_default(lda_train_options *o);

/* Parses value into o's setting `name` (a long option's name); `where` names the source in
 * messages. 0, -1 with err, or 1 when name is not a train setting (nothing set). */
int lda_train_setting_set(lda_train_options *o, lda_train_given *g, const char *name, const char *value,
                          const char *where, lda_error *err);

/* After the last setting: --model and --update must name the same pair; --gpus, mpirun and
 * LDAGPU_SHARDS (a test switch) decide the shards. */
int lda_train_settings_finish(lda_train_options *o, const lda_train_given *g, lda_error *err);

#endif
