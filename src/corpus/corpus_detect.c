/* corpus_detect.c — guessing a corpus's format from its first lines.
 *
 * Binary: the file starts with the magic of corpus_binary.h (checked first; no text format
 * starts with it).
 * UCI: the first three non-blank lines are each one non-negative integer (D, W, NNZ).
 * LDA-C: lines "N id:count ...". Anything else is raw text, which reads any file, so a wrong
 * guess shows up as a strange vocabulary or an empty corpus rather than an error at the line
 * that is wrong. That is why the guess is made from up to SAMPLE_LINES lines, not the first
 * alone: a file mostly of one format is read as that format, whose reader then names the
 * line that breaks it (a bad header value of a UCI file, a bad pair on the first line of an
 * LDA-C file). The format can always be named explicitly. */
#include <string.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_internal.h"
#include "util/fields.h"
#include "util/gzlines.h"

enum { SAMPLE_LINES = 1000 };

static int all_digits(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Whether a field is "digits:digits". */
static int is_pair(const char *field, size_t n)
{
    const char *colon = memchr(field, ':', n);
    return colon && all_digits(field, (size_t)(colon - field)) &&
           all_digits(colon + 1, n - (size_t)(colon - field) - 1);
}

typedef enum { LINE_OTHER, LINE_INTEGER, LINE_TRIPLE, LINE_LDAC } line_shape;

/* An LDA-C line: a count, then fields of which at least one is an id:count pair (a line with
 * a malformed pair still counts, so that the LDA-C reader gets to report it). A UCI header
 * value is one integer, a UCI triple three. */
static line_shape shape_of(const gzlines *r, const char *line, size_t len)
{
    line_fields f;
    const char *field;
    size_t n, fields = 0, integers = 0, pairs = 0;
    int starts_with_integer = 0;
    line_fields_init(&f, r, "", line, len);
    for (; line_fields_next(&f, &field, &n); fields++) {
        int integer = all_digits(field, n);
        starts_with_integer |= fields == 0 && integer;
        integers += integer;
        pairs += fields > 0 && is_pair(field, n);
    }
    if (starts_with_integer && pairs > 0)
        return LINE_LDAC;
    if (integers == fields && fields == 1)
        return LINE_INTEGER;
    if (integers == fields && fields == 3)
        return LINE_TRIPLE;
    return LINE_OTHER;
}

int corpus_detect_format(const char *path, corpus_format *format, lda_error *err)
{
    if (corpus_binary_sniff(path)) {
        *format = CORPUS_FORMAT_BINARY;
        return 0;
    }
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    size_t count[4] = {0}, sampled = 0, header_integers = 0;
    char *line;
    size_t len;
    while (sampled < SAMPLE_LINES && (line = gzlines_next(r, &len, err))) {
        if (line_is_blank(line, len))
            continue;
        line_shape s = shape_of(r, line, len);
        header_integers += sampled < 3 && s == LINE_INTEGER;
        count[s]++;
        sampled++;
    }
    int failed = gzlines_failed(r);
    gzlines_close(r);
    /* Strictly a UCI header; or more than half UCI triples after a header with a bad value; or
     * more than half LDA-C lines. */
    if (header_integers == 3 || (sampled > 3 && header_integers >= 1 && 2 * count[LINE_TRIPLE] > sampled - 3))
        *format = CORPUS_FORMAT_UCI;
    else if (2 * count[LINE_LDAC] > sampled)
        *format = CORPUS_FORMAT_LDAC;
    else
        *format = CORPUS_FORMAT_TEXT;
    return failed ? -1 : 0;
}
