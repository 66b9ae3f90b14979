/* text_sniff.c — see text_sniff.h. */
#include "util/text_sniff.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *magic;
    size_t len;
    const char *what; /* the rest of the message after the file's name */
} known_format;

#define MAGIC(m) m, sizeof m - 1
#define NOT_TEXT "does not look like text: it starts like "
#define COMPRESSED(tool) ": ldagpu reads plain or gzip-compressed files (decompress it first: " tool ")"

static const known_format formats[] = {
    {MAGIC("%PDF-"), NOT_TEXT "a PDF document (convert it to text first)"},
    {MAGIC("\x7f" "ELF"), NOT_TEXT "an executable or library (ELF)"},
    {MAGIC("PK\x03\x04"), NOT_TEXT "a zip archive (docx, xlsx, odt and epub files are zip archives)"},
    {MAGIC("PK\x05\x06"), NOT_TEXT "a zip archive (docx, xlsx, odt and epub files are zip archives)"},
    {MAGIC("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), NOT_TEXT "a Microsoft Office document (doc, xls, ppt)"},
    {MAGIC("\x89PNG"), NOT_TEXT "a PNG image"},
    {MAGIC("\xff\xd8\xff"), NOT_TEXT "a JPEG image"},
    {MAGIC("GIF8"), NOT_TEXT "a GIF image"},
    {MAGIC("\x93NUMPY"), NOT_TEXT "a NumPy array (.npy)"},
    {MAGIC("LDAGPUCB"), NOT_TEXT "an ldagpu binary corpus"},
    {MAGIC("LDAGPUMX"), NOT_TEXT "an ldagpu matrix file"},
    {MAGIC("\xfd" "7zXZ"), "is compressed with xz" COMPRESSED("xz -d")},
    {MAGIC("\x28\xb5\x2f\xfd"), "is compressed with zstd" COMPRESSED("zstd -d")},
    {MAGIC("7z\xbc\xaf\x27\x1c"), "is a 7-Zip archive" COMPRESSED("7z x")},
};

/* bzip2: "BZh", a block size digit, then the block magic (π's digits in BCD). */
static int is_bzip2(const unsigned char *s, size_t len)
{
    return len >= 10 && memcmp(s, "BZh", 3) == 0 && s[3] >= '1' && s[3] <= '9' &&
           memcmp(s + 4, "1AY&SY", 6) == 0;
}

/* UTF-16 or UTF-32 by a byte-order mark, or UTF-16 by ASCII with a NUL beside every character:
 * "16" or "32", else NULL. */
static const char *wide_unicode(const unsigned char *s, size_t len)
{
    if (len >= 4 && ((s[0] == 0xff && s[1] == 0xfe && s[2] == 0 && s[3] == 0) ||
                     (s[0] == 0 && s[1] == 0 && s[2] == 0xfe && s[3] == 0xff)))
        return "32";
    if (len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff)))
        return "16";
    size_t n = len < 4096 ? len & ~(size_t)1 : 4096, zero[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        zero[i & 1] += s[i] == 0;
    const size_t half = n / 2;
    if (half >= 2 && ((4 * zero[1] >= 3 * half && 4 * zero[0] < half) || (4 * zero[0] >= 3 * half && 4 * zero[1] < half)))
        return "16";
    return NULL;
}

/* The length of the UTF-8 character at s (1..4), 0 when it is not one, or -1 when it is cut
 * off by the end of s. */
static int utf8_length(const unsigned char *s, size_t avail)
{
    const unsigned char c = s[0];
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++) {
        if ((size_t)i >= avail)
            return -1;
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    }
    return n;
}

static int is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f;
}

const char *lda_sniff_not_text(const char *text, size_t len, int complete, char why[LDA_SNIFF_REASON_MAX],
                               int *compressed)
{
    const unsigned char *s = (const unsigned char *)text;
    *compressed = 0;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (len >= formats[i].len && memcmp(s, formats[i].magic, formats[i].len) == 0) {
            snprintf(why, LDA_SNIFF_REASON_MAX, "%s", formats[i].what);
            *compressed = strncmp(formats[i].what, "is ", 3) == 0; /* the compressed formats' messages */
            return why;
        }
    if (is_bzip2(s, len)) {
        *compressed = 1;
        snprintf(why, LDA_SNIFF_REASON_MAX, "is compressed with bzip2" COMPRESSED("bzip2 -d"));
        return why;
    }
    const char *bits = wide_unicode(s, len);
    if (bits) {
        snprintf(why, LDA_SNIFF_REASON_MAX, "is UTF-%s text: ldagpu reads UTF-8 (convert it first: iconv -f UTF-%s "
                 "-t UTF-8)", bits, bits);
        return why;
    }
    const unsigned char *nul = memchr(s, 0, len);
    if (nul) {
        snprintf(why, LDA_SNIFF_REASON_MAX, "does not look like text: a NUL byte at offset %zu", (size_t)(nul - s));
        return why;
    }
    size_t odd = 0, seen = 0;
    for (size_t i = 0; i < len;) {
        int n = s[i] < 0x80 ? 1 : utf8_length(s + i, len - i);
        if (n < 0 && !complete)
            break; /* a character cut by the end of what was read */
        odd += n <= 0 || (n == 1 && is_control(s[i]));
        n = n <= 0 ? 1 : n;
        i += (size_t)n;
        seen = i;
    }
    if (100 * (uint64_t)odd <= LDA_SNIFF_MAX_ODD_PERCENT * (uint64_t)seen)
        return NULL;
    snprintf(why, LDA_SNIFF_REASON_MAX, "does not look like text: %.0f%% of its first %zu bytes are control characters "
             "or not UTF-8", 100.0 * (double)odd / (double)seen, seen);
    return why;
}
