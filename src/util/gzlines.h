/* gzlines.h — reading a text file line by line, gzip-compressed or not, with line numbers.
 *
 * zlib reads plain files transparently, so one reader serves both. A gzip stream that ends
 * early (a truncated download) is reported as an error naming the file and line instead
 * of looking like a short file. */
#ifndef LDA_GZLINES_H
#define LDA_GZLINES_H

#include <stddef.h>

#include "core/error.h"

typedef struct gzlines gzlines;

/* Opens PATH; NULL with err set (status LDA_EXIT_BAD_INPUT: "PATH: No such file ..."). */
gzlines *gzlines_open(const char *path, lda_error *err);
/* Next line without its '\n' (and without a trailing '\r', nor, on the first line, a UTF-8
 * byte-order mark); *len gets its length.
 * Returns NULL at the end of the file, or on an error: then gzlines_failed() is true and
 * err holds "PATH:LINE: ...". The line stays valid until the next call. */
char *gzlines_next(gzlines *r, size_t *len, lda_error *err);
int gzlines_failed(const gzlines *r);
/* Number of the line last returned (1-based). */
size_t gzlines_lineno(const gzlines *r);
const char *gzlines_path(const gzlines *r);
void gzlines_close(gzlines *r);

#endif
