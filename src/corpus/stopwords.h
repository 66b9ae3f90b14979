/* stopwords.h — the stop words dropped by the raw-text tokenizer: the built-in English list
 * (data/stopwords.txt compiled in by the Makefile), a user's file, or none, and the words of
 * an extra file added to it (corpus_options.stopwords_path, extra_stopwords_path).
 *
 * A list is kept lowercased (lda_utf8_lower, as words are), sorted and without repeats: what a
 * model folder keeps (stopwords.txt, model/model_stopwords.h) and a cache key describes. Words
 * are matched whatever their case, so a list means the same with and without lowercasing. */
#ifndef LDA_STOPWORDS_H
#define LDA_STOPWORDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "corpus/corpus.h"

/* Generated from data/stopwords.txt (build/.../gen/stopwords_data.c). */
extern const char *const lda_builtin_stopwords[];
extern const size_t lda_builtin_stopwords_count;

typedef struct {
    char **words; /* lowercased, sorted by their bytes, each once */
    size_t count;
} stopword_list;

/* The list opt names: the built-in one when stopwords_path is NULL, none when it is "none",
 * else the words of the file (whitespace-separated, '#' starts a comment, gzip allowed); then
 * the words of extra_stopwords_path, if set. 0, or -1 with err (a file that cannot be read). */
int stopword_list_load(stopword_list *l, const corpus_options *opt, lda_error *err);
void stopword_list_free(stopword_list *l);

int stopword_list_equal(const stopword_list *a, const stopword_list *b);
/* The CRC-32 of the words: which list, in a cache key. */
uint32_t stopword_list_crc(const stopword_list *l);

/* Writes the list to path, a word a line after a comment line, atomically (atomic_file.h):
 * read back as a stop-word file it gives the same list. */
int stopword_list_write(const stopword_list *l, const char *path, lda_error *err);

#endif
