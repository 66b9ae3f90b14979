/* word_changes.c — the count update by word's rooms and chunks; see word_changes.h. */
#include "backend/word_changes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A positive whole number below 2^32 at *v, up to `stop`; *v moved past it. */
static int positive_u32(const char **v, char stop, uint32_t *out)
{
    char *end;
    errno = 0;
    const unsigned long long n = strtoull(*v, &end, 10);
    if (errno || end == *v || *end != stop || n == 0 || n > UINT32_MAX || **v == '-')
        return -1;
    *out = (uint32_t)n;
    *v = end + (stop != 0);
    return 0;
}

int lda_word_changes_settings_get(lda_word_changes_settings *out, lda_error *err)
{
    *out = (lda_word_changes_settings){0, UINT32_MAX, LDA_WORD_CHANGES_CHUNK};
    const char *v = getenv(LDA_WORD_CHANGES_ENV);
    if (!v || !*v)
        return 0;
    if (!strcmp(v, "off")) {
        out->off = 1;
        return 0;
    }
    const char *at = v;
    if (positive_u32(&at, ':', &out->room) || positive_u32(&at, 0, &out->chunk)) {
        lda_error_input(err, "%s: \"%s\" is neither off nor ROOM:CHUNK (two positive whole numbers)",
                        LDA_WORD_CHANGES_ENV, v);
        return -1;
    }
    return 0;
}

size_t lda_word_changes_plan(const uint32_t *tokens, uint32_t V, uint64_t space, const lda_word_changes_settings *s,
                             uint32_t *offsets, lda_word_chunk *chunks)
{
    uint64_t all = 0;
    for (uint32_t w = 0; w < V; w++)
        all += tokens[w];
    size_t n = 0;
    offsets[0] = 0;
    for (uint32_t w = 0; w < V; w++) {
        /* tokens[w] < 2^32 and space < 2^32: the product fits in 64 bits, and the rooms' sum is
           at most space */
        uint64_t room = all > space ? (uint64_t)tokens[w] * space / all : tokens[w];
        if (room > s->room)
            room = s->room;
        offsets[w + 1] = offsets[w] + (uint32_t)room;
        for (uint64_t first = 0; first < room; first += s->chunk, n++)
            if (chunks)
                chunks[n] = (lda_word_chunk){w, (uint32_t)first};
    }
    return n;
}

size_t lda_word_changes_most_chunks(uint32_t V, uint64_t space, uint32_t chunk)
{
    return (size_t)V + (size_t)(space / chunk);
}
