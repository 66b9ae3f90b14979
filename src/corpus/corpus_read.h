/* corpus_read.h — the front door: reading a corpus in any format (corpus.h has the type).
 *
 * Formats (corpus_format): raw text, one document per line; UCI bag-of-words (docword file
 * with a D/W/NNZ header, plus a vocabulary file); LDA-C (Blei's "N id:count ..." lines plus
 * a vocabulary file); ldagpu's binary corpus (corpus_binary.h: written by `ldagpu format`,
 * `ldagpu generate` and the cache, corpus_cache.h). Any text file may be gzip-compressed.
 * CORPUS_FORMAT_AUTO looks at the first bytes (binary) or lines. Errors name the file and line
 * ("FILE:LINE: ...") and carry status LDA_EXIT_BAD_INPUT. */
#ifndef LDA_CORPUS_READ_H
#define LDA_CORPUS_READ_H

#include "corpus/corpus.h"

/* What the readers make of a given input, as a version: bump it when a reader changes the
 * corpus it makes of the same bytes (tokenizer, detection, pruning), so that every cache made
 * by the old readers (corpus_cache.h) is found stale. */
/* 2: a stop-word file's words are lowercased as words are (Unicode), not only A-Z. */
#define CORPUS_READERS_VERSION 2

/* Reads a corpus; NULL on failure with err filled. */
corpus *corpus_read(const char *path, const corpus_options *opt, lda_error *err);

/* The format CORPUS_FORMAT_AUTO reads path as (corpus_detect.c): binary, UCI, LDA-C or text,
 * never a named text format (text_fields.h). */
int corpus_detect_format(const char *path, corpus_format *format, lda_error *err);

#endif
