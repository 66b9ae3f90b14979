/* fields.c — whitespace-separated fields and checked unsigned integers; see fields.h.
 *
 * Only plain decimal digits are accepted: strtoull alone would also take leading blanks,
 * a '+', and a '-' that silently wraps around, so the digits are checked first and
 * strtoull (with its end pointer and ERANGE) does the conversion and overflow check. */
#include "util/fields.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { QUOTE_MAX = 40 };

int is_field_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

int field_quote_len(size_t len) { return len > QUOTE_MAX ? QUOTE_MAX : (int)len; }

void line_fields_fail(const line_fields *f, lda_error *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    lda_error_input(err, "%s:%zu: %s (expected %s)", gzlines_path(f->src), gzlines_lineno(f->src),
                    what, f->layout);
}

int line_is_blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_field_blank(line[i]))
            return 0;
    return 1;
}

void line_fields_init(line_fields *f, const gzlines *src, const char *layout, const char *line,
                      size_t len)
{
    f->src = src;
    f->layout = layout;
    f->pos = line;
    f->end = line + len;
}

int line_fields_next(line_fields *f, const char **field, size_t *len)
{
    const char *p = f->pos;
    while (p < f->end && is_field_blank(*p))
        p++;
    const char *start = p;
    while (p < f->end && !is_field_blank(*p))
        p++;
    f->pos = p;
    *field = start;
    *len = (size_t)(p - start);
    return *len > 0;
}

int parse_uint_text(const line_fields *f, const char *text, size_t len, const uint_spec *spec,
                    uint64_t *out, lda_error *err)
{
    if (len == 0) {
        line_fields_fail(f, err, "missing %s", spec->name);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') {
            line_fields_fail(f, err, "%s '%.*s' is not a non-negative integer", spec->name,
                             field_quote_len(len), text);
            return -1;
        }
    }
    /* The byte after the digits is a separator or the line's NUL, so strtoull stops there. */
    char *stop = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &stop, 10);
    if (stop != text + len || errno == ERANGE || value < spec->min || value > spec->max) {
        lda_error_input(err, "%s:%zu: %s %.*s is out of range (expected %llu..%llu%s%s)",
                        gzlines_path(f->src), gzlines_lineno(f->src), spec->name,
                        field_quote_len(len), text, (unsigned long long)spec->min,
                        (unsigned long long)spec->max, spec->max_reason ? ", " : "",
                        spec->max_reason ? spec->max_reason : "");
        return -1;
    }
    *out = value;
    return 0;
}

int line_fields_uint(line_fields *f, const uint_spec *spec, uint64_t *out, lda_error *err)
{
    const char *field;
    size_t len;
    line_fields_next(f, &field, &len);
    return parse_uint_text(f, field, len, spec, out, err);
}

int line_fields_end(line_fields *f, lda_error *err)
{
    const char *field;
    size_t len;
    if (!line_fields_next(f, &field, &len))
        return 0;
    line_fields_fail(f, err, "unexpected extra field '%.*s'", field_quote_len(len), field);
    return -1;
}
