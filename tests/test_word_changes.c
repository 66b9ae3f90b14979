/* test_word_changes.c — the GPU count update by word (backend/word_changes.h, zplan.h's
 * counts_by_word): its switch and its rooms' and chunks' arithmetic on the CPU; on a GPU (the
 * tests skip without one), the same model byte for byte with the changes filed by word, with
 * rooms forced small (changes past them go to n[w,k] by atomics), words split over blocks, in two
 * shards, and on a corpus whose tokens outnumber φ's words, as with the atomics alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/word_changes.h"
#include "helpers.h"

static lda_word_changes_settings settings_of(const char *value, int *rc, lda_error *err)
{
    lda_word_changes_settings s;
    if (value)
        cr_assert_eq(setenv(LDA_WORD_CHANGES_ENV, value, 1), 0);
    else
        unsetenv(LDA_WORD_CHANGES_ENV);
    memset(err, 0, sizeof *err);
    *rc = lda_word_changes_settings_get(&s, err);
    unsetenv(LDA_WORD_CHANGES_ENV);
    return s;
}

Test(word_changes, the_switch_reads_off_and_room_chunk)
{
    lda_error err;
    int rc;
    lda_word_changes_settings s = settings_of(NULL, &rc, &err);
    cr_assert(rc == 0 && !s.off && s.room == UINT32_MAX && s.chunk == LDA_WORD_CHANGES_CHUNK);
    s = settings_of("off", &rc, &err);
    cr_assert(rc == 0 && s.off);
    s = settings_of("5:7", &rc, &err);
    cr_assert(rc == 0 && !s.off && s.room == 5 && s.chunk == 7);
    static const char *const bad[] = {"on", "5", "5:", ":7", "0:7", "5:0", "-1:7", "5:7x", "5:-7", "4294967296:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        settings_of(bad[i], &rc, &err);
        cr_assert_eq(rc, -1, "%s taken", bad[i]);
        cr_assert(strstr(err.msg, LDA_WORD_CHANGES_ENV) && strstr(err.msg, bad[i]), "%s: %s", bad[i], err.msg);
    }
}

/* Every room's chunks, in order, each `chunk` long but the room's last; their count. */
static void assert_chunks_cover_rooms(const uint32_t *offsets, uint32_t V, const lda_word_chunk *chunks, size_t n,
                                      uint32_t chunk)
{
    size_t c = 0;
    for (uint32_t w = 0; w < V; w++)
        for (uint64_t first = 0; first < offsets[w + 1] - offsets[w]; first += chunk, c++) {
            cr_assert(c < n, "word %u's room runs past the chunks", w);
            cr_assert(chunks[c].word == w && chunks[c].first == first, "chunk %zu: word %u from %u, not %u from %llu",
                      c, chunks[c].word, chunks[c].first, w, (unsigned long long)first);
        }
    cr_assert_eq(c, n, "chunks past the rooms");
}

/* Where the tokens fit φ's words, each word's room is its tokens (at most the switch's room). */
Test(word_changes, rooms_are_the_words_tokens_where_they_fit)
{
    const uint32_t tokens[] = {0, 5, 1, 130, 64, 0, 65};
    const uint32_t V = sizeof tokens / sizeof *tokens;
    uint32_t offsets[sizeof tokens / sizeof *tokens + 1];
    lda_word_chunk chunks[64];
    lda_word_changes_settings s = {0, UINT32_MAX, 64};
    size_t n = lda_word_changes_plan(tokens, V, 265, &s, offsets, NULL);
    cr_assert_eq(n, 1 + 1 + 3 + 1 + 2, "chunks of 64: %zu", n);
    cr_assert_eq(lda_word_changes_plan(tokens, V, 265, &s, offsets, chunks), n);
    for (uint32_t w = 0; w < V; w++)
        cr_assert_eq(offsets[w + 1] - offsets[w], tokens[w], "word %u", w);
    cr_assert_eq(offsets[V], 265);
    assert_chunks_cover_rooms(offsets, V, chunks, n, 64);
    cr_assert_leq(n, lda_word_changes_most_chunks(V, 265, 64));
    s.room = 60; /* rooms of at most 60 */
    n = lda_word_changes_plan(tokens, V, 265, &s, offsets, chunks);
    for (uint32_t w = 0; w < V; w++)
        cr_assert_eq(offsets[w + 1] - offsets[w], tokens[w] < 60 ? tokens[w] : 60, "word %u", w);
    assert_chunks_cover_rooms(offsets, V, chunks, n, 64);
    cr_assert_eq(n, 5, "one chunk a word with a room");
}

/* Where the tokens outnumber φ's words, every room shrinks by space / tokens (rounded down),
 * so they fit, and a word's room never falls below a word's with fewer tokens. */
Test(word_changes, rooms_shrink_in_proportion_where_the_tokens_outnumber_the_space)
{
    enum { V = 1000 };
    uint32_t tokens[V], offsets[V + 1];
    uint64_t all = 0;
    for (uint32_t w = 0; w < V; w++)
        all += tokens[w] = (w * 7919u) % 4001u; /* 0 .. 4000, scattered */
    lda_word_chunk *chunks = malloc(lda_word_changes_most_chunks(V, all, 97) * sizeof *chunks);
    cr_assert(chunks);
    for (uint64_t space = 1; space < all; space = space * 3 + 17) {
        const lda_word_changes_settings s = {0, UINT32_MAX, 97};
        const size_t n = lda_word_changes_plan(tokens, V, space, &s, offsets, NULL);
        cr_assert_leq(n, lda_word_changes_most_chunks(V, space, 97));
        cr_assert_eq(lda_word_changes_plan(tokens, V, space, &s, offsets, chunks), n);
        cr_assert_leq(offsets[V], space, "space %llu: rooms of %u", (unsigned long long)space, offsets[V]);
        cr_assert_leq(n, lda_word_changes_most_chunks(V, space, 97));
        for (uint32_t w = 0; w < V; w++) {
            const uint64_t room = offsets[w + 1] - offsets[w];
            cr_assert_eq(room, (uint64_t)tokens[w] * space / all, "space %llu, word %u", (unsigned long long)space, w);
        }
        assert_chunks_cover_rooms(offsets, V, chunks, n, 97);
    }
    free(chunks);
}

#ifdef LDA_HAVE_CUDA
#include "backend/cuda_testing.h"

static void require_gpu(void)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) < 1)
        cr_skip_test("no GPU here: %s", why);
}

/* `docs` documents (log-normal lengths, mean 300) of 200 words: at K = 1024 a corpus large beside
 * V × K, so φ's mean is written an iteration (zplan.h); 600 documents' tokens fit φ's 204,800
 * words, 800 documents' outnumber them. */
static char *corpus_of(const char *dir, unsigned docs)
{
    char args[4096], *out = NULL, *path = NULL;
    cr_assert(asprintf(&path, "%s/c%u.ldab", dir, docs) > 0);
    snprintf(args, sizeof args,
             "generate -o '%s' --docs %u --mean-length 300 --lengths lognormal --length-sigma 1.2 "
             "--vocab-size 200 -K 50 -s 3",
             path, docs);
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
    return path;
}

/* The corpus trained with the switch at each of values[] (NULL: unset) into dir/m1, m2, ...: each
 * log says it files by word, or not ("off"); then in two shards on the one GPU (LDAGPU_SHARDS=2:
 * each shard files its own changes into its own counts, summed after); the same model byte for
 * byte. */
static void same_model_filed_or_not(unsigned docs)
{
    require_gpu();
    static const char *const values[] = {"off", NULL, "3:2", "100:40", "1000000:33"};
    const unsigned n = sizeof values / sizeof *values;
    char *dir = test_tmpdir(), *path = corpus_of(dir, docs);
    for (unsigned i = 0; i <= n; i++) {
        char args[8192], *log = NULL;
        snprintf(args, sizeof args,
                 "train '%s' -K 1024 -n 5 -e 5 -s 7 --model collapsed --sampler sparse --piece-length 64 "
                 "--optimize-interval 2 --optimize-burn-in 1 --device cuda -o '%s/m%u'",
                 path, dir, i + 1);
        if (i == n) { /* two shards */
            cr_assert_eq(setenv("LDAGPU_SHARDS", "2", 1), 0);
            const int rc = test_run_ldagpu(args, &log);
            unsetenv("LDAGPU_SHARDS");
            cr_assert_eq(rc, 0, "LDAGPU_SHARDS=2 ldagpu %s: exit %d: %s", args, rc, log);
            free(log);
            break;
        }
        if (values[i])
            cr_assert_eq(setenv(LDA_WORD_CHANGES_ENV, values[i], 1), 0);
        const int rc = test_run_ldagpu(args, &log);
        unsetenv(LDA_WORD_CHANGES_ENV);
        cr_assert_eq(rc, 0, "%s=%s ldagpu %s: exit %d: %s", LDA_WORD_CHANGES_ENV, values[i], args, rc, log);
        cr_assert(strstr(log, "φ's mean written an iteration"), "%s", log);
        const int filed = strstr(log, "n[w,k]'s changes added up by word") != NULL;
        cr_assert_eq(filed, i != 0, "%s=%s: %s", LDA_WORD_CHANGES_ENV, values[i] ? values[i] : "(unset)", log);
        free(log);
    }
    test_assert_runs_same_model(dir, "m", 1, n + 1);
    test_rmdir(dir);
    free(dir);
    free(path);
}

Test(word_changes_gpu, filed_by_word_trains_the_model_of_the_atomics, .timeout = 240)
{
    same_model_filed_or_not(600);
}

Test(word_changes_gpu, rooms_shrunk_to_the_space_train_the_same_model, .timeout = 240)
{
    same_model_filed_or_not(800);
}

/* A bad switch is refused before training, with one line naming it. */
Test(word_changes_gpu, a_bad_switch_is_refused)
{
    require_gpu();
    char *dir = test_tmpdir(), *path = corpus_of(dir, 600), args[4096], *log = NULL;
    snprintf(args, sizeof args, "train '%s' -K 1024 -n 1 --model collapsed --sampler sparse --device cuda -o '%s/m'",
             path, dir);
    cr_assert_eq(setenv(LDA_WORD_CHANGES_ENV, "5", 1), 0);
    const int rc = test_run_ldagpu(args, &log);
    unsetenv(LDA_WORD_CHANGES_ENV);
    cr_assert_eq(rc, 2, "exit %d: %s", rc, log);
    cr_assert(strstr(log, LDA_WORD_CHANGES_ENV ": \"5\" is neither off nor ROOM:CHUNK"), "%s", log);
    free(log);
    test_rmdir(dir);
    free(dir);
    free(path);
}
#endif
