/* cli_parse.h — the options several commands share (--threads, --device, --format), parsed
 * one way everywhere; the checked numbers and names under them are core/parse.h's. */
#ifndef LDA_CLI_PARSE_H
#define LDA_CLI_PARSE_H

#include "core/parse.h"
#include "corpus/corpus.h"

int lda_parse_threads(const char *where, const char *text, int *out, lda_error *err);
int lda_parse_device(const char *where, const char *text, lda_device *out, lda_error *err);
/* --split: auto (or 0), staged, or a number of warps 1..LDA_SPLIT_MAX (params.h). */
int lda_parse_split(const char *where, const char *text, uint32_t *out, lda_error *err);
/* A comma-separated list of --split values; *out is malloc'ed. */
int lda_parse_split_list(const char *where, const char *text, uint32_t **out, size_t *count, lda_error *err);
/* A comma-separated list of --piece-length values: auto or numbers; *out is malloc'ed. */
int lda_parse_piece_lengths(const char *where, const char *text, uint32_t **out, size_t *count, lda_error *err);
int lda_parse_corpus_format(const char *where, const char *text, corpus_format *out, lda_error *err);

#endif
