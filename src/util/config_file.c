/* config_file.c — see config_file.h. */
#include "util/config_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

int lda_config_read(const char *path, lda_config_fn fn, void *ctx, lda_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) != -1) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            lda_error_input(err, "%s:%zu: expected 'key = value', got '%s'", path, lineno, s);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        if (*key == '\0') {
            lda_error_input(err, "%s:%zu: a setting without a name before '='", path, lineno);
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
