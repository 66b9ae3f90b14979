/* api_arrays.c — ldagpu_corpus_from_arrays: a corpus from CSR arrays, every value checked
 * before anything is expanded (a caller's arrays are input like a file's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "corpus/corpus_internal.h"
#include "corpus/text_fields.h"
#include "corpus/vocab_check.h"

/* The offsets: num_docs + 1 of them, from 0 to num_entries, never decreasing. */
static int check_offsets(size_t num_docs, const int64_t *off, size_t num_entries, lda_error *e)
{
    if (!off) {
        lda_error_input(e, "no document offsets");
        return -1;
    }
    if (off[0] != 0) {
        lda_error_input(e, "document offsets: the first is %lld, not 0", (long long)off[0]);
        return -1;
    }
    for (size_t d = 0; d < num_docs; d++)
        if (off[d + 1] < off[d]) {
            lda_error_input(e, "document offsets: offset %zu (%lld) is less than offset %zu (%lld)", d + 1,
                            (long long)off[d + 1], d, (long long)off[d]);
            return -1;
        }
    if ((uint64_t)off[num_docs] != num_entries) {
        lda_error_input(e, "document offsets: the last is %lld, but there are %zu word ids", (long long)off[num_docs],
                        num_entries);
        return -1;
    }
    return 0;
}

/* Word ids within the vocabulary; counts whole, finite and not negative; the tokens within
 * the corpus's limits (corpus.h) and the memory. */
static int check_entries(size_t num_docs, const int64_t *off, const int64_t *words, const double *counts,
                         size_t vocab_size, lda_error *e)
{
    uint64_t total = 0, max_tokens;
    if (corpus_token_budget(&max_tokens, e))
        return -1;
    for (size_t d = 0; d < num_docs; d++) {
        uint64_t doc = 0;
        for (int64_t i = off[d]; i < off[d + 1]; i++) {
            if (words[i] < 0 || (uint64_t)words[i] >= vocab_size) {
                lda_error_input(e, "word id %lld of entry %lld (document %zu) is not within the vocabulary of %zu words",
                                (long long)words[i], (long long)i, d, vocab_size);
                return -1;
            }
            const double c = counts ? counts[i] : 1.0;
            if (!isfinite(c) || c < 0 || c != floor(c)) {
                lda_error_input(e, "count %g of entry %lld (document %zu) is not a whole number of at least 0", c,
                                (long long)i, d);
                return -1;
            }
            if (c > (double)CORPUS_MAX_DOC_TOKENS || (doc += (uint64_t)c) > CORPUS_MAX_DOC_TOKENS) {
                lda_error_input(e, "document %zu has more than %llu tokens, the most a document may have", d,
                                (unsigned long long)CORPUS_MAX_DOC_TOKENS);
                return -1;
            }
        }
        if ((total += doc) > CORPUS_MAX_TOKENS) {
            lda_error_input(e, "more than %llu tokens, the most a corpus may have",
                            (unsigned long long)CORPUS_MAX_TOKENS);
            return -1;
        }
    }
    return corpus_check_memory("the arrays", 0, total, max_tokens, e);
}

/* The vocabulary: the words given, or their ids as words; checked as a vocabulary file's. */
static char **make_vocab(size_t n, const char *const *vocab, lda_error *e)
{
    char **words = lda_calloc(n ? n : 1, sizeof *words, "a vocabulary", e);
    for (size_t w = 0; words && w < n; w++) {
        if (vocab && !vocab[w]) {
            lda_error_input(e, "vocabulary: word %zu is NULL", w);
            free_strings(words, w);
            return NULL;
        }
        char id[32];
        snprintf(id, sizeof id, "%zu", w);
        if (!(words[w] = strdup(vocab ? vocab[w] : id))) {
            lda_error_fail(e, "out of memory");
            free_strings(words, w);
            return NULL;
        }
    }
    if (words && vocab_check(words, (uint32_t)n, "the vocabulary", VOCAB_BY_ID, e)) {
        free_strings(words, n);
        return NULL;
    }
    return words;
}

static lda_string_list *make_names(size_t n, const char *const *names, lda_error *e)
{
    lda_string_list *l = lda_string_list_new(e);
    for (size_t d = 0; l && d < n; d++) {
        char why[TEXT_FIELDS_WHY_MAX];
        const char *problem = names[d] ? text_field_problem(names[d], strlen(names[d]), 1, why) : "it is NULL";
        if (problem) {
            lda_error_input(e, "document %zu's name: %s", d, problem);
            lda_string_list_free(l);
            return NULL;
        }
        if (lda_string_list_add(l, names[d], strlen(names[d]), e)) {
            lda_string_list_free(l);
            return NULL;
        }
    }
    return l;
}

/* What a corpus of given words records as its reader settings: the words as they are (no stop
 * words, no case folding, no pruning; whitespace separates the words of new text). */
static ldagpu_settings *as_given(ldagpu_error *err)
{
    static const char *const pairs[][2] = {
        {"stopwords", "none"}, {"lowercase", "no"},   {"pretokenized", "yes"}, {"min-word-length", "1"},
        {"min-df", "1"},       {"max-df", "1"},       {"format", "uci"},
    };
    ldagpu_settings *s = ldagpu_settings_new(err);
    for (size_t i = 0; s && i < sizeof pairs / sizeof pairs[0]; i++)
        if (ldagpu_settings_set(s, pairs[i][0], pairs[i][1], err)) {
            ldagpu_settings_free(s);
            return NULL;
        }
    return s;
}

static corpus *build(size_t num_docs, const int64_t *off, const int64_t *words, const double *counts, lda_error *e)
{
    corpus_builder b;
    if (corpus_builder_init(&b, CORPUS_FORMAT_UCI, e))
        return NULL;
    for (size_t d = 0; d < num_docs; d++) {
        for (int64_t i = off[d]; i < off[d + 1]; i++)
            if (corpus_builder_add(&b, (uint32_t)words[i], counts ? (size_t)counts[i] : 1, e)) {
                corpus_builder_discard(&b);
                return NULL;
            }
        if (corpus_builder_end_doc(&b, e)) {
            corpus_builder_discard(&b);
            return NULL;
        }
    }
    return corpus_builder_finish(&b);
}

ldagpu_corpus *ldagpu_corpus_from_arrays(size_t num_docs, const int64_t *doc_offsets, size_t num_entries,
                                         const int64_t *word_ids, size_t num_counts, const double *counts,
                                         size_t vocab_size, const char *const *vocab, const char *const *names,
                                         ldagpu_error *err)
{
    lda_error e = {0};
    if (num_entries && !word_ids) {
        lda_error_input(&e, "no word ids");
        return api_fail_null(err, &e);
    }
    if (counts && num_counts != num_entries) {
        lda_error_input(&e, "%zu word ids but %zu counts: each entry needs one of each", num_entries, num_counts);
        return api_fail_null(err, &e);
    }
    if (vocab_size > UINT32_MAX - 1) {
        lda_error_input(&e, "a vocabulary of %zu words: more than a corpus may have", vocab_size);
        return api_fail_null(err, &e);
    }
    if (check_offsets(num_docs, doc_offsets, num_entries, &e) ||
        check_entries(num_docs, doc_offsets, word_ids, counts, vocab_size, &e))
        return api_fail_null(err, &e);
    ldagpu_settings *read_with = as_given(err);
    if (!read_with)
        return NULL;
    corpus *c = build(num_docs, doc_offsets, word_ids, counts, &e);
    if (c) {
        c->vocab_size = (uint32_t)vocab_size;
        if (!(c->vocab = make_vocab(vocab_size, vocab, &e)) || (names && !(c->names = make_names(num_docs, names, &e)))) {
            corpus_free(c);
            c = NULL;
        }
    }
    if (!c) {
        ldagpu_settings_free(read_with);
        return api_fail_null(err, &e);
    }
    ldagpu_corpus *h = api_corpus_wrap(c, read_with, NULL, &e);
    if (!h)
        return api_fail_null(err, &e);
    api_ok(err);
    return h;
}
