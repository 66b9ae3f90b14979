/* corpus_read.c — the front door of the corpus readers (corpus_read.h): checks the options,
 * detects the format, picks the reader, finds the vocabulary file, applies a fixed
 * vocabulary and refuses an empty result. The readers themselves are corpus_text.c,
 * corpus_uci.c, corpus_ldac.c and corpus_binary.c; the type they build is corpus.c's. */
#include "corpus/corpus_read.h"

#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_internal.h"
#include "corpus/vocab_check.h"
#include "corpus/vocab_file.h"
#include "util/atomic_file.h"

static int check_options(const corpus_options *opt, lda_error *err)
{
    if ((unsigned)opt->format >= CORPUS_FORMAT_COUNT)
        lda_error_input(err, "unknown corpus format %d", (int)opt->format);
    else if (opt->min_word_len < 1)
        lda_error_input(err, "min_word_len must be at least 1 (got %d)", opt->min_word_len);
    else if (opt->min_df < 1)
        lda_error_input(err, "min_df must be at least 1 (got %zu)", opt->min_df);
    else if (!(opt->max_df > 0 && opt->max_df <= 1))
        lda_error_input(err, "max_df must be a fraction in (0, 1] (got %g)", opt->max_df);
    else if (opt->fixed_vocab && opt->fixed_vocab_size == 0)
        lda_error_input(err, "the fixed vocabulary is empty");
    else if (opt->token_pattern && opt->pretokenized)
        lda_error_input(err, "a token pattern and pretokenized input exclude each other");
    else
        return 0;
    return -1;
}

/* One message for every format: how many documents there were, and (from the reader)
 * where the tokens went, since "empty" after pruning usually means options that do not
 * suit a small corpus. */
static int require_tokens(const corpus *c, const char *path, const char *note, lda_error *err)
{
    if (c->num_tokens > 0)
        return 0;
    if (c->num_input_docs == 0)
        lda_error_input(err, "%s: the corpus is empty (no documents)", path);
    else
        lda_error_input(err, "%s: the corpus is empty (%zu document%s, no tokens%s%s)", path,
                        c->num_input_docs, c->num_input_docs == 1 ? "" : "s", note[0] ? "; " : "",
                        note);
    return -1;
}

/* UCI and LDA-C: the vocabulary file given, the one found beside the corpus, or none
 * (--vocab none). The corpus is open already: a missing one was reported, not the vocabulary
 * not found beside it. */
static corpus *read_with_vocab_file(gzlines *r, corpus_format format, const corpus_options *opt,
                                    char note[CORPUS_NOTE_MAX], lda_error *err)
{
    const char *path = gzlines_path(r);
    char *vocab = NULL; /* stays NULL with --vocab none: the readers name words by their ids */
    if (!vocab_is_none(opt->vocab_path)) {
        vocab = opt->vocab_path ? strdup(opt->vocab_path) : vocab_path_find(path, format, err);
        if (!vocab) {
            if (opt->vocab_path)
                lda_error_fail(err, "out of memory (a file name)");
            return NULL;
        }
    }
    corpus *c = format == CORPUS_FORMAT_UCI ? corpus_read_uci(r, vocab, err) : corpus_read_ldac(r, vocab, err);
    free(vocab);
    if (c && opt->fixed_vocab && corpus_map_to_fixed_vocab(c, opt, note, err) < 0) {
        corpus_free(c);
        return NULL;
    }
    return c;
}

/* A binary corpus holds its vocabulary: a vocabulary file given for it is a mistake. */
static corpus *read_binary(const char *path, const corpus_options *opt, char note[CORPUS_NOTE_MAX], lda_error *err)
{
    if (opt->vocab_path && !vocab_is_none(opt->vocab_path)) {
        lda_error_input(err, "%s: a binary corpus holds its own vocabulary; the vocabulary file %s does not apply",
                        path, opt->vocab_path);
        return NULL;
    }
    corpus *c = corpus_binary_read(path, err);
    if (c && (vocab_check(c->vocab, c->vocab_size, path, VOCAB_BY_ID, err) < 0 ||
              (opt->fixed_vocab && corpus_map_to_fixed_vocab(c, opt, note, err) < 0))) {
        corpus_free(c);
        return NULL;
    }
    return c;
}

/* The file is opened once, its format detected from its first block, and the reader reads on
 * from that open file (a pipe cannot be read twice); a binary corpus is read by its own reader,
 * by its size. */
corpus *corpus_read_as(const char *path, const corpus_options *opt, corpus_format text_as, corpus_format *read_as,
                       lda_error *err)
{
    if (read_as)
        *read_as = opt->format;
    if (check_options(opt, err) < 0 || lda_atomic_protect(path, "the corpus", err)) /* no output replaces it */
        return NULL;
    corpus_format format = opt->format;
    gzlines *r = NULL;
    if (format != CORPUS_FORMAT_BINARY &&
        (!(r = gzlines_open_unjudged(path, err)) || corpus_detect(r, opt, &format, err) < 0)) {
        gzlines_close(r);
        return NULL;
    }
    if (opt->format == CORPUS_FORMAT_AUTO && format == CORPUS_FORMAT_TEXT)
        format = text_as;
    if (read_as)
        *read_as = format;
    char note[CORPUS_NOTE_MAX] = "";
    corpus *c = NULL;
    if (corpus_format_is_text(format)) {
        corpus_options as_read = *opt; /* the text reader splits off a named format's fields */
        as_read.format = format;
        c = corpus_read_text(r, &as_read, note, err);
    } else {
        c = format == CORPUS_FORMAT_BINARY ? read_binary(path, opt, note, err)
                                           : read_with_vocab_file(r, format, opt, note, err);
    }
    gzlines_close(r);
    if (c && require_tokens(c, path, note, err) < 0) {
        corpus_free(c);
        return NULL;
    }
    if (c)
        c->format = format;
    return c;
}

corpus *corpus_read(const char *path, const corpus_options *opt, lda_error *err)
{
    return corpus_read_as(path, opt, CORPUS_FORMAT_TEXT, NULL, err);
}
