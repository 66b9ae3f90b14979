/* settings.h — the settings of a training run that its model records, in one table.
 *
 * A run's settings (K, α, β, seed, model, how the corpus is read, what is held out, ...)
 * live in one struct, lda_settings, held both by a run's options (train/trainer.h) and by a
 * model (model.h). The table in settings.c has one row per setting: its model.conf key, the
 * train option that sets it, its type and bounds, where it lives in lda_settings, and
 * whether --resume may change it. Writing and reading model.conf, parsing the option,
 * checking a resumed run's flags against the model, merging them, and the help text's list
 * of what may change on resume are all driven from that table: a new resumable setting is a
 * field and a row (and the train option that sets it). */
#ifndef LDA_SETTINGS_H
#define LDA_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/params.h"
#include "corpus/corpus.h"
#include "model/doc_topics.h"

typedef struct {
    lda_params params;           /* K, α, β, seed, model, precision, sampler, refresh, ... */
    corpus_options corpus;       /* how the corpus is read: format, vocabulary file, tokenizer, pruning */
    double holdout;              /* fraction of the documents held out (0: none) */
    uint32_t holdout_iterations; /* θ-estimation sweeps of each held-out evaluation */
    lda_doc_topics doc_topics;   /* how θ is written (doc_topics.h); a model records the form it wrote */
} lda_settings;

typedef enum {
    LDA_SET_U32,
    LDA_SET_U32_AUTO, /* a number, or "auto" (UINT32_MAX) */
    LDA_SET_U64,
    LDA_SET_SIZE,
    LDA_SET_INT,
    LDA_SET_DOUBLE,
    LDA_SET_CHOICE, /* an enum named by `choices` */
    LDA_SET_MODEL,  /* params.theta_collapsed and params.update, named by lda_model_choices */
    LDA_SET_FORMAT, /* corpus_format; the option's "auto" agrees with any recorded format */
    LDA_SET_PATH,   /* const char *, NULL meaning `unset`; compared as files; owned by a model */
    LDA_SET_DOC_TOPICS, /* lda_doc_topics: dense, top:N, sparse:EPS, none, auto */
    /* A stop-word file (as LDA_SET_PATH), compared by the list that corpus.stopwords_path and
     * extra_stopwords_path make together (stopwords.h): a model keeps that list itself. */
    LDA_SET_STOPWORDS,
    LDA_SET_TEXT,   /* const char *, NULL meaning `unset`; compared as strings; owned by a model */
    LDA_SET_FLAG,   /* int, 0 or 1: no or yes (lda_parse_flag_value; a flag given alone is yes) */
} lda_setting_type;

typedef struct {
    const char *key;     /* in model.conf */
    const char *option;  /* train's long option that sets it */
    lda_setting_type type;
    size_t offset;       /* where it lives in lda_settings */
    int may_change;      /* --resume may give another value */
    double min, max;     /* numbers: bounds */
    int min_open, max_open;
    const lda_choice *choices; /* LDA_SET_CHOICE */
    const char *unset;   /* LDA_SET_PATH, _STOPWORDS, _TEXT: what NULL means, for messages */
} lda_setting;

/* The table, terminated by a NULL key. */
extern const lda_setting lda_settings_table[];

/* The defaults of every setting (lda_params_default, corpus_options_default, no holdout,
 * 20 holdout iterations, --doc-topics auto): what a model.conf that lacks a key reads as
 * (but for what lda_model_read_conf says older folders mean: piece_length 0, doc_topics dense). */
void lda_settings_default(lda_settings *s);

/* The row of a model.conf key, or of a train option; NULL when none. */
const lda_setting *lda_setting_by_key(const char *key);
const lda_setting *lda_setting_by_option(const char *option);

/* Parses `text` into the row's field of s; `where` names the source for messages. A path is
 * copied (strdup) when own_strings is set (a model owns its strings), else borrowed. */
int lda_setting_parse(const lda_setting *row, const char *where, const char *text, lda_settings *s, int own_strings,
                      lda_error *err);

/* Whether a (the user's) and b (the model's) agree on the row's setting. */
int lda_setting_same(const lda_setting *row, const lda_settings *a, const lda_settings *b);

/* The row's value in s as model.conf writes it, into buf; NULL for an unset path. */
const char *lda_setting_format(const lda_setting *row, const lda_settings *s, char *buf, size_t size);

/* Copies the row's value from `from` to `to` (paths borrowed). */
void lda_setting_copy(const lda_setting *row, lda_settings *to, const lda_settings *from);

/* Writes "key = value" for every setting (unset paths left out). */
void lda_settings_write(FILE *f, const lda_settings *s);

/* Frees the paths a model owns (own_strings) and sets them to NULL. */
void lda_settings_free_strings(lda_settings *s);
/* Replaces every string of s (borrowed) by a copy of it, which s then owns. On failure the
 * strings not copied are NULL. */
int lda_settings_own_strings(lda_settings *s, lda_error *err);

#endif
