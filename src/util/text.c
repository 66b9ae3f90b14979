/* text.c — see text.h. */
#include "util/text.h"

#include <stdio.h>
#include <string.h>

char *lda_skip_bom(char *s)
{
    return strncmp(s, LDA_UTF8_BOM, LDA_UTF8_BOM_LEN) == 0 ? s + LDA_UTF8_BOM_LEN : s;
}

static int printable(unsigned char c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\t';
}

int lda_is_printable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!printable((unsigned char)s[i]))
            return 0;
    return 1;
}

const char *lda_quote(const char *s, size_t len, char buf[LDA_QUOTE_MAX])
{
    size_t n = 0, shown = len < LDA_QUOTE_BYTES ? len : LDA_QUOTE_BYTES;
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)s[i];
        if (printable(c) && c != '\\')
            buf[n++] = (char)c;
        else
            n += (size_t)snprintf(buf + n, LDA_QUOTE_MAX - n, "\\x%02x", c);
    }
    if (shown < len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}
