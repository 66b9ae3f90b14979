/* cli_parse.c — see cli_parse.h. */
#include "cli_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int lda_parse_u64(const char *where, const char *text, uint64_t min, uint64_t max, uint64_t *out, lda_error *err)
{
    char *end;
    errno = 0;
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    unsigned long long v = *s == '-' ? 0 : strtoull(s, &end, 10);
    if (*s == '-' || *s == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max) {
        lda_error_input(err, "%s: expected an integer from %llu to %llu, got '%s'", where,
                        (unsigned long long)min, (unsigned long long)max, text);
        return -1;
    }
    *out = v;
    return 0;
}

int lda_parse_u32(const char *where, const char *text, uint32_t min, uint32_t max, uint32_t *out, lda_error *err)
{
    uint64_t v;
    if (lda_parse_u64(where, text, min, max, &v, err))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int lda_parse_double(const char *where, const char *text, double min, int min_open, double max, double *out,
                     lda_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    int bad = end == text || *end != '\0' || errno == ERANGE || !isfinite(v) || v > max ||
              (min_open ? v <= min : v < min);
    if (bad) {
        if (isinf(max))
            lda_error_input(err, "%s: expected a number %s %g, got '%s'", where, min_open ? ">" : ">=", min, text);
        else
            lda_error_input(err, "%s: expected a number in %c%g, %g], got '%s'", where, min_open ? '(' : '[', min,
                            max, text);
        return -1;
    }
    *out = v;
    return 0;
}

int lda_parse_choice(const char *where, const char *text, const lda_choice *table, int *out, lda_error *err)
{
    int v = lda_choice_parse(table, text);
    if (v < 0) {
        char list[256];
        lda_error_input(err, "%s: expected one of %s, got '%s'", where, lda_choice_list(table, list, sizeof list),
                        text);
        return -1;
    }
    *out = v;
    return 0;
}
