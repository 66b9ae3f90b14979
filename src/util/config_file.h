/* config_file.h — "key = value" files: --config presets and the model's model.conf.
 *
 * One setting a line; '#' starts a comment; blank lines are skipped; spaces around the key
 * and the value are trimmed. Each setting is handed to a callback with its line number, so
 * whoever knows the keys can report "FILE:LINE: ..." for a bad one. */
#ifndef LDA_CONFIG_FILE_H
#define LDA_CONFIG_FILE_H

#include <stddef.h>

#include "core/error.h"

/* Returns 0 to go on, non-zero to stop (err filled by the callback). */
typedef int (*lda_config_fn)(void *ctx, const char *key, const char *value, const char *path, size_t line,
                             lda_error *err);

int lda_config_read(const char *path, lda_config_fn fn, void *ctx, lda_error *err);

#endif
