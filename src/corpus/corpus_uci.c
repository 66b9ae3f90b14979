/* corpus_uci.c — the UCI bag-of-words format (docword + vocab files).
 *
 * docword: three header lines D, W, NNZ, then NNZ lines "docID wordID count" with 1-based
 * ids; vocab line i is word i. Triples need not be grouped by document: they are collected,
 * stably sorted by document when not already in order, and each expands into `count`
 * tokens. Documents without triples are empty (skipped and counted).
 *
 * A count of 0 is accepted as an explicit zero entry of the sparse matrix: it counts
 * towards NNZ and adds no tokens. Blank lines are ignored (trailing ones are common). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_internal.h"
#include "corpus/vocab_file.h"
#include "util/fields.h"
#include "util/gzlines.h"

typedef struct {
    uint32_t doc, word, count; /* 0-based ids */
} uci_triple;

typedef struct {
    uint64_t docs, words, nnz; /* D, W, NNZ */
    size_t lines[3];           /* where each was, for messages */
} uci_header;

static const char HEADER_LAYOUT[] = "a header of three lines D, W, NNZ";
static const char TRIPLE_LAYOUT[] = "lines 'docID wordID count'";

/* The next line that is not blank, with a cursor over its fields; 0 at the end. */
static int next_fields(gzlines *r, const char *layout, line_fields *f, lda_error *err)
{
    char *line;
    size_t len;
    while ((line = gzlines_next(r, &len, err))) {
        if (!line_is_blank(line, len)) {
            line_fields_init(f, r, layout, line, len);
            return 1;
        }
    }
    return 0;
}

static int read_header(gzlines *r, uci_header *h, lda_error *err)
{
    static const uint_spec specs[3] = {
        {"D", 0, UINT32_MAX, NULL},
        {"W", 0, CORPUS_NO_WORD - 1, NULL},
        {"NNZ", 0, UINT64_MAX, NULL},
    };
    uint64_t *values[3] = {&h->docs, &h->words, &h->nnz};
    for (int i = 0; i < 3; i++) {
        line_fields f;
        if (!next_fields(r, HEADER_LAYOUT, &f, err)) {
            if (gzlines_failed(r))
                return -1;
            if (gzlines_lineno(r) == 0)
                lda_error_input(err, "%s: the file is empty (expected %s)", gzlines_path(r),
                                HEADER_LAYOUT);
            else
                lda_error_input(err, "%s:%zu: the file ends inside the header (expected %s)",
                                gzlines_path(r), gzlines_lineno(r), HEADER_LAYOUT);
            return -1;
        }
        if (line_fields_uint(&f, &specs[i], values[i], err) < 0 || line_fields_end(&f, err) < 0)
            return -1;
        h->lines[i] = gzlines_lineno(r);
    }
    return 0;
}

/* Parses one "docID wordID count" line into t (0-based ids). */
static int parse_triple(line_fields *f, const uci_header *h, uci_triple *t, lda_error *err)
{
    const uint_spec doc_spec = {"docID", 1, h->docs, "D in the header"};
    const uint_spec word_spec = {"wordID", 1, h->words, "W in the header"};
    const uint_spec count_spec = {"count", 0, UINT32_MAX, NULL};
    uint64_t doc, word, count;
    if (line_fields_uint(f, &doc_spec, &doc, err) < 0 ||
        line_fields_uint(f, &word_spec, &word, err) < 0 ||
        line_fields_uint(f, &count_spec, &count, err) < 0 || line_fields_end(f, err) < 0)
        return -1;
    *t = (uci_triple){(uint32_t)(doc - 1), (uint32_t)(word - 1), (uint32_t)count};
    return 0;
}

typedef struct {
    uci_triple *items;
    size_t len, cap;
    uint64_t tokens;     /* sum of counts */
    uint64_t doc_tokens; /* sum of the counts of the last triple's document since it began */
} triple_list;

static int push_triple(triple_list *l, uci_triple t, lda_error *err)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1 << 16;
        uci_triple *grown = cap <= SIZE_MAX / sizeof *grown ? realloc(l->items, cap * sizeof *grown)
                                                            : NULL;
        if (!grown) {
            lda_error_fail(err, "out of memory (%zu triples)", cap);
            return -1;
        }
        l->items = grown;
        l->cap = cap;
    }
    l->doc_tokens = l->len && l->items[l->len - 1].doc == t.doc ? l->doc_tokens + t.count : t.count;
    l->items[l->len++] = t;
    l->tokens += t.count;
    return 0;
}

/* Reads every triple after the header, checking their number against NNZ. */
static int read_triples(gzlines *r, const uci_header *h, triple_list *l, lda_error *err)
{
    const char *path = gzlines_path(r);
    uint64_t seen = 0;
    line_fields f;
    while (next_fields(r, TRIPLE_LAYOUT, &f, err)) {
        uci_triple t;
        if (seen == h->nnz) {
            lda_error_input(err, "%s:%zu: more triples than the header says (expected NNZ = "
                            "%llu, from line %zu)", path, gzlines_lineno(r),
                            (unsigned long long)h->nnz, h->lines[2]);
            return -1;
        }
        if (parse_triple(&f, h, &t, err) < 0)
            return -1;
        seen++;
        /* The counts are checked as they are read, before anything is expanded (memory once
         * the total is known); a document whose triples are apart is checked once sorted. */
        if (t.count > 0 && (push_triple(l, t, err) < 0 ||
                            corpus_check_tokens(r, l->doc_tokens, l->tokens, UINT64_MAX, err) < 0))
            return -1;
    }
    if (gzlines_failed(r))
        return -1;
    if (seen < h->nnz) {
        lda_error_input(err, "%s:%zu: the file ends after %llu triples (expected NNZ = %llu, "
                        "from line %zu)", path, gzlines_lineno(r), (unsigned long long)seen,
                        (unsigned long long)h->nnz, h->lines[2]);
        return -1;
    }
    uint64_t max_tokens;
    return corpus_token_budget(&max_tokens, err) < 0 || corpus_check_memory(path, 0, l->tokens, max_tokens, err) < 0
               ? -1
               : 0;
}

/* Stable bottom-up merge sort by document, so a document's triples keep their file order. */
static int sort_by_doc(triple_list *l, lda_error *err)
{
    int sorted = 1;
    for (size_t i = 1; i < l->len && sorted; i++)
        sorted = l->items[i - 1].doc <= l->items[i].doc;
    if (sorted)
        return 0;
    uci_triple *tmp = lda_malloc_array(l->len, sizeof *tmp, "sorting triples", err);
    if (!tmp)
        return -1;
    uci_triple *src = l->items, *dst = tmp;
    size_t n = l->len;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = mid + width < n ? mid + width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = src[j].doc < src[i].doc ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uci_triple *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != l->items)
        memcpy(l->items, src, n * sizeof *src);
    free(tmp);
    return 0;
}

/* Expands the sorted triples into documents; documents without triples count as empty. */
static corpus *build_corpus(const char *path, const triple_list *l, uint64_t num_docs, lda_error *err)
{
    for (size_t i = 0, start = 0; i < l->len; i++) {
        start = i && l->items[i].doc == l->items[i - 1].doc ? start : i;
        uint64_t doc_tokens = 0;
        if (i + 1 == l->len || l->items[i + 1].doc != l->items[i].doc) {
            for (size_t j = start; j <= i; j++)
                doc_tokens += l->items[j].count;
            if (doc_tokens > CORPUS_MAX_DOC_TOKENS) {
                lda_error_input(err, "%s: document %u has %llu tokens, more than the %llu one document may have",
                                path, l->items[i].doc + 1, (unsigned long long)doc_tokens,
                                (unsigned long long)CORPUS_MAX_DOC_TOKENS);
                return NULL;
            }
        }
    }
    corpus_builder b;
    if (corpus_builder_init(&b, CORPUS_FORMAT_UCI, err) < 0)
        return NULL;
    if (corpus_builder_reserve(&b, (size_t)l->tokens, err) < 0) {
        corpus_builder_discard(&b);
        return NULL;
    }
    uint64_t next_doc = 0;
    for (size_t i = 0; i < l->len;) {
        uint32_t doc = l->items[i].doc;
        corpus_builder_skip_empty_docs(&b, (size_t)(doc - next_doc));
        for (; i < l->len && l->items[i].doc == doc; i++)
            corpus_builder_add(&b, l->items[i].word, l->items[i].count, err); /* reserved */
        if (corpus_builder_end_doc(&b, err) < 0) {
            corpus_builder_discard(&b);
            return NULL;
        }
        next_doc = (uint64_t)doc + 1;
    }
    corpus_builder_skip_empty_docs(&b, (size_t)(num_docs - next_doc));
    return corpus_builder_finish(&b);
}

corpus *corpus_read_uci(const char *path, const char *vocab_path, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return NULL;
    uci_header h = {0};
    triple_list triples = {0};
    char **vocab = NULL;
    uint32_t vocab_size = 0;
    char reason[CORPUS_NOTE_MAX];
    corpus *c = NULL;
    if (read_header(r, &h, err) == 0) {
        snprintf(reason, sizeof reason, "W in %s:%zu", path, h.lines[1]);
        /* The vocabulary first: a missing one is reported without reading all triples. */
        int have_vocab = vocab_path ? vocab_file_read(vocab_path, (uint32_t)h.words, reason, &vocab, &vocab_size, err)
                                    : vocab_of_ids(1, (uint32_t)h.words, reason, &vocab, err);
        if (have_vocab == 0 && !vocab_path)
            vocab_size = (uint32_t)h.words;
        if (have_vocab == 0 && read_triples(r, &h, &triples, err) == 0 && sort_by_doc(&triples, err) == 0)
            c = build_corpus(path, &triples, h.docs, err);
    }
    gzlines_close(r);
    free(triples.items);
    if (!c) {
        free_strings(vocab, vocab_size);
        return NULL;
    }
    c->vocab = vocab;
    c->vocab_size = vocab_size;
    return c;
}
