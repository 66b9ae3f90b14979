/* stopwords.h — the stop words dropped by the raw-text tokenizer: the built-in English list
 * (data/stopwords.txt compiled in by the Makefile), a user's file, or none. */
#ifndef LDA_STOPWORDS_H
#define LDA_STOPWORDS_H

#include <stddef.h>

#include "core/error.h"
#include "util/strmap.h"

/* Generated from data/stopwords.txt (build/.../gen/stopwords_data.c). */
extern const char *const lda_builtin_stopwords[];
extern const size_t lda_builtin_stopwords_count;

/* Interns the stop words into m: the built-in list when path is NULL, nothing when path is
 * "none", else the words of the file (whitespace-separated, '#' starts a comment, gzip
 * allowed). Words are lowercased, as tokens are. 0, or -1 with err. */
int stopwords_add(strmap *m, const char *path, lda_error *err);

#endif
