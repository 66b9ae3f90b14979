/* corpus_build.c — assembling a corpus's arrays; see corpus_internal.h.
 *
 * All readers go through the builder so that skipping empty documents, input_index and the
 * counts in struct corpus are done one way. corpus_remap_words is the one place tokens are
 * filtered after reading (vocabulary pruning, fixed-vocabulary mapping); it works in place
 * because the output is never longer than the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_internal.h"
#include "util/memory.h"

int corpus_builder_init(corpus_builder *b, corpus_format format, lda_error *err)
{
    memset(b, 0, sizeof *b);
    b->c = lda_calloc(1, sizeof *b->c, "a corpus", err);
    if (!b->c)
        return -1;
    b->c->format = format;
    b->docs_cap = 1024;
    b->words_cap = 64 * 1024;
    b->c->doc_offsets = lda_malloc_array(b->docs_cap + 1, sizeof(size_t), "document offsets", err);
    b->c->input_index = lda_malloc_array(b->docs_cap, sizeof(size_t), "document indexes", err);
    b->c->words = lda_malloc_array(b->words_cap, sizeof(uint32_t), "tokens", err);
    if (!b->c->doc_offsets || !b->c->input_index || !b->c->words) {
        corpus_builder_discard(b);
        return -1;
    }
    b->c->doc_offsets[0] = 0;
    return 0;
}

int corpus_builder_reserve(corpus_builder *b, size_t n, lda_error *err)
{
    size_t used = b->c->num_tokens;
    if (n <= b->words_cap - used)
        return 0;
    if (n > SIZE_MAX / sizeof(uint32_t) - used) {
        lda_error_fail(err, "out of memory (more than %zu tokens)", SIZE_MAX / sizeof(uint32_t));
        return -1;
    }
    size_t cap = b->words_cap;
    while (cap - used < n)
        cap = cap > SIZE_MAX / sizeof(uint32_t) / 2 ? used + n : cap * 2;
    uint32_t *words = realloc(b->c->words, cap * sizeof *words);
    if (!words) {
        lda_error_fail(err, "out of memory (%zu bytes for tokens)", cap * sizeof *words);
        return -1;
    }
    b->c->words = words;
    b->words_cap = cap;
    return 0;
}

int corpus_token_budget(uint64_t *max_tokens, lda_error *err)
{
    uint64_t bytes;
    if (lda_memory_available(&bytes, err))
        return -1;
    *max_tokens = bytes / sizeof(uint32_t);
    return 0;
}

int corpus_check_memory(const char *path, size_t line, uint64_t total, uint64_t max_tokens, lda_error *err)
{
    if (total <= max_tokens)
        return 0;
    char where[4096], what[96];
    snprintf(where, sizeof where, line ? "%s:%zu" : "%s", path, line);
    snprintf(what, sizeof what, "the corpus declares %llu tokens%s", (unsigned long long)total, line ? " by this line" : "");
    lda_memory_refuse(where, what, total * sizeof(uint32_t), max_tokens * sizeof(uint32_t), err);
    return -1;
}

int corpus_check_input_docs(const char *path, size_t line, uint64_t docs, lda_error *err)
{
    char where[4096], what[96];
    snprintf(where, sizeof where, "%s:%zu", path, line);
    snprintf(what, sizeof what, "the corpus declares %llu documents", (unsigned long long)docs);
    return lda_memory_check(where, what, docs * CORPUS_INPUT_DOC_BYTES, err);
}

int corpus_check_tokens(const gzlines *src, uint64_t doc_tokens, uint64_t total, uint64_t max_tokens,
                        lda_error *err)
{
    const char *path = gzlines_path(src);
    size_t line = gzlines_lineno(src);
    if (doc_tokens > CORPUS_MAX_DOC_TOKENS)
        lda_error_input(err, "%s:%zu: a document of more than %llu tokens (%llu by this line), the most one "
                        "document may have", path, line, (unsigned long long)CORPUS_MAX_DOC_TOKENS,
                        (unsigned long long)doc_tokens);
    else if (total > CORPUS_MAX_TOKENS)
        lda_error_input(err, "%s:%zu: the corpus reaches %llu tokens by this line; a corpus has at most %llu", path,
                        line, (unsigned long long)total, (unsigned long long)CORPUS_MAX_TOKENS);
    else
        return corpus_check_memory(path, line, total, max_tokens, err);
    return -1;
}

int corpus_builder_add(corpus_builder *b, uint32_t w, size_t count, lda_error *err)
{
    if (b->src && corpus_check_tokens(b->src, (uint64_t)(b->c->num_tokens - b->doc_start) + count,
                                      (uint64_t)b->c->num_tokens + count, b->max_tokens, err))
        return -1;
    if (count > b->words_cap - b->c->num_tokens && corpus_builder_reserve(b, count, err) < 0)
        return -1;
    uint32_t *out = b->c->words + b->c->num_tokens;
    for (size_t i = 0; i < count; i++)
        out[i] = w;
    b->c->num_tokens += count;
    return 0;
}

static int grow_docs(corpus_builder *b, lda_error *err)
{
    size_t cap = b->docs_cap * 2;
    if (cap > SIZE_MAX / sizeof(size_t) - 1) {
        lda_error_fail(err, "out of memory (too many documents)");
        return -1;
    }
    size_t *offsets = realloc(b->c->doc_offsets, (cap + 1) * sizeof *offsets);
    if (!offsets) {
        lda_error_fail(err, "out of memory (%zu documents)", cap);
        return -1;
    }
    b->c->doc_offsets = offsets;
    size_t *index = realloc(b->c->input_index, cap * sizeof *index);
    if (!index) {
        lda_error_fail(err, "out of memory (%zu documents)", cap);
        return -1;
    }
    b->c->input_index = index;
    b->docs_cap = cap;
    return 0;
}

int corpus_builder_end_doc(corpus_builder *b, lda_error *err)
{
    corpus *c = b->c;
    if (c->num_tokens == b->doc_start) {
        c->num_empty_docs++;
        c->num_input_docs++;
        return 0;
    }
    if (c->num_docs == b->docs_cap && grow_docs(b, err) < 0)
        return -1;
    c->input_index[c->num_docs] = c->num_input_docs;
    c->doc_offsets[++c->num_docs] = c->num_tokens;
    c->num_input_docs++;
    b->doc_start = c->num_tokens;
    return 0;
}

void corpus_builder_skip_empty_docs(corpus_builder *b, size_t n)
{
    b->c->num_empty_docs += n;
    b->c->num_input_docs += n;
}

corpus *corpus_builder_finish(corpus_builder *b)
{
    corpus *c = b->c;
    b->c = NULL;
    return c;
}

void corpus_builder_discard(corpus_builder *b)
{
    corpus_free(b->c);
    b->c = NULL;
}

size_t corpus_remap_words(corpus *c, const uint32_t *map, size_t *dropped_by_input)
{
    size_t out = 0, kept_docs = 0;
    size_t in_start = 0; /* doc_offsets is rewritten as we go, so the input's are kept here */
    for (size_t d = 0; d < c->num_docs; d++) {
        size_t in_end = c->doc_offsets[d + 1];
        size_t doc_start = out;
        for (size_t i = in_start; i < in_end; i++) {
            uint32_t w = map[c->words[i]];
            if (w != CORPUS_NO_WORD)
                c->words[out++] = w;
        }
        if (dropped_by_input)
            dropped_by_input[c->input_index[d]] = (in_end - in_start) - (out - doc_start);
        in_start = in_end;
        if (out == doc_start) {
            c->num_empty_docs++;
            continue;
        }
        c->input_index[kept_docs] = c->input_index[d];
        c->doc_offsets[++kept_docs] = out;
    }
    size_t dropped = c->num_tokens - out;
    c->num_docs = kept_docs;
    c->num_tokens = out;
    return dropped;
}
