/* unicode.h — what the raw-text tokenizer needs of Unicode: decoding UTF-8, telling word
 * characters (letters and combining marks) from the rest, and lowercasing, from compact
 * tables generated from the Unicode Character Database (unicode_tables.c, written by
 * scripts/gen-unicode-tables.py; lda_unicode_version says which version).
 *
 * Lowercasing is the simple (one code point to one) lowercase mapping of every script that
 * has case: Latin, Greek, Cyrillic, Armenian, Georgian, Cherokee, Glagolitic, Coptic, Deseret,
 * Osage, Adlam and the rest; a table of runs (code points first..last, all or every other one,
 * map to themselves plus delta) searched by bisection. */
#ifndef LDA_UNICODE_H
#define LDA_UNICODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef enum { LDA_NOT_WORD = 0, LDA_LETTER = 1, LDA_MARK = 2 } lda_word_kind;

typedef struct {
    uint32_t first, last;
    uint8_t kind; /* lda_word_kind */
} lda_word_range;

typedef struct {
    uint32_t first, last;
    int32_t delta;
    uint8_t stride; /* 1: every code point of the run; 2: every other one from first */
} lda_case_run;

extern const char lda_unicode_version[];
extern const lda_word_range lda_word_ranges[];
extern const unsigned lda_num_word_ranges;
extern const lda_case_run lda_lower_runs[];
extern const unsigned lda_num_lower_runs;

/* Letters (general category L*) and combining marks (M*); everything else is not part of a
 * word. */
lda_word_kind lda_unicode_word_kind(uint32_t cp);

/* The simple lowercase mapping of cp (cp itself when it has none). */
uint32_t lda_unicode_lower(uint32_t cp);

/* Decodes the UTF-8 sequence at s[0..len): returns its length (1 to 4) with *cp, or 0 when
 * s[0] does not start a valid sequence (a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, or a sequence cut short). */
size_t lda_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Writes cp as UTF-8 into out (room for 4 bytes); returns the length. */
size_t lda_utf8_encode(uint32_t cp, char *out);

/* Greek small sigma, and the form it takes at the end of a word. */
enum { LDA_SMALL_SIGMA = 0x3C3, LDA_FINAL_SIGMA = 0x3C2 };

/* The characters of the word s[0..len): code points, combining marks not counted, a byte
 * that starts no valid UTF-8 sequence counted as one. */
size_t lda_utf8_chars(const char *s, size_t len);

/* The word s[0..len) lowercased into out (room for 2 * len bytes: a lowercase character is
 * at most one byte longer than its capital, 2 -> 3): each code point by lda_unicode_lower, a
 * σ ending a word of more than one character written ς, a byte that starts no valid UTF-8
 * sequence copied as it is. Returns the bytes written; *chars (when not NULL) gets what
 * lda_utf8_chars says of the word. */
size_t lda_utf8_lower(const char *s, size_t len, char *out, size_t *chars);

/* Grows *buf (of *cap bytes; realloc'ed) to hold len bytes lowercased (2 * len, and a little
 * more). 0, or -1 with err. */
int lda_utf8_lower_room(char **buf, size_t *cap, size_t len, lda_error *err);

#endif
