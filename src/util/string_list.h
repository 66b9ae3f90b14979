/* string_list.h — a list of strings kept end to end in one buffer: documents' names and labels,
 * one per input document, which may be millions (one allocation per string would cost more
 * than the strings). The buffer is the strings with their NULs, which is also how the binary
 * corpus stores them, so a list is written and read back as one block. */
#ifndef LDA_STRING_LIST_H
#define LDA_STRING_LIST_H

#include <stddef.h>

#include "core/error.h"

typedef struct {
    size_t count;   /* strings */
    char *bytes;    /* the strings end to end, each with its NUL */
    size_t size;    /* bytes used */
    size_t *starts; /* count: where each string starts in bytes */
    size_t bytes_cap, starts_cap;
} lda_string_list;

/* An empty list; NULL with err. */
lda_string_list *lda_string_list_new(lda_error *err);
void lda_string_list_free(lda_string_list *l);

/* Appends s[0..len) (which holds no NUL). */
int lda_string_list_add(lda_string_list *l, const char *s, size_t len, lda_error *err);

static inline const char *lda_string_list_get(const lda_string_list *l, size_t i)
{
    return l->bytes + l->starts[i];
}

/* A copy of l; NULL with err. */
lda_string_list *lda_string_list_copy(const lda_string_list *l, lda_error *err);

/* How many NUL-terminated strings bytes[0..size) holds end to end; SIZE_MAX when its last byte
 * is not a NUL (size 0: none). */
size_t lda_string_list_count_in(const char *bytes, size_t size);
/* A list of the strings of bytes[0..size) (malloc'ed, ending with a NUL unless size is 0), which
 * it takes: freed with the list, or here on failure. NULL with err. */
lda_string_list *lda_string_list_adopt(char *bytes, size_t size, lda_error *err);

#endif
