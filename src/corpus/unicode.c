/* unicode.c — see unicode.h. */
#include "corpus/unicode.h"

#include <stdlib.h>

lda_word_kind lda_unicode_word_kind(uint32_t cp)
{
    unsigned lo = 0, hi = lda_num_word_ranges; /* the first range with last >= cp */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (lda_word_ranges[mid].last < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lda_num_word_ranges && lda_word_ranges[lo].first <= cp ? (lda_word_kind)lda_word_ranges[lo].kind
                                                                         : LDA_NOT_WORD;
}

uint32_t lda_unicode_lower(uint32_t cp)
{
    unsigned lo = 0, hi = lda_num_lower_runs;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (lda_lower_runs[mid].last < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == lda_num_lower_runs)
        return cp;
    const lda_case_run *r = &lda_lower_runs[lo];
    if (cp < r->first || (cp - r->first) % r->stride != 0)
        return cp;
    return (uint32_t)((int32_t)cp + r->delta);
}

size_t lda_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0; /* a continuation byte, C0, C1 (always overlong) or F5..FF */
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

size_t lda_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t lda_utf8_chars(const char *s, size_t len)
{
    size_t chars = 0;
    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) { /* ASCII, the short way */
            chars++;
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = lda_utf8_decode((const unsigned char *)s + i, len - i, &cp);
        chars += n == 0 || lda_unicode_word_kind(cp) != LDA_MARK;
        i += n ? n : 1;
    }
    return chars;
}

size_t lda_utf8_lower(const char *s, size_t len, char *out, size_t *chars_out)
{
    size_t bytes = 0, last = 0, chars = 0;
    uint32_t last_cp = 0;
    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) { /* a run of ASCII, the short way */
            const size_t start = i;
            do {
                const unsigned char c = (unsigned char)s[i];
                out[bytes++] = (char)((unsigned)(c - 'A') < 26u ? c | 0x20 : c);
            } while (++i < len && (unsigned char)s[i] < 0x80);
            chars += i - start;
            last_cp = 0;
            continue;
        }
        last = bytes;
        uint32_t cp;
        size_t n = lda_utf8_decode((const unsigned char *)s + i, len - i, &cp);
        if (n == 0) {
            out[bytes++] = s[i++];
            last_cp = 0;
            chars++;
            continue;
        }
        chars += lda_unicode_word_kind(cp) != LDA_MARK;
        last_cp = lda_unicode_lower(cp);
        bytes += lda_utf8_encode(last_cp, out + bytes);
        i += n;
    }
    if (last_cp == LDA_SMALL_SIGMA && chars > 1)
        bytes = last + lda_utf8_encode(LDA_FINAL_SIGMA, out + last);
    if (chars_out)
        *chars_out = chars;
    return bytes;
}

int lda_utf8_lower_room(char **buf, size_t *cap, size_t len, lda_error *err)
{
    if (*cap >= 2 * len + 8)
        return 0;
    char *grown = realloc(*buf, 2 * len + 64);
    if (!grown) {
        lda_error_fail(err, "out of memory (lowercasing %zu bytes)", len);
        return -1;
    }
    *buf = grown;
    *cap = 2 * len + 64;
    return 0;
}
