/* gzlines.c — a line reader over util/input.h; see gzlines.h.
 *
 * Blocks are read whole and split with memchr. A line that lies inside the block is returned
 * in place (its '\n' becomes '\0'); only a line that straddles two blocks is copied into a
 * separate buffer that grows to the longest such line, within the line limit. The first block
 * is filled completely before any line is returned: it is the head that detection looks at. */
#include "util/gzlines.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/input.h"
#include "util/memory.h"
#include "util/text.h"
#include "util/text_sniff.h"

enum { GZLINES_BLOCK = 256 * 1024 };

struct gzlines {
    lda_input *in;
    const char *path;  /* in's */
    char *block;       /* GZLINES_BLOCK + 1 bytes: the last read, NUL room at the end */
    size_t block_len;  /* bytes in block */
    size_t block_pos;  /* start of the unread rest of block */
    int head_read;     /* the first block has been filled */
    int head_complete; /* and it is the whole file */
    int head_failed;   /* reading the first block failed after some bytes: reported after its lines */
    char *carry;       /* a line spread over several blocks, assembled here */
    size_t carry_len, carry_cap;
    size_t max_line;   /* the longest line read */
    uint64_t budget;   /* the memory budget max_line comes from */
    size_t lineno;
    int at_eof;
    int failed;
};

gzlines *gzlines_open_unjudged(const char *path, lda_error *err)
{
    gzlines *r = lda_calloc(1, sizeof *r, "a line reader", err);
    if (!r)
        return NULL;
    if (!(r->block = lda_malloc(GZLINES_BLOCK + 1, "a line reader's buffer", err)) ||
        !(r->in = lda_input_open(path, err))) {
        gzlines_close(r);
        return NULL;
    }
    r->path = lda_input_path(r->in);
    r->budget = lda_input_budget(r->in);
    r->max_line = r->budget / 4 < GZLINES_MAX_LINE ? (size_t)(r->budget / 4) : GZLINES_MAX_LINE;
    return r;
}

/* Fills the first block completely (a stream returns less a read), once. A failure (a truncated
 * or corrupt gzip file) is reported when the lines before it have been read, naming the line it
 * cuts, as it would be in a later block. */
static void read_head(gzlines *r)
{
    if (r->head_read)
        return;
    lda_error err; /* kept by the input, and reported with the lines (fill_block) */
    r->head_read = 1;
    while (r->block_len < GZLINES_BLOCK) {
        ssize_t got = lda_input_read(r->in, r->block + r->block_len, GZLINES_BLOCK - r->block_len, 1, &err);
        if (got < 0) {
            r->head_failed = r->at_eof = 1;
            break;
        }
        if (got == 0) {
            r->at_eof = r->head_complete = 1;
            break;
        }
        r->block_len += (size_t)got;
    }
}

const char *gzlines_head(gzlines *r, size_t *len, int *complete, lda_error *err)
{
    if (r->lineno > 0 || r->failed) {
        lda_error_fail(err, "internal error: %s: its head asked for after its lines", r->path);
        return NULL;
    }
    read_head(r);
    *len = r->block_len;
    *complete = r->head_complete;
    return r->block; /* head_failed: the error comes with the lines */
}

int gzlines_check_text(gzlines *r, const char *hint, lda_error *err)
{
    size_t len;
    int complete;
    const char *head = gzlines_head(r, &len, &complete, err);
    if (!head)
        return -1;
    char why[LDA_SNIFF_REASON_MAX];
    int compressed;
    /* Damaged data looks like anything: the damage is what to report, with the lines. */
    if (r->head_failed || !lda_sniff_not_text(head, len, complete, why, &compressed))
        return 0;
    hint = compressed ? NULL : hint; /* compressed data read as text is no use */
    lda_error_input(err, "%s %s%s%s", r->path, why, hint ? "; " : "", hint ? hint : "");
    return -1;
}

gzlines *gzlines_open(const char *path, lda_error *err)
{
    gzlines *r = gzlines_open_unjudged(path, err);
    if (r && gzlines_check_text(r, NULL, err)) {
        gzlines_close(r);
        return NULL;
    }
    return r;
}

int gzlines_compressed(const gzlines *r) { return lda_input_compressed(r->in); }

int gzlines_is_stream(const gzlines *r) { return !lda_input_regular(r->in); }

/* Refills block. Returns 1 with data, 0 at a clean end of file, -1 on an error. */
static int fill_block(gzlines *r, lda_error *err)
{
    r->block_pos = r->block_len = 0;
    if (r->head_failed) {
        r->failed = 1;
        lda_input_error(r->in, r->lineno + 1, err);
        return -1;
    }
    if (r->at_eof)
        return 0;
    ssize_t got = lda_input_read(r->in, r->block, GZLINES_BLOCK, r->lineno + 1, err);
    if (got < 0) {
        r->failed = 1;
        return -1;
    }
    if (got == 0) {
        r->at_eof = 1;
        return 0;
    }
    r->block_len = (size_t)got;
    return 1;
}

/* The refusal of a line longer than max_line. */
static int line_too_long(gzlines *r, lda_error *err)
{
    char limit[32], budget[32], why[96];
    if (r->max_line < GZLINES_MAX_LINE)
        snprintf(why, sizeof why, "a quarter of the %s of memory available", lda_size_text(r->budget, budget));
    else
        snprintf(why, sizeof why, "room for the longest document a corpus may have");
    lda_error_input(err, "%s:%zu: a line longer than %s, the longest ldagpu reads (%s)", r->path, r->lineno + 1,
                    lda_size_text(r->max_line, limit), why);
    r->failed = 1;
    return -1;
}

/* Appends n bytes to the carry buffer, keeping room for a terminating NUL. */
static int carry_append(gzlines *r, const char *s, size_t n, lda_error *err)
{
    if (n > r->max_line - r->carry_len)
        return line_too_long(r, err);
    if (r->carry_len + n + 1 > r->carry_cap) {
        size_t cap = r->carry_cap ? r->carry_cap : 4096;
        while (cap < r->carry_len + n + 1)
            cap *= 2;
        cap = cap < r->max_line + 1 ? cap : r->max_line + 1;
        char *grown = realloc(r->carry, cap);
        if (!grown) {
            lda_error_fail(err, "%s:%zu: out of memory (%zu bytes for a long line)", r->path, r->lineno + 1, cap);
            r->failed = 1;
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
static char *deliver(gzlines *r, char *line, size_t n, size_t *len, lda_error *err)
{
    if (n > r->max_line) {
        line_too_long(r, err);
        return NULL;
    }
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
    read_head(r);
    r->carry_len = 0;
    int carrying = 0; /* whether the line began in an earlier block */
    for (;;) {
        if (r->block_pos == r->block_len) {
            int status = fill_block(r, err);
            if (status < 0)
                return NULL;
            if (status == 0) /* end of file: a last line without '\n', or nothing */
                return carrying ? deliver(r, r->carry, r->carry_len, len, err) : NULL;
        }
        char *start = r->block + r->block_pos;
        size_t avail = r->block_len - r->block_pos;
        char *nl = memchr(start, '\n', avail);
        if (nl) {
            size_t n = (size_t)(nl - start);
            r->block_pos += n + 1;
            if (!carrying)
                return deliver(r, start, n, len, err);
            if (carry_append(r, start, n, err) < 0)
                return NULL;
            return deliver(r, r->carry, r->carry_len, len, err);
        }
        if (carry_append(r, start, avail, err) < 0)
            return NULL;
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
    lda_input_close(r->in);
    free(r->block);
    free(r->carry);
    free(r);
}
