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
#include "model/train_log.h"

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
    /* The library (include/ldagpu.h) sets these; the command line leaves them NULL. */
    const corpus *documents; /* train on these (borrowed) instead of reading corpus_path, which
                              * is then only what model.conf records (NULL: nothing) */
    struct lda_trained *keep; /* the finished model goes here (output_dir NULL: no folder) */
    /* Called after every iteration with its row (last: the run's last iteration); non-zero stops
     * the run as a signal does (the model of the iterations done is kept). */
    int (*progress)(void *ctx, const lda_log_row *row, uint32_t last);
    /* Every line the run would print on stderr (warnings, and what -q silences unless quiet)
     * goes here instead; the iteration rows go to progress only. */
    void (*message)(void *ctx, const char *line);
    void *callback_ctx;
} lda_train_options;

/* A finished model in memory, with what its folder holds besides the model's own files. */
typedef struct lda_trained {
    lda_model m;              /* its vocabulary its own; θ in the form settings.doc_topics names */
    lda_train_log log;        /* log.csv's rows */
    size_t *heldout_index;    /* heldout.txt: input indices of the held-out documents */
    size_t num_heldout;
    stopword_list stopwords;  /* the list the model records (m.stopwords points here) */
    uint32_t top_words;       /* topics.txt's words a topic */
} lda_trained;

int lda_train(const lda_train_options *o, lda_error *err);

/* Writes t as a model folder at dir, under the rules train's -o follows (model_folder.h; force:
 * --force), the same files train writes. */
int lda_trained_write(const lda_trained *t, const char *dir, int force, lda_error *err);
void lda_trained_free(lda_trained *t);

#endif
