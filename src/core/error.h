/* error.h — how failures travel out of library code.
 *
 * Library functions never print or exit: they fill an lda_error with one line
 * ("FILE:LINE: what is wrong", or a plain sentence when no file is involved) and return
 * failure. Only the command layer prints it, prefixed with the program name, and chooses
 * the exit status.  Status 2 is bad input or bad usage, 1 a failure while running. */
#ifndef LDA_ERROR_H
#define LDA_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LDA_EXIT_OK = 0, LDA_EXIT_FAILURE = 1, LDA_EXIT_BAD_INPUT = 2 };

typedef struct {
    char msg[1024];
    int status; /* LDA_EXIT_BAD_INPUT or LDA_EXIT_FAILURE */
} lda_error;

/* Sets the message (printf-style) with status LDA_EXIT_BAD_INPUT. */
void lda_error_input(lda_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the message with status LDA_EXIT_FAILURE (out of memory, I/O, device failures). */
void lda_error_fail(lda_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets "what: strerror(errno)" with status LDA_EXIT_FAILURE. */
void lda_error_errno(lda_error *err, const char *what);

/* Allocation helpers that report "out of memory (N bytes for WHAT)" through err. */
void *lda_malloc(size_t n, const char *what, lda_error *err);
void *lda_calloc(size_t count, size_t size, const char *what, lda_error *err);
/* count*size with overflow reported as out of memory. */
void *lda_malloc_array(size_t count, size_t size, const char *what, lda_error *err);
/* The same, aligned to 2 MiB and asked for in huge pages where the kernel gives them on request
 * (freed with free): for large arrays read at random places, whose 4 KiB pages' tables miss the
 * cache as well, and whose first touch would take a fault every 4 KiB. */
void *lda_malloc_huge(size_t count, size_t size, const char *what, lda_error *err);
/* The same, aligned to a 64-byte cache line and padded to whole lines (freed with free): for a
 * worker's scratch that it writes often, which must not share a line with another worker's. */
void *lda_malloc_lines(size_t count, size_t size, const char *what, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
