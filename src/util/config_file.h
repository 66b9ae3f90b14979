/* config_file.h — "key = value" files: --config presets and the model's model.conf.
 *
 * One setting a line; blank lines are skipped; spaces around the key and the value are
 * trimmed; a UTF-8 byte-order mark before the first line is skipped. '#' starts a comment at
 * the start of a line or of a value, or after a blank: elsewhere it is part of the value
 * (output = runs#2 names runs#2). A value may be quoted, "...", to hold what a plain one
 * cannot (a '#' after a blank, blanks at its ends, a leading '"', control characters), with the
 * escapes \\ \" \n \t \r and \xHH (not \x00); a comment may follow the closing quote.
 * lda_config_write quotes exactly the values that need it, so every value reads back as itself
 * and none can cut its line short or add a key (a file name with '#' or a line break in it);
 * files written before quoting existed read as they did, but for a '#' inside a value, which
 * they meant as part of it. Each setting is handed to a callback with its line number, so
 * whoever knows the keys can report "FILE:LINE: ..." for a bad one. */
#ifndef LDA_CONFIG_FILE_H
#define LDA_CONFIG_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* Returns 0 to go on, non-zero to stop (err filled by the callback). */
typedef int (*lda_config_fn)(void *ctx, const char *key, const char *value, const char *path, size_t line,
                             lda_error *err);

/* Copies of the values a callback may keep: a setting such as "output = DIR" is used long
 * after the file is read, while the line it came from is overwritten by the next one. */
typedef struct {
    char **items;
    size_t count, cap;
} lda_config_values;

/* Reads path. With keep, every value handed to fn is a copy that stays valid until
 * lda_config_values_free(keep); without, a value is valid only during its call. */
int lda_config_read(const char *path, lda_config_fn fn, void *ctx, lda_config_values *keep, lda_error *err);
void lda_config_values_free(lda_config_values *keep);

/* Writes the line "key = value", the value quoted where it would not read back as itself. */
void lda_config_write(FILE *f, const char *key, const char *value);

#endif
