/* vocab_file.h — the vocabulary files of the UCI and LDA-C formats: finding one next to
 * its corpus, and reading it (word i on line i). */
#ifndef LDA_VOCAB_FILE_H
#define LDA_VOCAB_FILE_H

#include <stdint.h>

#include "core/error.h"
#include "corpus/corpus.h"

/* The vocabulary of corpus_path when none was given: the first existing of the names that
 * corpus.h lists for the format. Returns a malloc'd path, or NULL with err naming the path
 * expected (status LDA_EXIT_BAD_INPUT) when there is none. */
char *vocab_path_find(const char *corpus_path, corpus_format format, lda_error *err);

/* Reads one word a line (surrounding blanks trimmed; blank lines after the last word are
 * ignored, a blank line before it is an error since ids are line numbers; the words as
 * vocab_check.h requires). With
 * expected_reason non-NULL the file must hold exactly `expected` words and the reason says
 * where that number comes from ("W in docword.kos.txt:2"); otherwise at least one word.
 * On success *words (owned by the caller) holds *count strings. */
int vocab_file_read(const char *path, uint32_t expected, const char *expected_reason,
                    char ***words, uint32_t *count, lda_error *err);

/* Whether a --vocab value means "no vocabulary file" ("none"): word ids name the words. */
int vocab_is_none(const char *vocab_path);

/* The vocabulary of a corpus without one: n words named by their ids as the corpus writes
 * them, first, first + 1, ... (UCI's ids start at 1, LDA-C's at 0). source says where n comes
 * from, for the message when memory runs out ("W in docword.kos.txt:2"). */
int vocab_of_ids(uint64_t first, uint32_t n, const char *source, char ***words, lda_error *err);

#endif
