/* error.c — filling lda_error; see error.h. */
#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void set(lda_error *err, int status, const char *fmt, va_list ap)
{
    if (!err)
        return;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    err->status = status;
}

void lda_error_input(lda_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(err, LDA_EXIT_BAD_INPUT, fmt, ap);
    va_end(ap);
}

void lda_error_fail(lda_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(err, LDA_EXIT_FAILURE, fmt, ap);
    va_end(ap);
}

void lda_error_errno(lda_error *err, const char *what)
{
    lda_error_fail(err, "%s: %s", what, strerror(errno));
}

void *lda_malloc(size_t n, const char *what, lda_error *err)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        lda_error_fail(err, "out of memory (%zu bytes for %s)", n, what);
    return p;
}

void *lda_calloc(size_t count, size_t size, const char *what, lda_error *err)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        lda_error_fail(err, "out of memory (%zu x %zu bytes for %s)", count, size, what);
    return p;
}

void *lda_malloc_array(size_t count, size_t size, const char *what, lda_error *err)
{
    if (size && count > (size_t)-1 / size) {
        lda_error_fail(err, "out of memory (%zu x %zu bytes for %s overflows)", count, size, what);
        return NULL;
    }
    return lda_malloc(count * size, what, err);
}

void *lda_malloc_huge(size_t count, size_t size, const char *what, lda_error *err)
{
    enum { HUGE_PAGE = 1 << 21 };
    void *p = NULL;
    if ((size && count > (size_t)-1 / size) ||
        posix_memalign(&p, HUGE_PAGE, count > 0 && size > 0 ? count * size : 1) != 0) {
        lda_error_fail(err, "out of memory (%zu x %zu bytes for %s)", count, size, what);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(p, count * size, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
#endif
    return p;
}

void *lda_malloc_lines(size_t count, size_t size, const char *what, lda_error *err)
{
    enum { LINE = 64 };
    void *p = NULL;
    const size_t bytes = count > 0 && size > 0 ? count * size : 1;
    if ((size && count > ((size_t)-1 - LINE) / size) || posix_memalign(&p, LINE, (bytes + LINE - 1) / LINE * LINE) != 0) {
        lda_error_fail(err, "out of memory (%zu x %zu bytes for %s)", count, size, what);
        return NULL;
    }
    return p;
}
