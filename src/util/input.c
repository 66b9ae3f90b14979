/* input.c — see input.h.
 *
 * zlib's gzFile would read plain and gzip files alike, but it opens by name (a FIFO without a
 * writer blocks in open), blocks in read (a signal handler installed with SA_RESTART never
 * gets a word in), and inflates without bound. So the file is read here with read(2) and
 * inflated with inflate(); the messages for a damaged stream are the ones gzread's users got.
 *
 * A stream is opened with O_NONBLOCK and polled RETRY_MS at a time: poll, not a blocking read
 * interrupted by the signal, because the signal may come just before read blocks. */
#include "util/input.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/memory.h"

enum { RAW_BYTES = 256 * 1024, RETRY_MS = 100 };

struct lda_input {
    char *path;
    int fd;
    int regular;
    int started;         /* the first bytes have been looked at (gzip or not) */
    int gzip;
    int in_member;       /* inside a gzip member (its end not reached yet) */
    int raw_eof;         /* read(2) said the end */
    int ended;           /* no more output: the end, or an error already reported */
    unsigned char *raw;  /* RAW_BYTES read from the file, not yet consumed: raw[raw_pos .. raw_len) */
    size_t raw_pos, raw_len;
    z_stream z;
    int z_ready;
    uint64_t budget, inflated, max_inflated;
    /* The last error, without its "PATH:LINE: " (formatted when reported: an error found after
     * some output was returned is reported by the next read, at the line being read then). */
    char what[768];
    int what_status, what_names_line, has_pending;
};

static const volatile sig_atomic_t *stop_flag;

void lda_input_watch_stop(const volatile sig_atomic_t *stop)
{
    stop_flag = stop;
}

/* Records an error (its text after "PATH: " or "PATH:LINE: "; names_line: whether a line is to
 * blame) and reports it at line. Returns -1. */
__attribute__((format(printf, 6, 7))) static int fail(lda_input *in, int status, int names_line, size_t line,
                                                      lda_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->what, sizeof in->what, fmt, ap);
    va_end(ap);
    in->what_status = status;
    in->what_names_line = names_line;
    in->ended = 1;
    lda_input_error(in, line, err);
    return -1;
}

void lda_input_error(const lda_input *in, size_t line, lda_error *err)
{
    char at[32] = "";
    if (in->what_names_line && line)
        snprintf(at, sizeof at, ":%zu", line);
    if (in->what_status == LDA_EXIT_BAD_INPUT)
        lda_error_input(err, "%s%s: %s", in->path, at, in->what);
    else
        lda_error_fail(err, "%s%s: %s", in->path, at, in->what);
}

static int stopped(lda_input *in, lda_error *err)
{
    if (!stop_flag || !*stop_flag)
        return 0;
    const int sig = (int)*stop_flag;
    fail(in, LDA_EXIT_FAILURE, 0, 0, err, "reading stopped by %s",
         sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    return 1;
}

lda_input *lda_input_open(const char *path, lda_error *err)
{
    lda_input *in = lda_calloc(1, sizeof *in, "an input", err);
    if (!in)
        return NULL;
    in->fd = -1;
    if (!(in->path = strdup(path)) || !(in->raw = lda_malloc(RAW_BYTES, "an input buffer", err))) {
        if (!in->path)
            lda_error_fail(err, "out of memory (copying a file name)");
        lda_input_close(in);
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO that no one writes to returns at once (reads then poll). */
    struct stat sb;
    if ((in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || fstat(in->fd, &sb) != 0) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        lda_input_close(in);
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        lda_error_input(err, "%s: %s", path, strerror(EISDIR));
        lda_input_close(in);
        return NULL;
    }
    if (isatty(in->fd)) {
        lda_error_input(err, "%s is a terminal: give a file, or pipe the input in (cat FILE | ldagpu ... %s)", path,
                        path);
        lda_input_close(in);
        return NULL;
    }
    in->regular = S_ISREG(sb.st_mode);
    if (in->regular)
        fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
    if (lda_memory_available(&in->budget, err)) {
        lda_input_close(in);
        return NULL;
    }
    in->max_inflated = in->budget > UINT64_MAX / LDA_INPUT_INFLATE_FACTOR ? UINT64_MAX
                                                                           : in->budget * LDA_INPUT_INFLATE_FACTOR;
    return in;
}

/* read(2), waiting for a stream in polls so that the stop flag is seen: bytes read, 0 at the
 * end, -1 with err. */
static ssize_t read_some(lda_input *in, void *buf, size_t n, lda_error *err)
{
    for (;;) {
        if (stopped(in, err))
            return -1;
        if (!in->regular) {
            struct pollfd p = {in->fd, POLLIN, 0};
            int ready = poll(&p, 1, RETRY_MS);
            if (ready < 0 && errno != EINTR)
                return fail(in, LDA_EXIT_BAD_INPUT, 0, 0, err, "%s", strerror(errno));
            if (ready <= 0)
                continue;
        }
        ssize_t got = read(in->fd, buf, n);
        if (got >= 0)
            return got;
        if (errno != EINTR && errno != EAGAIN)
            return fail(in, LDA_EXIT_BAD_INPUT, 0, 0, err, "%s", strerror(errno));
    }
}

/* Makes at least `want` unconsumed raw bytes available, unless the file ends first. 0 or -1. */
static int fill_raw(lda_input *in, size_t want, lda_error *err)
{
    if (in->raw_pos > 0 && in->raw_len - in->raw_pos < want) {
        memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
        in->raw_len -= in->raw_pos;
        in->raw_pos = 0;
    }
    while (in->raw_len - in->raw_pos < want && !in->raw_eof) {
        ssize_t got = read_some(in, in->raw + in->raw_len, RAW_BYTES - in->raw_len, err);
        if (got < 0)
            return -1;
        in->raw_eof = got == 0;
        in->raw_len += (size_t)got;
    }
    return 0;
}

static int is_gzip_magic(const lda_input *in)
{
    return in->raw_len - in->raw_pos >= 2 && in->raw[in->raw_pos] == 0x1f && in->raw[in->raw_pos + 1] == 0x8b;
}

/* The error of a damaged gzip stream, as gzread's users reported it. */
static int inflate_error(lda_input *in, int code, size_t line, lda_error *err)
{
    const char *what = in->z.msg ? in->z.msg : "unknown error";
    if (code == Z_MEM_ERROR)
        return fail(in, LDA_EXIT_FAILURE, 1, line, err, "out of memory in zlib");
    if (code == Z_DATA_ERROR && (strcmp(what, "incorrect data check") == 0 || strcmp(what, "incorrect length check") == 0))
        /* The trailer's CRC or length, checked once the whole member is read: no line is to
         * blame, and every line is suspect. */
        return fail(in, LDA_EXIT_BAD_INPUT, 0, line, err, "corrupt gzip data: the file does not match its own checksum "
                    "(%s); it was damaged after it was compressed", what);
    return fail(in, LDA_EXIT_BAD_INPUT, 1, line, err, "corrupt gzip data (%s)", what);
}

/* Inflates into buf[0..n): bytes made (maybe fewer than n), 0 at the end, -1 with err. */
static ssize_t inflate_some(lda_input *in, char *buf, size_t n, size_t line, lda_error *err)
{
    in->z.next_out = (unsigned char *)buf;
    in->z.avail_out = (uInt)(n < UINT32_MAX ? n : UINT32_MAX);
    while (in->z.avail_out > 0) {
        if (!in->in_member) { /* the start of the next member, or trailing bytes gzip ignores */
            if (fill_raw(in, 2, err))
                return -1;
            if (!is_gzip_magic(in))
                break;
            if (inflateReset(&in->z) != Z_OK)
                return fail(in, LDA_EXIT_FAILURE, 0, line, err, "cannot restart zlib");
            in->in_member = 1;
        }
        if (in->raw_pos == in->raw_len) {
            if (fill_raw(in, 1, err))
                return -1;
            if (in->raw_pos == in->raw_len)
                return fail(in, LDA_EXIT_BAD_INPUT, 1, line, err, "truncated gzip data (unexpected end of file)");
        }
        in->z.next_in = in->raw + in->raw_pos;
        in->z.avail_in = (uInt)(in->raw_len - in->raw_pos);
        int code = inflate(&in->z, Z_NO_FLUSH);
        in->raw_pos = in->raw_len - in->z.avail_in;
        if (code == Z_STREAM_END)
            in->in_member = 0;
        else if (code != Z_OK && code != Z_BUF_ERROR)
            return inflate_error(in, code, line, err);
    }
    return (ssize_t)(n - in->z.avail_out);
}

/* The first read: whether the file starts with gzip's magic. */
static int start(lda_input *in, lda_error *err)
{
    in->started = 1;
    if (fill_raw(in, 2, err))
        return -1;
    if (!is_gzip_magic(in))
        return 0;
    in->gzip = 1;
    if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
        return fail(in, LDA_EXIT_FAILURE, 0, 0, err, "out of memory in zlib");
    in->z_ready = 1;
    return 0;
}

ssize_t lda_input_read(lda_input *in, char *buf, size_t n, size_t line, lda_error *err)
{
    if (in->has_pending) {
        in->has_pending = 0;
        lda_input_error(in, line, err);
        return -1;
    }
    if (in->ended || n == 0)
        return 0;
    if (!in->started && start(in, err))
        return -1;
    ssize_t got;
    if (in->gzip) {
        lda_error ignored;
        if (inflate_some(in, buf, n, line, &ignored) < 0) {
            /* What was inflated before the damage goes out first (gzread did the same); the
             * error is the next read's, at the line it is in then. */
            in->has_pending = n - in->z.avail_out > 0;
            if (!in->has_pending) {
                lda_input_error(in, line, err);
                return -1;
            }
        }
        got = (ssize_t)(n - in->z.avail_out);
        in->inflated += (uint64_t)got;
        if (in->inflated > in->max_inflated) {
            char limit[32], budget[32];
            in->has_pending = 0;
            return fail(in, LDA_EXIT_BAD_INPUT, 1, line, err, "inflates to more than %s, the most ldagpu reads from one "
                        "gzip file (%d times the %s of memory available); it looks like a decompression bomb",
                        lda_size_text(in->max_inflated, limit), LDA_INPUT_INFLATE_FACTOR,
                        lda_size_text(in->budget, budget));
        }
    } else if (in->raw_pos < in->raw_len) { /* what start() read */
        got = (ssize_t)(in->raw_len - in->raw_pos < n ? in->raw_len - in->raw_pos : n);
        memcpy(buf, in->raw + in->raw_pos, (size_t)got);
        in->raw_pos += (size_t)got;
    } else {
        got = in->raw_eof ? 0 : read_some(in, buf, n, err);
    }
    if (got == 0)
        in->ended = 1;
    return got;
}

int lda_input_compressed(const lda_input *in) { return in->gzip; }

int lda_input_regular(const lda_input *in) { return in->regular; }

uint64_t lda_input_budget(const lda_input *in) { return in->budget; }

const char *lda_input_path(const lda_input *in) { return in->path; }

void lda_input_close(lda_input *in)
{
    if (!in)
        return;
    if (in->z_ready)
        inflateEnd(&in->z);
    if (in->fd >= 0)
        close(in->fd);
    free(in->raw);
    free(in->path);
    free(in);
}

int lda_input_require_regular(const char *path, const char *why, lda_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return 0;
    lda_error_input(err, "%s: not a regular file (%s); %s", path,
                    S_ISDIR(sb.st_mode)    ? "a folder"
                    : S_ISFIFO(sb.st_mode) ? "a pipe"
                    : S_ISCHR(sb.st_mode)  ? "a device"
                                           : "a socket or other special file",
                    why);
    return -1;
}
