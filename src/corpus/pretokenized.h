/* pretokenized.h — text whose words are already made (--pretokenized): a word is whatever
 * whitespace separates, punctuation, digits and symbols included ("new_york", "C++",
 * "state-of-the-art"). Whitespace is Unicode's (White_Space: ASCII's, U+0085, U+00A0,
 * U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000); a byte that starts no valid
 * UTF-8 sequence separates words too, as in the built-in tokenizer. */
#ifndef LDA_PRETOKENIZED_H
#define LDA_PRETOKENIZED_H

#include <stddef.h>

#include "core/error.h"
#include "corpus/token_pattern.h" /* token_fn */

/* Calls word(ctx, start, len, err) for each word of text[0..len), in order; stops at the first
 * call that fails (-1). */
int pretokenized_each(const char *text, size_t len, token_fn word, void *ctx, lda_error *err);

#endif
