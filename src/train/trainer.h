/* trainer.h — a whole training run: read, lay out, train on a backend, write the model;
 * held-out evaluation, checkpoints, resuming, stopping on a signal. */
#ifndef LDA_TRAINER_H
#define LDA_TRAINER_H

#include <signal.h>
#include <stdint.h>

#include "core/error.h"
#include "core/params.h"
#include "corpus/corpus.h"
#include "model/settings.h"
#include "model/checkpoint.h"

typedef struct {
    const char *corpus_path;
    /* What the model records (model/settings.h): K, α, β, seed, model, how the corpus is
     * read, and the held-out evaluation (heldout.h: settings.holdout of the documents are
     * left out of training and scored by document completion on every evaluated iteration,
     * with settings.holdout_iterations sweeps). settings.params also carries what is not
     * recorded: iterations to run, device, threads, evaluation interval, split. */
    lda_settings settings;
    const char *output_dir;
    int force;          /* --force: output_dir may hold a model, which the run replaces (model_folder.h) */
    const char *cache;  /* --cache: off (or NULL), auto or a file (corpus/corpus_cache.h) */
    uint32_t top_words; /* in topics.txt */
    int quiet;          /* no per-iteration lines */
    uint32_t checkpoint_every;   /* write OUTPUT/checkpoint every N iterations; 0: never */
    /* Continue this state (checkpoint.h) for params.iterations more iterations; the options
     * must hold its settings (cmd_train.c merges them). NULL: a new run. */
    const lda_resume_state *resume;
    /* When *stop becomes non-zero (a signal number, set by a handler), the run stops after
     * the current iteration, writes a checkpoint and the model, and returns 0; before the
     * first iteration (during the read or the set-up) it writes nothing, leaving output_dir
     * as it was, and returns 0. */
    const volatile sig_atomic_t *stop;
} lda_train_options;

int lda_train(const lda_train_options *o, lda_error *err);

#endif
