/* gzlines.h — reading a text file line by line, gzip-compressed or not, with line numbers.
 *
 * The bytes come from util/input.h: the file is opened once (a stream too), gzip is inflated
 * within a bound, and a signal stops a read that waits. On top of it: lines within a bound
 * (GZLINES_MAX_LINE, lowered to a quarter of the memory budget: a line longer is refused with
 * the file, the line and the limit, rather than grown without end), and a look at the first
 * block before any line is read (gzlines_head: detection of a format, and whether the file
 * looks like text at all, util/text_sniff.h). A gzip stream that ends early (a truncated
 * download) is reported as an error naming the file and line instead of looking like a short
 * file. */
#ifndef LDA_GZLINES_H
#define LDA_GZLINES_H

#include <stddef.h>

#include "core/error.h"

/* The longest line read: a document of the most tokens one may have (corpus.h) fits. */
#define GZLINES_MAX_LINE ((size_t)1 << 30)

typedef struct gzlines gzlines;

/* Opens PATH and refuses it, as gzlines_check_text does, unless its first block looks like
 * text; NULL with err set (status LDA_EXIT_BAD_INPUT: "PATH: No such file ..."). */
gzlines *gzlines_open(const char *path, lda_error *err);
/* Opens PATH without judging what it holds: the caller looks at gzlines_head first. */
gzlines *gzlines_open_unjudged(const char *path, lda_error *err);

/* The first block of the file (up to 256 KiB, decompressed), read before any line is; *complete
 * says whether it is the whole file. Lines are then read from its start: the file is read once.
 * NULL with err when reading fails (or once a line has been read: the head is gone). */
const char *gzlines_head(gzlines *r, size_t *len, int *complete, lda_error *err);
/* 0 when the first block looks like text (text_sniff.h); else -1 with err "PATH does not look
 * like text: WHY" (or "PATH is UTF-16 text: ...") followed by hint when not NULL (and the file
 * is not compressed: xz, bzip2, ...), status 2. */
int gzlines_check_text(gzlines *r, const char *hint, lda_error *err);
/* Whether the file is gzip-compressed; whether it is a stream (a pipe, FIFO or device) rather
 * than a regular file. Known once the head has been read. */
int gzlines_compressed(const gzlines *r);
int gzlines_is_stream(const gzlines *r);

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
