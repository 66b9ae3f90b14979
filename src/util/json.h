/* json.h — writing JSON strings: one escaping for every JSON output (topics --format json,
 * export --pyldavis, the report's embedded data). */
#ifndef LDA_JSON_H
#define LDA_JSON_H

#include <stdio.h>

/* s as a JSON string literal: quotes, backslashes and control characters escaped; "</" as
 * "<\/" so the string can sit inside an HTML <script>; bytes that are not valid UTF-8 are
 * written as the Latin-1 characters they would be. */
void lda_json_string(FILE *f, const char *s);

#endif
