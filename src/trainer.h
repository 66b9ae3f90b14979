/* trainer.h — a whole training run: read, lay out, train on a backend, write the model. */
#ifndef LDA_TRAINER_H
#define LDA_TRAINER_H

#include <stdint.h>

#include "corpus.h"
#include "error.h"
#include "params.h"

typedef struct {
    const char *corpus_path;
    corpus_options corpus;
    lda_params params;
    const char *output_dir;
    uint32_t top_words; /* in topics.txt */
    int quiet;          /* no per-iteration lines */
} lda_train_options;

int lda_train(const lda_train_options *o, lda_error *err);

#endif
