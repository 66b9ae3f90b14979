/* config_file.c — see config_file.h. */
#include "util/config_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* A copy of value owned by keep (value itself without keep). */
static const char *kept(lda_config_values *keep, const char *value, lda_error *err)
{
    if (!keep)
        return value;
    if (keep->count == keep->cap) {
        size_t cap = keep->cap ? 2 * keep->cap : 16;
        char **grown = realloc(keep->items, cap * sizeof *grown);
        if (!grown) {
            lda_error_fail(err, "out of memory (configuration values)");
            return NULL;
        }
        keep->items = grown;
        keep->cap = cap;
    }
    char *copy = strdup(value);
    if (!copy) {
        lda_error_fail(err, "out of memory (configuration values)");
        return NULL;
    }
    return keep->items[keep->count++] = copy;
}

void lda_config_values_free(lda_config_values *keep)
{
    for (size_t i = 0; i < keep->count; i++)
        free(keep->items[i]);
    free(keep->items);
    memset(keep, 0, sizeof *keep);
}

int lda_config_read(const char *path, lda_config_fn fn, void *ctx, lda_config_values *keep, lda_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) != -1) {
        lineno++;
        char *s = lineno == 1 ? lda_skip_bom(line) : line;
        size_t len = (size_t)got - (size_t)(s - line);
        /* A NUL inside the line would cut it short unseen: such a file is not text. */
        if (memchr(s, '\0', len)) {
            char quoted[LDA_QUOTE_MAX];
            lda_error_input(err, "%s:%zu: not a text file (a NUL byte in '%s')", path, lineno,
                            lda_quote(s, len, quoted));
            rc = -1;
            break;
        }
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        s = trim(s);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            char quoted[LDA_QUOTE_MAX];
            lda_error_input(err, "%s:%zu: expected 'key = value', got '%s'", path, lineno,
                            lda_quote(s, strlen(s), quoted));
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s);
        const char *value = trim(eq + 1);
        if (*key == '\0') {
            lda_error_input(err, "%s:%zu: a setting without a name before '='", path, lineno);
            rc = -1;
            break;
        }
        char quoted[LDA_QUOTE_MAX];
        if (!lda_is_printable(key, strlen(key))) {
            lda_error_input(err, "%s:%zu: unknown setting '%s'", path, lineno, lda_quote(key, strlen(key), quoted));
            rc = -1;
            break;
        }
        if (!(value = kept(keep, value, err))) {
            rc = -1;
            break;
        }
        rc = fn(ctx, key, value, path, lineno, err);
    }
    if (rc == 0 && ferror(f)) {
        lda_error_input(err, "%s: read error", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}
