/* json.c — see json.h. */
#include "util/json.h"

void lda_json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        unsigned char ch = *p;
        if (ch == '"' || ch == '\\') {
            fprintf(f, "\\%c", ch);
            p++;
        } else if (ch == '/' && p != (const unsigned char *)s && p[-1] == '<') {
            fputs("\\/", f);
            p++;
        } else if (ch < 0x20) {
            fprintf(f, "\\u%04x", ch);
            p++;
        } else if (ch < 0x80) {
            fputc(ch, f);
            p++;
        } else {
            int n = ch >= 0xF0 && ch < 0xF5 ? 4 : ch >= 0xE0 && ch < 0xF0 ? 3 : ch >= 0xC2 && ch < 0xE0 ? 2 : 0;
            int ok = n > 0;
            for (int i = 1; ok && i < n; i++)
                ok = (p[i] & 0xC0) == 0x80;
            if (ok) {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            } else {
                fprintf(f, "\\u%04x", ch);
                p++;
            }
        }
    }
    fputc('"', f);
}
