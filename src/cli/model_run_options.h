/* model_run_options.h — the options of the commands that run a trained model over a corpus
 * (infer, eval): where to run, how many threads, and how to read the corpus where the model's
 * own reader settings do not say. Written once: a command puts LDA_MODEL_RUN_OPTION_IDS in its
 * option enum (they must stay together and in this order), LDA_MODEL_RUN_OPTION_ROWS in its
 * table, and hands those indices to lda_apply_model_run_option. */
#ifndef LDA_MODEL_RUN_OPTIONS_H
#define LDA_MODEL_RUN_OPTIONS_H

#include "cli/corpus_option_rows.h"
#include "core/error.h"
#include "core/params.h"
#include "corpus/corpus.h"

typedef struct {
    lda_device device;
    int threads;          /* 0: all cores */
    corpus_format format;
    const char *vocab;    /* NULL: as the corpus' name says */
    int force_text;       /* --force-text, besides the model's own setting */
} lda_model_run_options;

#define LDA_MODEL_RUN_OPTIONS_DEFAULT {LDA_DEVICE_AUTO, 0, CORPUS_FORMAT_AUTO, NULL, 0}

#define LDA_MODEL_RUN_OPTION_IDS OPT_DEVICE, OPT_THREADS, OPT_FORMAT, OPT_VOCAB, OPT_FORCE_TEXT
#define LDA_MODEL_RUN_OPTION_ROWS                                                                                    \
    [OPT_DEVICE] = {"device", 0, "auto|cpu|cuda", "where to run; auto uses a GPU when present", "auto",             \
                    lda_device_choices},                                                                              \
    [OPT_THREADS] = {"threads", 'j', "N", "CPU threads (CPU backend)", "all cores", .mallet = "num-threads"},         \
    [OPT_FORMAT] = LDA_ROW_FORMAT, [OPT_VOCAB] = LDA_ROW_VOCAB, [OPT_FORCE_TEXT] = LDA_ROW_FORCE_TEXT

/* Applies the option `offset` places after OPT_DEVICE (index − OPT_DEVICE) with its value. */
int lda_apply_model_run_option(lda_model_run_options *o, int offset, const char *value, const char *where,
                               lda_error *err);

#endif
