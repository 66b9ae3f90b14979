/* trainer.h — a whole training run: read, lay out, train on a backend, write the model;
 * held-out evaluation, checkpoints, resuming, stopping on a signal. */
#ifndef LDA_TRAINER_H
#define LDA_TRAINER_H

#include <signal.h>
#include <stdint.h>

#include "core/error.h"
#include "core/params.h"
#include "corpus/corpus.h"
#include "model/checkpoint.h"

typedef struct {
    const char *corpus_path;
    corpus_options corpus;
    lda_params params;
    const char *output_dir;
    uint32_t top_words; /* in topics.txt */
    int quiet;          /* no per-iteration lines */
    /* Held-out evaluation (heldout.h): this fraction of the documents is left out of
     * training and scored by document completion on every evaluated iteration. */
    double holdout;              /* 0: none */
    uint32_t holdout_iterations; /* sweeps estimating θ of each held-out document */
    uint32_t checkpoint_every;   /* write OUTPUT/checkpoint every N iterations; 0: never */
    /* Continue this state (checkpoint.h) for params.iterations more iterations; the options
     * must hold its settings (cmd_train.c merges them). NULL: a new run. */
    const lda_resume_state *resume;
    /* When *stop becomes non-zero (a signal number, set by a handler), the run stops after
     * the current iteration, writes a checkpoint and the model, and returns 0. */
    const volatile sig_atomic_t *stop;
} lda_train_options;

int lda_train(const lda_train_options *o, lda_error *err);

#endif
