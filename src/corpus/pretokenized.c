/* pretokenized.c — see pretokenized.h. */
#include "corpus/pretokenized.h"

#include <stdint.h>

#include "corpus/unicode.h"

static int is_space_beyond_ascii(uint32_t cp)
{
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

int pretokenized_each(const char *text, size_t len, token_fn word, void *ctx, lda_error *err)
{
    size_t i = 0, start = 0;
    while (i < len) {
        const unsigned char c = (unsigned char)text[i];
        size_t gap; /* the separator's bytes: a space, or a byte that starts no valid UTF-8 sequence */
        if (c < 0x80) {
            if (c != ' ' && (c < '\t' || c > '\r')) {
                i++;
                continue;
            }
            gap = 1;
        } else {
            uint32_t cp;
            const size_t n = lda_utf8_decode((const unsigned char *)text + i, len - i, &cp);
            if (n && !is_space_beyond_ascii(cp)) {
                i += n;
                continue;
            }
            gap = n ? n : 1;
        }
        if (i > start && word(ctx, text + start, i - start, err) < 0)
            return -1;
        i += gap;
        start = i;
    }
    return i > start ? word(ctx, text + start, i - start, err) : 0;
}
