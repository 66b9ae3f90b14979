/* strmap.h — a hash map from strings to dense uint32 ids, for vocabularies.
 *
 * Keys get ids 0, 1, 2, ... in the order they are first inserted, so the map doubles as the
 * list of its words (strmap_key(m, id)). It owns copies of its keys. Used by the text
 * tokenizer (word -> id), for stop words, and to map words onto a fixed vocabulary. */
#ifndef LDA_STRMAP_H
#define LDA_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct strmap strmap;

/* A map sized for about `expected` keys (it grows as needed). NULL with err on failure. */
strmap *strmap_new(size_t expected, lda_error *err);
void strmap_free(strmap *m);

/* The id of key[0..len), inserting it with the next id (strmap_size before the call) when
 * absent. Returns 0, or -1 with err set (out of memory, or more than UINT32_MAX - 1 keys). */
int strmap_intern(strmap *m, const char *key, size_t len, uint32_t *id, lda_error *err);
/* 1 and *id when key[0..len) is present, else 0. */
int strmap_find(const strmap *m, const char *key, size_t len, uint32_t *id);

uint32_t strmap_size(const strmap *m);
/* The NUL-terminated key of id (< strmap_size). Valid until the next insertion. */
const char *strmap_key(const strmap *m, uint32_t id);

#endif
