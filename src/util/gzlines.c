/* gzlines.c — a line reader over zlib; see gzlines.h.
 *
 * gzgets would be simpler but copies byte by byte and truncates long lines; instead we
 * gzread big blocks and split them with memchr. A line that lies inside the block is
 * returned in place (its '\n' becomes '\0'); only a line that straddles two blocks is
 * copied into a separate buffer that grows to the longest such line.
 *
 * gzread reports a truncated gzip stream by returning 0 as if at the end of the file, with
 * gzerror saying Z_BUF_ERROR; that is why every end of file is checked with gzerror. */
#include "util/gzlines.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/text.h"

enum { GZLINES_BLOCK = 256 * 1024 };

struct gzlines {
    gzFile file;
    char *path;
    char *block;       /* GZLINES_BLOCK + 1 bytes: the last gzread, NUL room at the end */
    size_t block_len;  /* bytes in block */
    size_t block_pos;  /* start of the unread rest of block */
    char *carry;       /* a line spread over several blocks, assembled here */
    size_t carry_len, carry_cap;
    size_t lineno;
    int at_eof;
    int failed;
};

gzlines *gzlines_open(const char *path, lda_error *err)
{
    gzlines *r = lda_calloc(1, sizeof *r, "a line reader", err);
    if (!r)
        return NULL;
    r->path = strdup(path);
    r->block = lda_malloc(GZLINES_BLOCK + 1, "a line reader's buffer", err);
    if (!r->path || !r->block) {
        if (!r->path)
            lda_error_fail(err, "out of memory (copying a file name)");
        gzlines_close(r);
        return NULL;
    }
    errno = 0;
    r->file = gzopen(path, "rb");
    if (!r->file) {
        /* errno is 0 when zlib itself ran out of memory. */
        if (errno)
            lda_error_input(err, "%s: %s", path, strerror(errno));
        else
            lda_error_fail(err, "%s: out of memory opening the file", path);
        gzlines_close(r);
        return NULL;
    }
    gzbuffer(r->file, GZLINES_BLOCK); /* zlib's own input buffer; 8 KiB by default */
    return r;
}

/* Reports a failed gzread: a truncated stream, corrupt data or a read error. */
static void report_read_error(gzlines *r, lda_error *err)
{
    int saved_errno = errno;
    int code = Z_OK;
    const char *what = gzerror(r->file, &code);
    size_t line = r->lineno + 1; /* the line being read when the data ran out */
    /* zlib's message starts with "PATH: "; ours already does. */
    size_t path_len = strlen(r->path);
    if (strncmp(what, r->path, path_len) == 0 && strncmp(what + path_len, ": ", 2) == 0)
        what += path_len + 2;
    r->failed = 1;
    if (code == Z_BUF_ERROR)
        lda_error_input(err, "%s:%zu: truncated gzip data (unexpected end of file)", r->path, line);
    else if (code == Z_ERRNO) /* a read error (or a folder): no line to blame */
        lda_error_input(err, "%s: %s", r->path, strerror(saved_errno));
    else if (code == Z_DATA_ERROR && (strcmp(what, "incorrect data check") == 0 ||
                                      strcmp(what, "incorrect length check") == 0))
        /* The trailer's CRC or length, checked once the whole stream is read: no line is to
         * blame, and every line is suspect. */
        lda_error_input(err, "%s: corrupt gzip data: the file does not match its own checksum (%s); it was "
                        "damaged after it was compressed", r->path, what);
    else if (code == Z_MEM_ERROR)
        lda_error_fail(err, "%s:%zu: out of memory in zlib", r->path, line);
    else
        lda_error_input(err, "%s:%zu: corrupt gzip data (%s)", r->path, line, what);
}

/* Refills block. Returns 1 with data, 0 at a clean end of file, -1 on an error. */
static int fill_block(gzlines *r, lda_error *err)
{
    r->block_pos = r->block_len = 0;
    if (r->at_eof)
        return 0;
    int got = gzread(r->file, r->block, GZLINES_BLOCK);
    if (got > 0) {
        r->block_len = (size_t)got;
        return 1;
    }
    int code = Z_OK;
    gzerror(r->file, &code);
    if (got < 0 || code != Z_OK) {
        report_read_error(r, err);
        return -1;
    }
    r->at_eof = 1;
    return 0;
}

/* Appends n bytes to the carry buffer, keeping room for a terminating NUL. */
static int carry_append(gzlines *r, const char *s, size_t n, lda_error *err)
{
    if (r->carry_len + n + 1 > r->carry_cap) {
        size_t cap = r->carry_cap ? r->carry_cap : 4096;
        while (cap < r->carry_len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                lda_error_fail(err, "%s:%zu: line too long", r->path, r->lineno + 1);
                return -1;
            }
            cap *= 2;
        }
        char *grown = realloc(r->carry, cap);
        if (!grown) {
            lda_error_fail(err, "%s:%zu: out of memory (%zu bytes for a long line)", r->path,
                           r->lineno + 1, cap);
            return -1;
        }
        r->carry = grown;
        r->carry_cap = cap;
    }
    memcpy(r->carry + r->carry_len, s, n);
    r->carry_len += n;
    r->carry[r->carry_len] = '\0';
    return 0;
}

/* Finishes a line: drops a trailing '\r' and a byte-order mark before the first, counts it. */
static char *deliver(gzlines *r, char *line, size_t n, size_t *len)
{
    if (n > 0 && line[n - 1] == '\r')
        n--;
    line[n] = '\0';
    if (r->lineno == 0) {
        char *text = lda_skip_bom(line);
        n -= (size_t)(text - line);
        line = text;
    }
    r->lineno++;
    *len = n;
    return line;
}

char *gzlines_next(gzlines *r, size_t *len, lda_error *err)
{
    *len = 0;
    if (r->failed)
        return NULL;
    r->carry_len = 0;
    int carrying = 0; /* whether the line began in an earlier block */
    for (;;) {
        if (r->block_pos == r->block_len) {
            int status = fill_block(r, err);
            if (status < 0)
                return NULL;
            if (status == 0) /* end of file: a last line without '\n', or nothing */
                return carrying ? deliver(r, r->carry, r->carry_len, len) : NULL;
        }
        char *start = r->block + r->block_pos;
        size_t avail = r->block_len - r->block_pos;
        char *nl = memchr(start, '\n', avail);
        if (nl) {
            size_t n = (size_t)(nl - start);
            r->block_pos += n + 1;
            if (!carrying)
                return deliver(r, start, n, len);
            if (carry_append(r, start, n, err) < 0) {
                r->failed = 1;
                return NULL;
            }
            return deliver(r, r->carry, r->carry_len, len);
        }
        if (carry_append(r, start, avail, err) < 0) {
            r->failed = 1;
            return NULL;
        }
        carrying = 1;
        r->block_pos = r->block_len;
    }
}

int gzlines_failed(const gzlines *r) { return r->failed; }

size_t gzlines_lineno(const gzlines *r) { return r->lineno; }

const char *gzlines_path(const gzlines *r) { return r->path; }

void gzlines_close(gzlines *r)
{
    if (!r)
        return;
    if (r->file)
        gzclose_r(r->file);
    free(r->path);
    free(r->block);
    free(r->carry);
    free(r);
}
