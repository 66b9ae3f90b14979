/* corpus_detect.c — what a corpus file is, from its first block (gzlines_head), before the
 * reader reads it from the same open file: a stream is read once.
 *
 * Binary: the file starts with the magic of corpus_binary.h (no text format starts with it);
 * compressed with gzip, or coming through a pipe, it is refused with its own message, since
 * the binary reader reads a regular file by its size.
 * Not text: a PDF, an executable, UTF-16, ... (util/text_sniff.h) is refused with one line
 * that says what it looks like, unless --force-text asks for it to be read as text anyway.
 * UCI: the first three non-blank lines are each one non-negative integer (D, W, NNZ).
 * LDA-C: lines "N id:count ...". Anything else is raw text, which reads any file, so a wrong
 * guess shows up as a strange vocabulary or an empty corpus rather than an error at the line
 * that is wrong. That is why the guess is made from up to SAMPLE_LINES lines of the first
 * block, not the first line alone: a file mostly of one format is read as that format, whose
 * reader then names the line that breaks it (a bad header value of a UCI file, a bad pair on
 * the first line of an LDA-C file). The format can always be named explicitly. */
#include <string.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_internal.h"
#include "util/fields.h"
#include "util/gzlines.h"
#include "util/text.h"

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

/* The line format of the head's lines: its complete lines (and a last one cut off by the end of
 * the block only when there is no other: a first line longer than the block). */
static corpus_format guess_format(const gzlines *r, const char *head, size_t head_len, int complete)
{
    size_t count[4] = {0}, sampled = 0, header_integers = 0;
    const char *line = head, *end = head + head_len;
    if ((size_t)(end - line) >= LDA_UTF8_BOM_LEN && memcmp(line, LDA_UTF8_BOM, LDA_UTF8_BOM_LEN) == 0)
        line += LDA_UTF8_BOM_LEN;
    while (line < end && sampled < SAMPLE_LINES) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl && !complete && sampled > 0)
            break;
        size_t len = (size_t)((nl ? nl : end) - line);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (!line_is_blank(line, len)) {
            line_shape s = shape_of(r, line, len);
            header_integers += sampled < 3 && s == LINE_INTEGER;
            count[s]++;
            sampled++;
        }
        line = nl ? nl + 1 : end;
    }
    /* Strictly a UCI header; or more than half UCI triples after a header with a bad value; or
     * more than half LDA-C lines. */
    if (header_integers == 3 || (sampled > 3 && header_integers >= 1 && 2 * count[LINE_TRIPLE] > sampled - 3))
        return CORPUS_FORMAT_UCI;
    if (2 * count[LINE_LDAC] > sampled)
        return CORPUS_FORMAT_LDAC;
    return CORPUS_FORMAT_TEXT;
}

int corpus_detect(gzlines *r, const corpus_options *opt, corpus_format *format, lda_error *err)
{
    size_t len;
    int complete;
    const char *head = gzlines_head(r, &len, &complete, err);
    if (!head)
        return -1;
    const char *path = gzlines_path(r);
    const int auto_or_text = opt->format == CORPUS_FORMAT_AUTO || corpus_format_is_text(opt->format);
    *format = opt->format;
    if (len >= 8 && memcmp(head, CORPUS_BINARY_MAGIC, 8) == 0 && *format == CORPUS_FORMAT_AUTO) {
        if (gzlines_compressed(r))
            lda_error_input(err, "%s is an ldagpu binary corpus compressed with gzip: decompress it first (gunzip); "
                            "a binary corpus is read uncompressed", path);
        else if (gzlines_is_stream(r))
            lda_error_input(err, "%s is an ldagpu binary corpus coming through a pipe or device: a binary corpus is "
                            "read from a file (save it to one first)", path);
        else {
            *format = CORPUS_FORMAT_BINARY;
            return 0;
        }
        return -1;
    }
    if (!(opt->force_text && auto_or_text) &&
        gzlines_check_text(r, auto_or_text ? "--force-text reads it as text anyway" : NULL, err))
        return -1;
    if (*format == CORPUS_FORMAT_AUTO)
        *format = guess_format(r, head, len, complete);
    return 0;
}

int corpus_detect_format(const char *path, const corpus_options *opt, corpus_format *format, lda_error *err)
{
    gzlines *r = gzlines_open_unjudged(path, err);
    int rc = r ? corpus_detect(r, opt, format, err) : -1;
    gzlines_close(r);
    return rc;
}
