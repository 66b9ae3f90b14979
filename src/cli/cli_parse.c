/* cli_parse.c — the options several commands share; see cli_parse.h. */
#include "cli/cli_parse.h"

#include <stdlib.h>
#include <string.h>

#include "corpus/corpus.h"

int lda_parse_threads(const char *where, const char *text, int *out, lda_error *err)
{
    uint32_t n;
    if (lda_parse_u32(where, text, 1, 4096, &n, err))
        return -1;
    *out = (int)n;
    return 0;
}

int lda_parse_device(const char *where, const char *text, lda_device *out, lda_error *err)
{
    int choice;
    if (lda_parse_choice(where, text, lda_device_choices, &choice, err))
        return -1;
    *out = (lda_device)choice;
    return 0;
}

int lda_parse_corpus_format(const char *where, const char *text, corpus_format *out, lda_error *err)
{
    int f;
    if (lda_parse_choice(where, text, corpus_format_choices, &f, err))
        return -1;
    *out = (corpus_format)f;
    return 0;
}

int lda_parse_split(const char *where, const char *text, uint32_t *out, lda_error *err)
{
    if (strcmp(text, "auto") == 0 || strcmp(text, "0") == 0) {
        *out = LDA_SPLIT_AUTO;
        return 0;
    }
    if (strcmp(text, "staged") == 0) {
        *out = LDA_SPLIT_STAGED;
        return 0;
    }
    if (lda_parse_u32(where, text, 1, LDA_SPLIT_MAX, out, err) == 0)
        return 0;
    lda_error_input(err, "%s: expected auto, staged or a number of warps from 1 to %u, got '%s'", where, LDA_SPLIT_MAX,
                    text);
    return -1;
}

/* A comma-separated list, each item parsed by `one`; *out is malloc'ed. */
static int parse_list(const char *where, const char *text, int (*one)(const char *, const char *, uint32_t *, lda_error *),
                      uint32_t **out, size_t *count, lda_error *err)
{
    char *copy = strdup(text), *save = NULL;
    size_t n = 0;
    uint32_t *values = copy ? malloc((strlen(text) / 2 + 1) * sizeof *values) : NULL;
    if (!values) {
        free(copy);
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (one(where, item, &values[n++], err)) {
            free(copy);
            free(values);
            return -1;
        }
    free(copy);
    if (n == 0) {
        free(values);
        lda_error_input(err, "%s: an empty list", where);
        return -1;
    }
    *out = values;
    *count = n;
    return 0;
}

int lda_parse_split_list(const char *where, const char *text, uint32_t **out, size_t *count, lda_error *err)
{
    return parse_list(where, text, lda_parse_split, out, count, err);
}

static int parse_piece_length(const char *where, const char *text, uint32_t *out, lda_error *err)
{
    if (strcmp(text, "auto") == 0) {
        *out = LDA_PIECE_LENGTH_AUTO;
        return 0;
    }
    return lda_parse_u32(where, text, 0, LDA_PIECE_LENGTH_AUTO - 1, out, err);
}

int lda_parse_piece_lengths(const char *where, const char *text, uint32_t **out, size_t *count, lda_error *err)
{
    return parse_list(where, text, parse_piece_length, out, count, err);
}
