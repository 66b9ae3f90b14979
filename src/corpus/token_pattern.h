/* token_pattern.h — words as the matches of a regular expression (--token-pattern, Mallet's
 * --token-regex), by PCRE2.
 *
 * The pattern is compiled once in UTF mode with Unicode properties (\p{L}, and \w, \d, \b by
 * Unicode: PCRE2_UCP), JIT-compiled where PCRE2 can. It runs over a whole line, left to right:
 * each match (the whole match; groups change nothing) is a word, the next search starting
 * where it ended. Empty matches are never words (PCRE2_NOTEMPTY: the search moves on), so a
 * pattern that can match the empty string cannot loop. Bytes that start no valid UTF-8
 * sequence are never part of a match (PCRE2_MATCH_INVALID_UTF), as they separate words in the
 * built-in tokenizer. A token_pattern holds its own match data: one for each thread reading. */
#ifndef LDA_TOKEN_PATTERN_H
#define LDA_TOKEN_PATTERN_H

#include <stddef.h>

#include "core/error.h"

typedef struct token_pattern token_pattern;

/* NULL with err (status 2) when the pattern does not compile: PCRE2's message and the offset
 * in the pattern where it stopped. */
token_pattern *token_pattern_compile(const char *pattern, lda_error *err);
void token_pattern_free(token_pattern *p);

/* Calls word(ctx, start, len, err) for each match in text[0..len), in order; stops at the
 * first call that fails. 0, or -1 with err: the callback's, or a match that PCRE2 could not
 * finish (a pattern that backtracks without bound meets PCRE2's match limit), which names the
 * text as "PATH:LINE". */
typedef int (*token_fn)(void *ctx, const char *word, size_t len, lda_error *err);
int token_pattern_each(token_pattern *p, const char *text, size_t len, const char *path, size_t line, token_fn word,
                       void *ctx, lda_error *err);

#endif
