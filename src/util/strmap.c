/* strmap.c — open-addressing string -> id map; see strmap.h.
 *
 * Layout chosen for tokenizing tens of millions of words: the table holds only
 * (hash, id + 1) pairs, 8 bytes a slot, probed linearly, and compares a stored 32-bit hash
 * before touching a key. Keys live back to back in one growing arena (NUL-terminated,
 * found by id through an offset array), which avoids a malloc per word and lets the table
 * grow without rehashing strings. The table stays at most 5/8 full. */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t hash;
    uint32_t id_plus1; /* 0: empty slot */
} strmap_slot;

struct strmap {
    strmap_slot *slots;
    size_t mask;        /* table size - 1; the size is a power of two */
    uint32_t count;
    char *arena;        /* all keys, each followed by '\0' */
    size_t arena_len, arena_cap;
    size_t *offsets;    /* count + 1 entries: key id starts at arena + offsets[id] */
    size_t offsets_cap;
};

/* FNV-1a, then a final avalanche (MurmurHash3's fmix64) so the low bits used as the table
 * index depend on every byte. */
static uint32_t hash_key(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static size_t key_len(const strmap *m, uint32_t id)
{
    return m->offsets[id + 1] - m->offsets[id] - 1;
}

strmap *strmap_new(size_t expected, lda_error *err)
{
    strmap *m = lda_calloc(1, sizeof *m, "a string map", err);
    if (!m)
        return NULL;
    size_t size = 64;
    while (size / 8 * 5 < expected && size < ((size_t)1 << 40))
        size *= 2;
    m->mask = size - 1;
    m->slots = lda_calloc(size, sizeof *m->slots, "a string map's table", err);
    m->offsets_cap = 64;
    m->offsets = lda_malloc_array(m->offsets_cap, sizeof *m->offsets, "a string map's keys", err);
    m->arena_cap = 1024;
    m->arena = lda_malloc(m->arena_cap, "a string map's keys", err);
    if (!m->slots || !m->offsets || !m->arena) {
        strmap_free(m);
        return NULL;
    }
    m->offsets[0] = 0;
    return m;
}

void strmap_free(strmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m->arena);
    free(m->offsets);
    free(m);
}

/* The slot holding key, or the empty slot where it would go. */
static strmap_slot *probe(const strmap *m, const char *key, size_t len, uint32_t hash)
{
    size_t i = hash & m->mask;
    for (;;) {
        strmap_slot *s = &m->slots[i];
        if (!s->id_plus1)
            return s;
        if (s->hash == hash) {
            uint32_t id = s->id_plus1 - 1;
            if (key_len(m, id) == len && memcmp(m->arena + m->offsets[id], key, len) == 0)
                return s;
        }
        i = (i + 1) & m->mask;
    }
}

static int grow_table(strmap *m, lda_error *err)
{
    size_t size = (m->mask + 1) * 2;
    strmap_slot *slots = lda_calloc(size, sizeof *slots, "a string map's table", err);
    if (!slots)
        return -1;
    for (size_t i = 0; i <= m->mask; i++) {
        strmap_slot s = m->slots[i];
        if (!s.id_plus1)
            continue;
        size_t j = s.hash & (size - 1);
        while (slots[j].id_plus1)
            j = (j + 1) & (size - 1);
        slots[j] = s;
    }
    free(m->slots);
    m->slots = slots;
    m->mask = size - 1;
    return 0;
}

/* buf (of *cap elements of size elem) doubled until it holds `need` elements; NULL with err
 * on failure, leaving buf as it was. */
static void *grow_to(void *buf, size_t *cap, size_t need, size_t elem, lda_error *err)
{
    if (need <= *cap)
        return buf;
    size_t c = *cap;
    while (c < need)
        c = c > SIZE_MAX / 2 / elem ? need : c * 2;
    if (c > SIZE_MAX / elem) {
        lda_error_fail(err, "out of memory (a string map's keys overflow)");
        return NULL;
    }
    void *grown = realloc(buf, c * elem);
    if (!grown) {
        lda_error_fail(err, "out of memory (%zu bytes for a string map's keys)", c * elem);
        return NULL;
    }
    *cap = c;
    return grown;
}

int strmap_intern(strmap *m, const char *key, size_t len, uint32_t *id, lda_error *err)
{
    uint32_t hash = hash_key(key, len);
    strmap_slot *s = probe(m, key, len, hash);
    if (s->id_plus1) {
        *id = s->id_plus1 - 1;
        return 0;
    }
    if (m->count >= UINT32_MAX - 1) {
        lda_error_fail(err, "too many distinct words (more than %u)", (unsigned)(UINT32_MAX - 2));
        return -1;
    }
    if (len > SIZE_MAX - m->arena_len - 1) {
        lda_error_fail(err, "out of memory (a word of %zu bytes)", len);
        return -1;
    }
    char *arena = grow_to(m->arena, &m->arena_cap, m->arena_len + len + 1, 1, err);
    if (!arena)
        return -1;
    m->arena = arena;
    size_t *offsets = grow_to(m->offsets, &m->offsets_cap, (size_t)m->count + 2, sizeof *offsets, err);
    if (!offsets)
        return -1;
    m->offsets = offsets;
    memcpy(m->arena + m->arena_len, key, len);
    m->arena[m->arena_len + len] = '\0';
    m->arena_len += len + 1;
    m->offsets[m->count + 1] = m->arena_len;
    s->hash = hash;
    s->id_plus1 = m->count + 1;
    *id = m->count++;
    /* Growing after the insertion keeps `s` valid above; the next insert sees the new table. */
    if ((size_t)m->count > (m->mask + 1) / 8 * 5 && grow_table(m, err) < 0)
        return -1;
    return 0;
}

int strmap_find(const strmap *m, const char *key, size_t len, uint32_t *id)
{
    const strmap_slot *s = probe(m, key, len, hash_key(key, len));
    if (!s->id_plus1)
        return 0;
    *id = s->id_plus1 - 1;
    return 1;
}

uint32_t strmap_size(const strmap *m) { return m->count; }

const char *strmap_key(const strmap *m, uint32_t id) { return m->arena + m->offsets[id]; }
