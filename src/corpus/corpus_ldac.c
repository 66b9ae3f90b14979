/* corpus_ldac.c — the LDA-C format of Blei's lda-c: one document a line,
 * "N id:count id:count ..." with N the number of pairs and 0-based word ids into a
 * vocabulary file of one word a line. A blank line (or "0") is an empty document.
 *
 * The vocabulary is read first so that every id can be checked as its line is read. Without
 * one (--vocab none) the vocabulary is the ids 0 .. the largest id used, named by their
 * numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_internal.h"
#include "corpus/vocab_file.h"
#include "util/fields.h"
#include "util/gzlines.h"

static const char LAYOUT[] = "lines 'N id:count id:count ...'";

/* Parses one "id:count" field into its word and count. */
static int parse_pair(const line_fields *f, const char *field, size_t len,
                      const uint_spec *id_spec, uint64_t *id, uint64_t *count, lda_error *err)
{
    static const uint_spec count_spec = {"count", 1, UINT32_MAX, NULL};
    const char *colon = memchr(field, ':', len);
    if (!colon) {
        line_fields_fail(f, err, "'%.*s' is not an id:count pair", field_quote_len(len), field);
        return -1;
    }
    size_t id_len = (size_t)(colon - field);
    return parse_uint_text(f, field, id_len, id_spec, id, err) < 0 ||
                   parse_uint_text(f, colon + 1, len - id_len - 1, &count_spec, count, err) < 0
               ? -1
               : 0;
}

/* Appends the tokens of one non-blank document line to the current document. */
static int read_document(line_fields *f, const uint_spec *id_spec, corpus_builder *b,
                         uint64_t *max_id, lda_error *err)
{
    static const uint_spec n_spec = {"N", 0, UINT32_MAX, NULL};
    uint64_t n;
    if (line_fields_uint(f, &n_spec, &n, err) < 0)
        return -1;
    const char *field;
    size_t len;
    uint64_t pairs = 0;
    for (; line_fields_next(f, &field, &len); pairs++) {
        uint64_t id, count;
        if (parse_pair(f, field, len, id_spec, &id, &count, err) < 0 ||
            corpus_builder_add(b, (uint32_t)id, (size_t)count, err) < 0)
            return -1;
        if (id > *max_id)
            *max_id = id;
    }
    if (pairs != n) {
        lda_error_input(err, "%s:%zu: N = %llu but the line has %llu id:count pairs (expected "
                        "N to be the number of pairs)", gzlines_path(f->src),
                        gzlines_lineno(f->src), (unsigned long long)n, (unsigned long long)pairs);
        return -1;
    }
    return 0;
}

/* Reads every document; *max_id gets the largest word id used (0 when none is). Without a
 * vocabulary file (vocab_path NULL) ids go up to the largest a corpus can have. */
static int read_documents(gzlines *r, uint32_t vocab_size, const char *vocab_path,
                          corpus_builder *b, uint64_t *max_id, lda_error *err)
{
    char reason[CORPUS_NOTE_MAX];
    snprintf(reason, sizeof reason, "%s has %u words", vocab_path ? vocab_path : "", (unsigned)vocab_size);
    const uint_spec id_spec = vocab_path ? (uint_spec){"word id", 0, vocab_size - 1, reason}
                                         : (uint_spec){"word id", 0, CORPUS_NO_WORD - 2, NULL};
    *max_id = 0;
    char *line;
    size_t len;
    while ((line = gzlines_next(r, &len, err))) {
        line_fields f;
        line_fields_init(&f, r, LAYOUT, line, len);
        if (!line_is_blank(line, len) && read_document(&f, &id_spec, b, max_id, err) < 0)
            return -1;
        if (corpus_builder_end_doc(b, err) < 0)
            return -1;
    }
    return gzlines_failed(r) ? -1 : 0;
}

corpus *corpus_read_ldac(const char *path, const char *vocab_path, lda_error *err)
{
    char **vocab = NULL;
    uint32_t vocab_size = 0;
    uint64_t max_id;
    if (vocab_path && vocab_file_read(vocab_path, 0, NULL, &vocab, &vocab_size, err) < 0)
        return NULL;
    corpus_builder b;
    gzlines *r = NULL;
    if (corpus_builder_init(&b, CORPUS_FORMAT_LDAC, err) < 0) {
        free_strings(vocab, vocab_size);
        return NULL;
    }
    r = gzlines_open(path, err);
    b.src = r; /* each line's pairs are checked before they are expanded */
    int failed = !r || corpus_token_budget(&b.max_tokens, err) < 0 ||
                 read_documents(r, vocab_size, vocab_path, &b, &max_id, err) < 0;
    if (!failed && !vocab_path) {
        vocab_size = (uint32_t)max_id + 1;
        char source[CORPUS_NOTE_MAX];
        snprintf(source, sizeof source, "the largest word id in %s", path);
        failed = vocab_of_ids(0, vocab_size, source, &vocab, err) < 0;
    }
    if (failed) {
        gzlines_close(r);
        corpus_builder_discard(&b);
        free_strings(vocab, vocab_size);
        return NULL;
    }
    gzlines_close(r);
    corpus *c = corpus_builder_finish(&b);
    c->vocab = vocab;
    c->vocab_size = vocab_size;
    return c;
}
