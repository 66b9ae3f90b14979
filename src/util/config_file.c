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

/* Where a comment starts in s (a line, or the value after its '='): a '#' at its start or
 * after a blank; NULL when none. */
static char *comment_start(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t'))
            return p;
    return NULL;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The value after '=' (v), into *value: plain, up to a comment and trimmed; or quoted, its
 * escapes decoded in place, then only blanks and perhaps a comment. where: "FILE:LINE: KEY". */
static int parse_value(char *v, const char **value, const char *where, lda_error *err)
{
    while (isspace((unsigned char)*v))
        v++;
    if (*v != '"') {
        char *hash = comment_start(v);
        if (hash)
            *hash = '\0';
        *value = trim(v);
        return 0;
    }
    char *w = v, *r = v + 1;
    for (; *r != '"'; r++) {
        const int escape = *r == '\\' && r[1] != '\0' && r[1] != '\n';
        if (!escape && (*r == '\0' || *r == '\n' || *r == '\\')) {
            lda_error_input(err, "%s: a quoted value without its closing quote", where);
            return -1;
        }
        if (!escape) {
            *w++ = *r;
            continue;
        }
        const char c = *++r;
        int hi, lo;
        if (c == '\\' || c == '"') {
            *w++ = c;
        } else if (c == 'n' || c == 't' || c == 'r') {
            *w++ = c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
        } else if (c == 'x' && (hi = hex_digit(r[1])) >= 0 && (lo = hex_digit(r[2])) >= 0 && (hi || lo)) {
            *w++ = (char)(hi << 4 | lo);
            r += 2;
        } else {
            char quoted[LDA_QUOTE_MAX];
            lda_error_input(err, "%s: unknown escape '\\%s' in a quoted value (\\\\, \\\", \\n, \\t, \\r or \\xHH, not \\x00)",
                            where, lda_quote(r, c == 'x' ? strnlen(r, 3) : 1, quoted));
            return -1;
        }
    }
    char *after = r + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after && *after != '#') {
        lda_error_input(err, "%s: text after the closing quote", where);
        return -1;
    }
    *w = '\0';
    *value = v;
    return 0;
}

/* Whether value would read back as something else if written plain. */
static int needs_quotes(const char *value)
{
    const size_t n = strlen(value);
    if (n && (value[0] == '"' || isspace((unsigned char)value[0]) || isspace((unsigned char)value[n - 1])))
        return 1;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p == '#' || *p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

void lda_config_write(FILE *f, const char *key, const char *value)
{
    if (!needs_quotes(value)) {
        fprintf(f, "%s = %s\n", key, value);
        return;
    }
    fprintf(f, "%s = \"", key);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p == '\\' || *p == '"')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n' || *p == '\t' || *p == '\r')
            fprintf(f, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputs("\"\n", f);
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
        char *eq = strchr(s, '='), *hash = comment_start(s);
        if (hash && (!eq || hash < eq)) { /* a comment, after a key at most */
            *hash = '\0';
            eq = NULL;
        }
        if (!eq) {
            s = trim(s);
            if (*s == '\0')
                continue;
            char quoted[LDA_QUOTE_MAX];
            lda_error_input(err, "%s:%zu: expected 'key = value', got '%s'", path, lineno,
                            lda_quote(s, strlen(s), quoted));
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s);
        const char *value;
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
        char where[4200];
        snprintf(where, sizeof where, "%s:%zu: %s", path, lineno, key);
        if (parse_value(eq + 1, &value, where, err) || !(value = kept(keep, value, err))) {
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
