/* corpus_detect.c — guessing a corpus's format from its first lines.
 *
 * UCI: the first three non-blank lines are each one non-negative integer (D, W, NNZ).
 * LDA-C: the first non-blank line is "N id:count ..." with at least one pair (a lone
 * number is more likely a line of text). Anything else is raw text, which reads any file,
 * so a wrong guess shows up as a strange vocabulary rather than a failure; the format can
 * always be named explicitly. */
#include <string.h>

#include "corpus/corpus_internal.h"
#include "util/fields.h"
#include "util/gzlines.h"

static int all_digits(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int is_one_integer(const gzlines *r, const char *line, size_t len)
{
    line_fields f;
    const char *field, *extra;
    size_t n, extra_len;
    line_fields_init(&f, r, "", line, len);
    return line_fields_next(&f, &field, &n) && all_digits(field, n) &&
           !line_fields_next(&f, &extra, &extra_len);
}

static int looks_like_ldac(const gzlines *r, const char *line, size_t len)
{
    line_fields f;
    const char *field;
    size_t n, pairs = 0;
    line_fields_init(&f, r, "", line, len);
    if (!line_fields_next(&f, &field, &n) || !all_digits(field, n))
        return 0;
    for (; line_fields_next(&f, &field, &n); pairs++) {
        const char *colon = memchr(field, ':', n);
        if (!colon || !all_digits(field, (size_t)(colon - field)) ||
            !all_digits(colon + 1, n - (size_t)(colon - field) - 1))
            return 0;
    }
    return pairs > 0;
}

/* The next line with something besides blanks; NULL at the end (or on an error). */
static char *next_nonblank(gzlines *r, size_t *len, lda_error *err)
{
    char *line;
    while ((line = gzlines_next(r, len, err)))
        if (!line_is_blank(line, *len))
            return line;
    return NULL;
}

int corpus_detect_format(const char *path, corpus_format *format, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    *format = CORPUS_FORMAT_TEXT;
    size_t len;
    char *line = next_nonblank(r, &len, err);
    if (line && looks_like_ldac(r, line, len)) {
        *format = CORPUS_FORMAT_LDAC;
    } else if (line && is_one_integer(r, line, len)) {
        int integers = 1;
        while (integers < 3 && (line = next_nonblank(r, &len, err)) && is_one_integer(r, line, len))
            integers++;
        if (integers == 3)
            *format = CORPUS_FORMAT_UCI;
    }
    int failed = gzlines_failed(r);
    gzlines_close(r);
    return failed ? -1 : 0;
}
