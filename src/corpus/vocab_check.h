/* vocab_check.h — what a word of a vocabulary may be, for every vocabulary ldagpu takes in (a
 * vocabulary file, a binary corpus's, a model's vocab.txt): not empty, without a control
 * character (a line break, tab or carriage return would cut vocab.txt's one word a line and
 * shift the columns of the tab-separated outputs), and not the same as another word (two ids
 * for one word cannot be told apart when a corpus is read against the model). So train never
 * writes a model that the other commands refuse. */
#ifndef LDA_VOCAB_CHECK_H
#define LDA_VOCAB_CHECK_H

#include <stdint.h>

#include "core/error.h"

/* How a failure names a word: by its line in a text file (word i on line i + 1), or by its id. */
typedef enum { VOCAB_BY_LINE, VOCAB_BY_ID } vocab_where;

/* 0 when words[0..n) break none of the rules; otherwise err (status 2) names path and the first
 * word that does. */
int vocab_check(char *const *words, uint32_t n, const char *path, vocab_where where, lda_error *err);

#endif
