/* memory.c — see memory.h. */
#include "util/memory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* A /proc/meminfo line's value in bytes ("MemAvailable:  123 kB"), or 0 when absent. */
static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t kib = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            kib = strtoull(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kib * 1024;
}

static uint64_t at_most(uint64_t bytes, int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < bytes)
        return (uint64_t)rl.rlim_cur;
    return bytes;
}

static int parse_limit(const char *text, uint64_t *out, lda_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    unsigned shift = 0;
    if (end != text && *end && !end[1])
        shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 99;
    else if (*end)
        shift = 99;
    if (end == text || text[0] == '-' || errno || shift == 99 || (shift && v > (UINT64_MAX >> shift))) {
        lda_error_input(err, "%s: expected a number of bytes (a K, M or G suffix allowed), got '%s'",
                        LDA_MEMORY_LIMIT_ENV, text);
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
}

int lda_memory_available(uint64_t *bytes, lda_error *err)
{
    uint64_t available = meminfo("MemAvailable");
    available = available ? available + meminfo("SwapFree") : UINT64_MAX;
    available = at_most(at_most(available, RLIMIT_AS), RLIMIT_DATA);
    const char *limit = getenv(LDA_MEMORY_LIMIT_ENV);
    if (limit) {
        uint64_t v;
        if (parse_limit(limit, &v, err))
            return -1;
        if (v < available)
            available = v;
    }
    *bytes = available;
    return 0;
}

void lda_memory_refuse(const char *where, const char *what, uint64_t need, uint64_t available, lda_error *err)
{
    char need_text[32], have_text[32];
    lda_error_fail(err, "%s: not enough memory: %s, %s to hold them, and %s are available", where, what,
                   lda_size_text(need, need_text), lda_size_text(available, have_text));
}

int lda_memory_check(const char *where, const char *what, uint64_t need, lda_error *err)
{
    uint64_t available;
    if (lda_memory_available(&available, err))
        return -1;
    if (need <= available)
        return 0;
    lda_memory_refuse(where, what, need, available, err);
    return -1;
}

const char *lda_size_text(uint64_t bytes, char buf[32])
{
    if (bytes < (1ull << 30))
        snprintf(buf, 32, "%.0f MiB", (double)bytes / (1 << 20));
    else
        snprintf(buf, 32, "%.1f GiB", (double)bytes / (1 << 30));
    return buf;
}
