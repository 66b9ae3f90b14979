/* parse.c — checked numbers, lists and names; see parse.h. */
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* A value as a message shows it: one line, control and non-ASCII bytes as \xNN (a value read from
 * a file may hold anything, and an error message is one line). */
static const char *shown(const char *text, char buf[LDA_QUOTE_MAX])
{
    return lda_quote(text, strlen(text), buf);
}

int lda_parse_u64(const char *where, const char *text, uint64_t min, uint64_t max, uint64_t *out, lda_error *err)
{
    char *end;
    errno = 0;
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    unsigned long long v = *s == '-' ? 0 : strtoull(s, &end, 10);
    if (*s == '-' || *s == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max) {
        char q[LDA_QUOTE_MAX];
        lda_error_input(err, "%s: expected an integer from %llu to %llu, got '%s'", where,
                        (unsigned long long)min, (unsigned long long)max, shown(text, q));
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
        char q[LDA_QUOTE_MAX];
        if (isinf(max))
            lda_error_input(err, "%s: expected a number %s %g, got '%s'", where, min_open ? ">" : ">=", min,
                            shown(text, q));
        else
            lda_error_input(err, "%s: expected a number in %c%g, %g], got '%s'", where, min_open ? '(' : '[', min,
                            max, shown(text, q));
        return -1;
    }
    *out = v;
    return 0;
}

int lda_parse_choice(const char *where, const char *text, const lda_choice *table, int *out, lda_error *err)
{
    int v = lda_choice_parse(table, text);
    if (v < 0) {
        char list[256], q[LDA_QUOTE_MAX];
        lda_error_input(err, "%s: expected one of %s, got '%s'", where, lda_choice_list(table, list, sizeof list),
                        shown(text, q));
        return -1;
    }
    *out = v;
    return 0;
}

int lda_parse_flag_value(const char *where, const char *value, int *out, lda_error *err)
{
    static const char *yes[] = {"true", "yes", "1", "on"}, *no[] = {"false", "no", "0", "off"};
    if (!value) { /* a flag given on the command line without a value */
        *out = 1;
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        if (strcmp(value, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcmp(value, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    char q[LDA_QUOTE_MAX];
    lda_error_input(err, "%s: expected true or false, got '%s'", where, shown(value, q));
    return -1;
}

/* Appends v to a growing array. */
static int push_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v, lda_error *err)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        uint32_t *g = realloc(*a, c * sizeof *g);
        if (!g) {
            lda_error_fail(err, "out of memory");
            return -1;
        }
        *a = g;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

int lda_parse_u32_list(const char *where, const char *text, uint32_t min, uint32_t max, uint32_t **out, size_t *count,
                       lda_error *err)
{
    char *copy = strdup(text), *save = NULL;
    size_t n = 0, cap = 0;
    uint32_t *list = NULL;
    if (!copy) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        uint32_t v[3] = {0, 0, 1};
        int parts = 0;
        for (char *q = item, *colon; parts < 3; parts++) {
            colon = strchr(q, ':');
            if (colon)
                *colon = '\0';
            if (lda_parse_u32(where, q, parts == 2 ? 1 : min, max, &v[parts], err))
                goto fail;
            if (!colon) {
                parts++;
                break;
            }
            q = colon + 1;
        }
        if (parts == 1)
            v[1] = v[0];
        if (v[1] < v[0]) {
            char q[LDA_QUOTE_MAX];
            lda_error_input(err, "%s: range '%s' ends before it starts", where, shown(text, q));
            goto fail;
        }
        for (uint64_t x = v[0]; x <= v[1]; x += v[2])
            if (push_u32(&list, &n, &cap, (uint32_t)x, err))
                goto fail;
    }
    if (n == 0) {
        char q[LDA_QUOTE_MAX];
        lda_error_input(err, "%s: expected a list like 16,48,80 or 4:1024:4, got '%s'", where, shown(text, q));
        goto fail;
    }
    free(copy);
    *out = list;
    *count = n;
    return 0;
fail:
    free(copy);
    free(list);
    return -1;
}

int lda_parse_choice_list(const char *where, const char *text, const lda_choice *table, int **out, size_t *count,
                          lda_error *err)
{
    char *copy = strdup(text), *save = NULL;
    size_t n = 0;
    int *list = calloc(strlen(text) + 1, sizeof *list);
    if (!copy || !list) {
        free(copy);
        free(list);
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (lda_parse_choice(where, item, table, &list[n++], err)) {
            free(copy);
            free(list);
            return -1;
        }
    free(copy);
    if (n == 0) {
        free(list);
        char q[LDA_QUOTE_MAX];
        lda_error_input(err, "%s: expected a comma-separated list, got '%s'", where, shown(text, q));
        return -1;
    }
    *out = list;
    *count = n;
    return 0;
}
