/* input.h — the bytes of an input file, read once, gzip-compressed or not, within bounds.
 *
 * Every file ldagpu reads line by line (gzlines.h) comes through here, so that one place
 * decides how an input is opened and read:
 *   - opened once: a pipe, a FIFO or /dev/stdin is a stream that cannot be read twice, so
 *     whoever looks at the first bytes (format detection) looks at the same bytes the reader
 *     then reads (gzlines_head);
 *   - a FIFO is opened without waiting for a writer, and a stream is waited on in short polls,
 *     so a signal that lda_input_watch_stop's flag records ends the read promptly with "stopped
 *     by SIGTERM while reading FILE" instead of blocking forever;
 *   - a terminal or a folder is refused at once;
 *   - gzip is recognised by its magic and inflated here (several members in a row are one
 *     stream, as gzip writes them); what it inflates to is bounded (LDA_INPUT_INFLATE_FACTOR
 *     times the memory budget, util/memory.h), so a small bomb cannot keep ldagpu busy for hours;
 *   - a truncated or corrupt gzip stream is an error naming the file (and the line being
 *     read), not a short file. */
#ifndef LDA_INPUT_H
#define LDA_INPUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

/* A gzip stream may inflate to at most this many times the memory budget: text takes 2 to 20
 * bytes a token in a file and 4 in memory, so a corpus that fits needs far less, while a
 * decompression bomb (up to 1032:1 for gzip) is stopped. */
enum { LDA_INPUT_INFLATE_FACTOR = 16 };

typedef struct lda_input lda_input;

/* Opens path for reading; NULL with err set (status 2: "PATH: No such file or directory",
 * "PATH: Is a directory", "PATH is a terminal: ..."). */
lda_input *lda_input_open(const char *path, lda_error *err);

/* Reads up to n bytes (decompressed) into buf: how many, 0 at the end, -1 with err set. line
 * is the line being read, for messages (0: none to name). */
ssize_t lda_input_read(lda_input *in, char *buf, size_t n, size_t line, lda_error *err);

/* The last error again, as at line (for a caller that put off reporting it). */
void lda_input_error(const lda_input *in, size_t line, lda_error *err);

/* Whether the file is gzip-compressed (known once something has been read), and whether it is
 * a regular file (else a stream: pipe, FIFO, device). */
int lda_input_compressed(const lda_input *in);
int lda_input_regular(const lda_input *in);
/* The memory budget (memory.h) the inflate limit came from, for the reader's own limits. */
uint64_t lda_input_budget(const lda_input *in);
const char *lda_input_path(const lda_input *in);
void lda_input_close(lda_input *in);

/* From now on every read checks *stop (set by a SIGINT or SIGTERM handler to the signal's
 * number) and fails with "stopped by SIG... while reading PATH" once it is set. Process-wide,
 * as signals are; NULL stops watching. */
void lda_input_watch_stop(const volatile sig_atomic_t *stop);

/* 0 when path is a regular file (or does not exist: opening it will say so); otherwise -1 with
 * err "PATH: not a regular file (a device); WHY", status 2: for a file that must be a file (one
 * read again later, which a stream cannot be; a configuration, which /dev/zero must not be). */
int lda_input_require_regular(const char *path, const char *why, lda_error *err);

#endif
