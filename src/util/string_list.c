/* string_list.c — see string_list.h. */
#include "util/string_list.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

lda_string_list *lda_string_list_new(lda_error *err)
{
    return lda_calloc(1, sizeof(lda_string_list), "a list of names", err);
}

void lda_string_list_free(lda_string_list *l)
{
    if (!l)
        return;
    free(l->bytes);
    free(l->starts);
    free(l);
}

/* Grows *array of *cap elements of `size` bytes to hold at least `need`, doubling. */
static int grow(void **array, size_t *cap, size_t need, size_t size, lda_error *err)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n = n > SIZE_MAX / 2 / size ? need : 2 * n;
    void *grown = n <= SIZE_MAX / size ? realloc(*array, n * size) : NULL;
    if (!grown) {
        lda_error_fail(err, "out of memory (a list of names of %zu bytes)", need * size);
        return -1;
    }
    *array = grown;
    *cap = n;
    return 0;
}

int lda_string_list_add(lda_string_list *l, const char *s, size_t len, lda_error *err)
{
    if (len >= SIZE_MAX - l->size || grow((void **)&l->bytes, &l->bytes_cap, l->size + len + 1, 1, err) ||
        grow((void **)&l->starts, &l->starts_cap, l->count + 1, sizeof *l->starts, err)) {
        if (len >= SIZE_MAX - l->size)
            lda_error_fail(err, "out of memory (a list of names)");
        return -1;
    }
    memcpy(l->bytes + l->size, s, len);
    l->bytes[l->size + len] = '\0';
    l->starts[l->count++] = l->size;
    l->size += len + 1;
    return 0;
}

lda_string_list *lda_string_list_copy(const lda_string_list *l, lda_error *err)
{
    char *bytes = lda_malloc(l->size ? l->size : 1, "a list of names", err);
    if (!bytes)
        return NULL;
    memcpy(bytes, l->bytes, l->size);
    return lda_string_list_adopt(bytes, l->size, err);
}

size_t lda_string_list_count_in(const char *bytes, size_t size)
{
    if (size == 0)
        return 0;
    if (bytes[size - 1] != '\0')
        return SIZE_MAX;
    size_t n = 0;
    for (const char *p = bytes, *end = bytes + size; p < end; p = (const char *)memchr(p, '\0', (size_t)(end - p)) + 1)
        n++;
    return n;
}

lda_string_list *lda_string_list_adopt(char *bytes, size_t size, lda_error *err)
{
    const size_t count = lda_string_list_count_in(bytes, size);
    lda_string_list *l = count == SIZE_MAX ? NULL : lda_string_list_new(err);
    if (count == SIZE_MAX)
        lda_error_fail(err, "internal error: a list of names that does not end with a NUL");
    if (!l || !(l->starts = lda_malloc_array(count ? count : 1, sizeof *l->starts, "a list of names", err))) {
        free(bytes);
        lda_string_list_free(l);
        return NULL;
    }
    l->bytes = bytes;
    l->size = l->bytes_cap = size;
    l->count = l->starts_cap = count;
    for (size_t i = 0, at = 0; i < count; i++) {
        l->starts[i] = at;
        at += strlen(bytes + at) + 1;
    }
    return l;
}
