/* corpus_cache.h — a corpus parsed once: its binary form (corpus_binary.h) kept in a file and
 * read instead of the source while it is still valid.
 *
 * Valid means "checked against the source": the cache's note is a key describing what the
 * reading depended on, and it must equal the key made now. The key holds the source's
 * absolute path, size and modification time (to the nanosecond, as the file system keeps it),
 * the format it reads as, the reader version (CORPUS_READERS_VERSION), and the options that
 * shape the result: for raw text the stop words (the list in use, stopwords.h, by its size and
 * checksum: the same words from a moved file are the same), the token pattern, pretokenized,
 * lowercase, minimum word length, min_df, max_df and max_vocab; for UCI and LDA-C the
 * vocabulary file (path, size and time, or none). When any differs the source is parsed
 * again and the cache rewritten. The key is made before the source is read, so a source that
 * changes while it is parsed leaves a cache that the next run finds stale.
 *
 * A cache that cannot be written, or a file at its path that is not a cache (another file, or
 * a binary corpus written by `ldagpu format` or `generate`: never overwritten, never read as a
 * cache), is not a failure: the corpus is read as without a cache and the report says why. A
 * cache is told by its note, whose first line starts with CORPUS_CACHE_NOTE. */
#ifndef LDA_CORPUS_CACHE_H
#define LDA_CORPUS_CACHE_H

#include "corpus/corpus.h"

/* Where `--cache VALUE` puts the cache of corpus_path: NULL for "off", CORPUS.cache.ldab beside
 * the corpus for "auto" (not CORPUS.ldab, format's), VALUE itself otherwise. *cache_path is
 * malloc'ed (NULL for off). */
#define CORPUS_CACHE_SUFFIX ".cache.ldab"
int corpus_cache_choose(const char *value, const char *corpus_path, char **cache_path, lda_error *err);

#define CORPUS_CACHE_NOTE "ldagpu corpus cache,"

typedef enum {
    CORPUS_CACHE_UNUSED,  /* the source was parsed; no cache written (why: the message) */
    CORPUS_CACHE_READ,    /* the cache was valid and read instead of the source */
    CORPUS_CACHE_WRITTEN, /* the source was parsed and the cache written (new, stale or damaged before) */
} corpus_cache_outcome;

typedef struct {
    corpus_cache_outcome outcome;
    int warning;      /* the message is a warning (the cache could not be written or used) */
    char message[1536]; /* one line for the user: what happened to the cache, and why */
} corpus_cache_report;

/* Reads path (corpus_read) through the cache at cache_path. NULL with err only when the corpus
 * cannot be read; report always says what happened to the cache. */
corpus *corpus_read_cached(const char *path, const corpus_options *opt, const char *cache_path,
                           corpus_cache_report *report, lda_error *err);

/* The key of path read with opt (the text described above; malloc'ed), for a cache's note;
 * *format gets the format path reads as. NULL with err when path cannot be described (a
 * missing file, or an undetectable one: reading it would fail the same way). */
char *corpus_cache_key(const char *path, const corpus_options *opt, corpus_format *format, lda_error *err);
/* The same description under another first line, for the note of a binary corpus that is not
 * a cache (`ldagpu format`'s): where it came from, and never taken for a cache. */
char *corpus_source_note(const char *path, const corpus_options *opt, corpus_format *format, lda_error *err);

#endif
