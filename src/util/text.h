/* text.h — small pieces of handling text from files: a UTF-8 byte-order mark, and quoting
 * untrusted bytes in a message so that a binary file or a terminal escape sequence cannot
 * garble the one line an error is. */
#ifndef LDA_TEXT_H
#define LDA_TEXT_H

#include <stddef.h>

/* Room for a quotation: up to LDA_QUOTE_BYTES input bytes, each at most 4 characters, "...". */
enum { LDA_QUOTE_BYTES = 40, LDA_QUOTE_MAX = 4 * LDA_QUOTE_BYTES + 4 };

/* The UTF-8 byte-order mark "\xEF\xBB\xBF" (some editors write it at the start of a file). */
#define LDA_UTF8_BOM "\xEF\xBB\xBF"
enum { LDA_UTF8_BOM_LEN = 3 };

/* s past a leading byte-order mark (s itself when it has none). */
char *lda_skip_bom(char *s);

/* Whether s[0..len) is printable ASCII (space included, tab too). */
int lda_is_printable(const char *s, size_t len);

/* s[0..len) for a message: printable ASCII as is, other bytes as \xNN, cut after
 * LDA_QUOTE_BYTES bytes with "...". Returns buf. */
const char *lda_quote(const char *s, size_t len, char buf[LDA_QUOTE_MAX]);

#endif
