/* pretokenized.c — see pretokenized.h. */
#include "corpus/pretokenized.h"

#include <stdint.h>

#include "corpus/unicode.h"

static int is_space_beyond_ascii(uint32_t cp)
{
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* The length of the separator at s[0..len): a space or an invalid byte; 0 for a word's byte
 * (*next then gets the length of its character). */
static size_t separator_at(const char *s, size_t len, size_t *next)
{
    unsigned char c = (unsigned char)s[0];
    *next = 1;
    if (c < 0x80)
        return c == ' ' || (c >= '\t' && c <= '\r');
    uint32_t cp;
    size_t n = lda_utf8_decode((const unsigned char *)s, len, &cp);
    if (n == 0)
        return 1;
    *next = n;
    return is_space_beyond_ascii(cp) ? n : 0;
}

int pretokenized_each(const char *text, size_t len, token_fn word, void *ctx, lda_error *err)
{
    size_t i = 0, start = 0;
    while (i < len) {
        size_t next, gap = separator_at(text + i, len - i, &next);
        if (gap) {
            if (i > start && word(ctx, text + start, i - start, err) < 0)
                return -1;
            i += gap;
            start = i;
        } else {
            i += next;
        }
    }
    return i > start ? word(ctx, text + start, i - start, err) : 0;
}
