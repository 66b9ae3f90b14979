/* api_internal.h — what the library's handles hold, shared by the files of src/api/. */
#ifndef LDA_API_INTERNAL_H
#define LDA_API_INTERNAL_H

#include "ldagpu.h"

#include "core/error.h"
#include "corpus/corpus.h"
#include "train/train_settings.h"
#include "train/trainer.h"

struct ldagpu_settings {
    lda_train_options o;  /* what train's options would make of the pairs given */
    lda_train_given g;
    char **names, **values; /* the pairs, in order: the settings borrow these strings */
    size_t count, cap;
};

struct ldagpu_corpus {
    corpus *c;
    ldagpu_settings *read_with; /* the reader settings it was read with: what a model records */
    char *path;                 /* the file read (model.conf's corpus), or NULL */
};

struct ldagpu_model {
    lda_trained t;
};

/* err from e (its status, FAILURE where none is set); returns the status. */
int api_fail(ldagpu_error *out, const lda_error *e);
/* NULL, after api_fail. */
void *api_fail_null(ldagpu_error *out, const lda_error *e);
/* Clears err (when not NULL); returns LDAGPU_OK. */
int api_ok(ldagpu_error *out);
/* A copy of s (NULL: the defaults), replayed from its pairs. */
ldagpu_settings *api_settings_copy(const ldagpu_settings *s, ldagpu_error *err);
/* A handle over c (taken), read_with (taken) and a copy of path; NULL with e (c and read_with freed). */
ldagpu_corpus *api_corpus_wrap(corpus *c, ldagpu_settings *read_with, const char *path, lda_error *e);

#endif
