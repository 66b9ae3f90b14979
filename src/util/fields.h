/* fields.h — splitting an input line into whitespace-separated fields and parsing unsigned
 * integers with range checks, shared by the UCI and LDA-C readers.
 *
 * Every failure becomes one message naming the file and line and saying what was expected,
 * e.g. "docword.kos.txt:17: wordID 7000 is out of range (expected 1..6906, W in the header)". */
#ifndef LDA_FIELDS_H
#define LDA_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "util/gzlines.h"

/* A cursor over one line. */
typedef struct {
    const gzlines *src;  /* names the file and line in messages */
    const char *layout;  /* what the line should be, for messages: "lines 'docID wordID count'" */
    const char *pos, *end;
} line_fields;

/* What an integer field must be. */
typedef struct {
    const char *name;       /* "wordID" */
    uint64_t min, max;
    const char *max_reason; /* why max is what it is ("W in the header"), or NULL */
} uint_spec;

/* Whether c separates fields: space, tab, '\r', '\v' or '\f'. */
int is_field_blank(char c);
/* Whether line[0..len) holds nothing but blanks. */
int line_is_blank(const char *line, size_t len);

void line_fields_init(line_fields *f, const gzlines *src, const char *layout, const char *line,
                      size_t len);
/* The next field in *field / *len; 0 when the line has no more. */
int line_fields_next(line_fields *f, const char **field, size_t *len);
/* Parses the next field as spec says; 0, or -1 with err (missing, not a number, out of range). */
int line_fields_uint(line_fields *f, const uint_spec *spec, uint64_t *out, lda_error *err);
/* 0 when no fields are left, else -1 with "unexpected extra field". */
int line_fields_end(line_fields *f, lda_error *err);
/* Fields are quoted in messages up to this many bytes: printf("'%.*s'", field_quote_len(n), s). */
int field_quote_len(size_t len);
/* Sets err to "PATH:LINE: <printf(fmt, ...)> (expected LAYOUT)" for f's line. */
void line_fields_fail(const line_fields *f, lda_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parses text[0..len) — a whole field or part of one, such as the id in LDA-C's "id:count" —
 * as spec says, reporting failures against f's line. */
int parse_uint_text(const line_fields *f, const char *text, size_t len, const uint_spec *spec,
                    uint64_t *out, lda_error *err);

#endif
