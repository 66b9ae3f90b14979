/* train_log.h — what a training run reports while it runs.
 *
 * One line per iteration on stderr (iteration, seconds, tokens/s, the z/update split, and
 * the log-likelihoods on evaluated iterations, held-out included), the same rows kept for
 * log.csv, and, when
 * stderr is a terminal, a progress bar redrawn under the log lines. */
#ifndef LDA_TRAIN_LOG_H
#define LDA_TRAIN_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "core/error.h"

typedef struct {
    uint32_t iteration;
    double seconds;       /* this iteration, wall clock */
    double train_seconds; /* all iterations so far (evaluations excluded) */
    double tokens_per_second;
    lda_iter_timing timing;
    int evaluated;
    lda_eval eval;
    int heldout_evaluated;  /* with --holdout, on evaluated iterations */
    double loglik_heldout;  /* per-token log-likelihood of the held-out documents (heldout.h) */
    double phi_seconds;     /* the φ written estimated from expected counts after this iteration
                               (--phi-estimate expected; train/phi_expected.h); 0: not */
} lda_log_row;

typedef struct {
    lda_log_row *rows;
    size_t count, cap;
    FILE *out;      /* stderr, or NULL when quiet */
    int progress;   /* draw a progress bar (stderr is a terminal) */
    uint32_t first, last; /* iteration range of this run, for the bar */
} lda_train_log;

void lda_train_log_init(lda_train_log *log, FILE *out, uint32_t first, uint32_t last);
int lda_train_log_add(lda_train_log *log, const lda_log_row *row, lda_error *err);
/* Clears the progress bar. */
void lda_train_log_finish(lda_train_log *log);
/* Writes every row as CSV (atomically). */
int lda_train_log_write_csv(const lda_train_log *log, const char *path, lda_error *err);
/* Appends the rows of a log.csv written by lda_train_log_write_csv (any version: columns are
 * found by name; missing ones are left empty), without printing them. */
int lda_train_log_read_csv(lda_train_log *log, const char *path, lda_error *err);
void lda_train_log_free(lda_train_log *log);

#endif
