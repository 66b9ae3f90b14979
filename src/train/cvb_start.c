/* cvb_start.c — a run's start from collapsed variational Bayes; see cvb_start.h. */
#include "train/cvb_start.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "util/memory.h"
#include "util/clock.h"
#include "util/vector_clones.h"

#define WORDS_A_TASK 256
#define LANES 8 /* a pair's total summed in 8 running sums, combined in one order: the same on any machine */
#define AHEAD 8 /* slots ahead whose θ row (and word row, at a new word) are asked for */
#define THETA_BYTES (256u << 10) /* a block's θ rows: within a core's L2 */
#define BLOCKS_A_WORKER 8        /* at most 1 / (this × workers) of the tokens a block, for balance */

/* Asks for the `bytes` at `at`, a cache line at a time. */
static void prefetch_bytes(const void *at, size_t bytes)
{
    for (size_t b = 0; b < bytes; b += 64)
        __builtin_prefetch((const char *)at + b);
}

uint64_t lda_cvb_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K)
{
    /* Pairs are at most the tokens. Each: γ, its word, document and count, and its place in the
     * word's list; a token, its slot, and z in corpus order; a block, its two bounds (at most a
     * block a document); a document's and a word's counts. */
    const uint64_t pair = (uint64_t)K * sizeof(uint16_t) + 3 * sizeof(uint32_t) + sizeof(size_t);
    return num_tokens * (pair + 2 * sizeof(uint32_t)) + (2 * num_docs + 2 + vocab_size + 1) * sizeof(size_t) +
           (num_docs + vocab_size) * K * sizeof(float) + K * sizeof(double);
}

void lda_cvb_free(lda_cvb_state *s)
{
    free(s->block_doc);
    free(s->block_slot);
    free(s->slot_word);
    free(s->slot_doc);
    free(s->slot_count);
    free(s->slot_tokens);
    free(s->word_start);
    free(s->word_slots);
    free(s->gamma);
    free(s->theta);
    free(s->n_wk);
    free(s->n_k);
    memset(s, 0, sizeof *s);
}

/* ---- the pairs ---- */

typedef struct {
    uint32_t *stamp, *slot; /* V: word w is in the current document or block where stamp[w] is its epoch */
    uint32_t *words;        /* a block's distinct words */
    uint64_t *order;        /* a block's tokens by word, then document: (document << 32) | token */
    uint32_t epoch;
    float *theta;           /* a block's documents × K */
    float *weight, *alpha;  /* K */
    uint32_t *tally;        /* K: a pair's tokens in each topic (a start from given topics) */
} worker;

typedef struct {
    lda_cvb_state *s;
    const corpus *c;
    const lda_priors *priors;
    worker *workers;
    float *rnz;   /* K: 1 / (n[k] + Vβ) */
    uint64_t seed;
    uint32_t *z;         /* the draw's topics */
    const uint32_t *from; /* the given topics a pair's first γ is made of (NULL: one topic a pair) */
} job;

static uint32_t next_epoch(worker *wk, uint32_t V)
{
    if (++wk->epoch == 0) { /* wrapped: no word is this document's or block's */
        memset(wk->stamp, 0, (size_t)V * sizeof *wk->stamp);
        wk->epoch = 1;
    }
    return wk->epoch;
}

static int by_word(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t task_end(size_t task, size_t per, size_t n)
{
    return (task + 1) * per < n ? (task + 1) * per : n;
}

/* Blocks of consecutive documents: at most `docs` documents and (but for one document) `tokens`
 * tokens each. Returns the number of blocks, their bounds in block_doc when it is not NULL. */
static size_t cut_blocks(const corpus *c, size_t docs, size_t tokens, size_t *block_doc)
{
    size_t n = 0, first = 0;
    for (size_t m = 1; m <= c->num_docs; m++) {
        const size_t next = m < c->num_docs ? m + 1 : m;
        if (m == c->num_docs || m - first == docs || c->doc_offsets[next] - c->doc_offsets[first] > tokens) {
            if (block_doc)
                block_doc[n] = first;
            n++;
            first = m;
        }
    }
    if (block_doc)
        block_doc[n] = c->num_docs;
    return n;
}

/* Block b's pairs: Σ over its documents of their distinct words. */
static void count_pairs(void *vctx, size_t b, int worker_id)
{
    job *j = vctx;
    const corpus *c = j->c;
    worker *wk = &j->workers[worker_id];
    size_t n = 0;
    for (size_t m = j->s->block_doc[b]; m < j->s->block_doc[b + 1]; m++) {
        const uint32_t epoch = next_epoch(wk, j->s->V);
        for (size_t i = c->doc_offsets[m]; i < c->doc_offsets[m + 1]; i++)
            if (wk->stamp[c->words[i]] != epoch) {
                wk->stamp[c->words[i]] = epoch;
                n++;
            }
    }
    j->s->block_slot[b + 1] = n;
}

/* A pair's first γ from its tokens' given topics, tallied in `tally` (zeroed here): each topic's
 * share of the `count` tokens in whole units, rounded down, and what the rounding left (fewer units
 * than the pair has topics) added to its most frequent topic, the first of a tie; so γ sums to
 * LDA_CVB_ONE exactly. */
static void gamma_from_tally(uint16_t *restrict g, uint32_t *restrict tally, uint32_t K, uint32_t count)
{
    uint32_t given = 0, most = 0;
    for (uint32_t k = 0; k < K; k++) {
        g[k] = (uint16_t)((uint64_t)tally[k] * LDA_CVB_ONE / count);
        given += g[k];
        most = tally[k] > tally[most] ? k : most;
    }
    g[most] = (uint16_t)(g[most] + (LDA_CVB_ONE - given));
    memset(tally, 0, K * sizeof *tally);
}

/* Block b's slots: its tokens put in order by word (a stable scatter, so by document within a
 * word), each run of one word in one document a pair; a pair's first γ one topic, keyed on its
 * first token, or made of its tokens' given topics. */
static void fill_pairs(void *vctx, size_t b, int worker_id)
{
    job *j = vctx;
    lda_cvb_state *s = j->s;
    const corpus *c = j->c;
    worker *wk = &j->workers[worker_id];
    const size_t m0 = s->block_doc[b], m1 = s->block_doc[b + 1], t0 = c->doc_offsets[m0];
    const uint32_t epoch = next_epoch(wk, s->V);
    uint32_t n = 0;
    for (size_t i = t0; i < c->doc_offsets[m1]; i++) {
        const uint32_t w = c->words[i];
        if (wk->stamp[w] != epoch) {
            wk->stamp[w] = epoch;
            wk->slot[w] = 0;
            wk->words[n++] = w;
        }
        wk->slot[w]++;
    }
    qsort(wk->words, n, sizeof *wk->words, by_word);
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) { /* each word's first place in the order */
        const uint32_t tokens = wk->slot[wk->words[i]];
        wk->slot[wk->words[i]] = at;
        at += tokens;
    }
    for (size_t m = m0; m < m1; m++)
        for (size_t i = c->doc_offsets[m]; i < c->doc_offsets[m + 1]; i++)
            wk->order[wk->slot[c->words[i]]++] = (uint64_t)(m - m0) << 32 | (uint32_t)(i - t0);
    size_t slot = s->block_slot[b];
    for (uint32_t i = 0; i < at; slot++) {
        const uint64_t first = wk->order[i];
        const uint32_t w = c->words[t0 + (uint32_t)first];
        uint32_t count = 0;
        for (; i < at && wk->order[i] >> 32 == first >> 32 && c->words[t0 + (uint32_t)wk->order[i]] == w; i++, count++) {
            s->slot_tokens[t0 + i] = (uint32_t)wk->order[i];
            if (j->from)
                wk->tally[j->from[t0 + (uint32_t)wk->order[i]]]++;
        }
        s->slot_word[slot] = w;
        s->slot_doc[slot] = (uint32_t)(first >> 32);
        s->slot_count[slot] = count;
        uint16_t *g = s->gamma + slot * s->K;
        if (j->from) {
            gamma_from_tally(g, wk->tally, s->K, count);
            continue;
        }
        memset(g, 0, s->K * sizeof *g);
        const uint32_t u = lda_rng_once(j->seed, LDA_RNG_CVB_START, 0, t0 + (uint32_t)first);
        g[(uint32_t)(((uint64_t)u * s->K) >> 32)] = LDA_CVB_ONE;
    }
}

/* ---- the counts: each word's Σ count γ over its pairs in their fixed order, one worker a word ---- */

static void sum_words(void *vctx, size_t task, int worker_id)
{
    (void)worker_id;
    job *j = vctx;
    lda_cvb_state *s = j->s;
    const uint32_t K = s->K;
    const float one = 1.0f / LDA_CVB_ONE;
    for (size_t w = task * WORDS_A_TASK; w < task_end(task, WORDS_A_TASK, s->V); w++) {
        float *restrict row = s->n_wk + w * K;
        for (uint32_t k = 0; k < K; k++)
            row[k] = 0;
        for (size_t i = s->word_start[w]; i < s->word_start[w + 1]; i++) {
            if (i + AHEAD < s->num_pairs)
                prefetch_bytes(s->gamma + s->word_slots[i + AHEAD] * K, K * sizeof *s->gamma);
            const size_t slot = s->word_slots[i];
            const float count = (float)s->slot_count[slot] * one;
            const uint16_t *restrict g = s->gamma + slot * K;
            for (uint32_t k = 0; k < K; k++)
                row[k] += count * (float)g[k];
        }
    }
}

static void sum_counts(lda_cvb_state *s, lda_pool *pool, job *j)
{
    lda_pool_run(pool, (s->V + WORDS_A_TASK - 1) / WORDS_A_TASK, sum_words, j);
    for (uint32_t k = 0; k < s->K; k++)
        s->n_k[k] = 0;
    for (size_t w = 0; w < s->V; w++)
        for (uint32_t k = 0; k < s->K; k++)
            s->n_k[k] += s->n_wk[w * s->K + k];
}

/* Block b's documents' counts, Σ count γ over their pairs in slot order (a document's in
 * increasing word order), into `theta` (the block's documents × K). */
static void sum_documents(const lda_cvb_state *s, size_t b, float *restrict theta)
{
    const uint32_t K = s->K;
    const float one = 1.0f / LDA_CVB_ONE;
    memset(theta, 0, (s->block_doc[b + 1] - s->block_doc[b]) * K * sizeof *theta);
    for (size_t p = s->block_slot[b]; p < s->block_slot[b + 1]; p++) {
        float *restrict row = theta + (size_t)s->slot_doc[p] * K;
        const float count = (float)s->slot_count[p] * one;
        const uint16_t *restrict g = s->gamma + p * K;
        for (uint32_t k = 0; k < K; k++)
            row[k] += count * (float)g[k];
    }
}

static void sum_block(void *vctx, size_t b, int worker_id)
{
    (void)worker_id;
    const job *j = vctx;
    sum_documents(j->s, b, j->s->theta + j->s->block_doc[b] * j->s->K);
}

/* ---- set-up ---- */

/* Each worker's scratch: for the pairs' set-up (V words, a block's `tokens`) or for a pass (a
 * block's `docs` θ rows). What a pass writes for every pair (weight, and the θ rows) is kept a
 * cache line apart from every other worker's: from malloc, two workers' arrays shared lines, and a
 * pass on 2 threads of wikimix took 0.16–0.24 s instead of 0.07. */
static int workers_create(job *j, int n, uint32_t V, uint32_t K, size_t tokens, size_t docs, lda_error *err)
{
    const char *what = "the CVB start";
    if (!(j->workers = lda_calloc((size_t)n, sizeof *j->workers, what, err)))
        return -1;
    for (int i = 0; i < n; i++) {
        worker *wk = &j->workers[i];
        if (!(wk->stamp = lda_calloc(V ? V : 1, sizeof *wk->stamp, what, err)) ||
            !(wk->slot = lda_malloc_array(V ? V : 1, sizeof *wk->slot, what, err)) ||
            !(wk->words = lda_malloc_array(tokens ? tokens : 1, sizeof *wk->words, what, err)) ||
            !(wk->order = lda_malloc_array(tokens ? tokens : 1, sizeof *wk->order, what, err)) ||
            !(wk->theta = lda_malloc_lines(docs ? docs : 1, (size_t)K * sizeof *wk->theta, what, err)) ||
            !(wk->weight = lda_malloc_lines(K, sizeof *wk->weight, what, err)) ||
            !(wk->alpha = lda_malloc_lines(K, sizeof *wk->alpha, what, err)) ||
            !(wk->tally = lda_calloc(K, sizeof *wk->tally, what, err)))
            return -1;
    }
    return 0;
}

static void workers_free(job *j, int n)
{
    for (int i = 0; j->workers && i < n; i++) {
        worker *wk = &j->workers[i];
        free(wk->stamp);
        free(wk->slot);
        free(wk->words);
        free(wk->order);
        free(wk->theta);
        free(wk->weight);
        free(wk->alpha);
        free(wk->tally);
    }
    free(j->workers);
    j->workers = NULL;
}

/* The most documents, and tokens, of a block. */
static void largest_block(const lda_cvb_state *s, const corpus *c, size_t *docs, size_t *tokens)
{
    *docs = *tokens = 0;
    for (size_t b = 0; b < s->num_blocks; b++) {
        const size_t d = s->block_doc[b + 1] - s->block_doc[b];
        const size_t t = c->doc_offsets[s->block_doc[b + 1]] - c->doc_offsets[s->block_doc[b]];
        *docs = d > *docs ? d : *docs;
        *tokens = t > *tokens ? t : *tokens;
    }
}

/* The slots grouped by word, then document (blocks in order, a block's slots of a word in order). */
static int index_words(lda_cvb_state *s, lda_error *err)
{
    const char *what = "the CVB start";
    if (!(s->word_start = lda_calloc((size_t)s->V + 1, sizeof *s->word_start, what, err)) ||
        !(s->word_slots = lda_malloc_array(s->num_pairs ? s->num_pairs : 1, sizeof *s->word_slots, what, err)))
        return -1;
    for (size_t p = 0; p < s->num_pairs; p++)
        s->word_start[s->slot_word[p] + 1]++;
    for (uint32_t w = 0; w < s->V; w++)
        s->word_start[w + 1] += s->word_start[w];
    size_t *next = lda_malloc_array((size_t)s->V + 1, sizeof *next, what, err);
    if (!next)
        return -1;
    memcpy(next, s->word_start, ((size_t)s->V + 1) * sizeof *next);
    for (size_t p = 0; p < s->num_pairs; p++)
        s->word_slots[next[s->slot_word[p]]++] = p;
    free(next);
    return 0;
}

int lda_cvb_init(lda_cvb_state *s, const corpus *c, uint32_t K, uint64_t seed, const uint32_t *z, lda_pool *pool,
                 lda_error *err)
{
    const char *what = "the CVB start";
    memset(s, 0, sizeof *s);
    s->K = K;
    s->V = c->vocab_size;
    s->num_docs = c->num_docs;
    job j = {.s = s, .c = c, .seed = seed, .from = z};
    const int n = lda_pool_threads(pool);
    const size_t docs = THETA_BYTES / ((size_t)K * sizeof(float)) ? THETA_BYTES / ((size_t)K * sizeof(float)) : 1;
    const size_t tokens = c->num_tokens / ((size_t)BLOCKS_A_WORKER * (size_t)n) + 1;
    s->num_blocks = cut_blocks(c, docs, tokens, NULL);
    int rc = -1;
    if (!(s->block_doc = lda_malloc_array(s->num_blocks + 1, sizeof *s->block_doc, what, err)) ||
        !(s->block_slot = lda_calloc(s->num_blocks + 1, sizeof *s->block_slot, what, err)))
        goto out;
    cut_blocks(c, docs, tokens, s->block_doc);
    size_t most_tokens;
    largest_block(s, c, &s->most_block_docs, &most_tokens);
    if (workers_create(&j, n, s->V, K, most_tokens, 0, err))
        goto out;
    lda_pool_run(pool, s->num_blocks, count_pairs, &j);
    for (size_t b = 0; b < s->num_blocks; b++)
        s->block_slot[b + 1] += s->block_slot[b];
    s->num_pairs = s->block_slot[s->num_blocks];
    const size_t P = s->num_pairs ? s->num_pairs : 1;
    if (!(s->slot_word = lda_malloc_array(P, sizeof *s->slot_word, what, err)) ||
        !(s->slot_doc = lda_malloc_array(P, sizeof *s->slot_doc, what, err)) ||
        !(s->slot_count = lda_malloc_array(P, sizeof *s->slot_count, what, err)) ||
        !(s->slot_tokens = lda_malloc_array(c->num_tokens ? c->num_tokens : 1, sizeof *s->slot_tokens, what, err)) ||
        !(s->gamma = lda_malloc_huge(P, (size_t)K * sizeof *s->gamma, what, err)) ||
        !(s->theta = lda_malloc_huge(s->num_docs ? s->num_docs : 1, (size_t)K * sizeof *s->theta, what, err)) ||
        !(s->n_wk = lda_malloc_huge(s->V ? s->V : 1, (size_t)K * sizeof *s->n_wk, what, err)) ||
        !(s->n_k = lda_calloc(K, sizeof *s->n_k, what, err)))
        goto out;
    lda_pool_run(pool, s->num_blocks, fill_pairs, &j);
    lda_pool_run(pool, s->num_blocks, sum_block, &j);
    if (index_words(s, err))
        goto out;
    sum_counts(s, pool, &j);
    rc = 0;
out:
    workers_free(&j, n);
    if (rc)
        lda_cvb_free(s);
    return rc;
}

/* ---- a pass ---- */

/* Σ v in LANES running sums combined in one order, so that every machine and vector width
 * gives the same bits: lane l adds v[l], v[l + LANES], ... in turn (a tail's missing entries add
 * zeros, which change no sum). Two vectors of four, in GCC's vector extension: a plain loop over
 * the lanes was not vectorized, and one vector of eight was kept in memory without AVX. */
typedef float four __attribute__((vector_size(4 * sizeof(float))));

static float lane_total(const float *restrict v, uint32_t K)
{
    four low = {0}, high = {0}, a, b;
    uint32_t k = 0;
    for (; k + LANES <= K; k += LANES) {
        memcpy(&a, v + k, sizeof a);
        memcpy(&b, v + k + 4, sizeof b);
        low += a;
        high += b;
    }
    if (k < K) {
        float tail[LANES] = {0};
        memcpy(tail, v + k, (K - k) * sizeof *v);
        memcpy(&a, tail, sizeof a);
        memcpy(&b, tail + 4, sizeof b);
        low += a;
        high += b;
    }
    return ((low[0] + low[1]) + (low[2] + low[3])) + ((high[0] + high[1]) + (high[2] + high[3]));
}

/* One pair's γ from its document's counts θ as they move and its word's row of the pass's start,
 * both without the pair's own token; θ moved by the change, and the new γ added to the
 * document's next counts (in the order a sum of its pairs would add them). */
LDA_VECTOR_CLONES
static void pass_pair(const job *j, worker *wk, float *restrict theta, float *restrict next, const float *restrict row,
                      uint16_t *restrict g, uint32_t tokens)
{
    const uint32_t K = j->s->K;
    const float one = 1.0f / LDA_CVB_ONE, beta = (float)j->priors->beta;
    float *restrict v = wk->weight;
    const float *restrict alpha = wk->alpha, *restrict rnz = j->rnz;
    for (uint32_t k = 0; k < K; k++) {
        const float own = (float)g[k] * one;
        v[k] = (theta[k] - own + alpha[k]) * (row[k] - own + beta) * rnz[k];
    }
    const float scale = (float)LDA_CVB_ONE / lane_total(v, K), count = (float)tokens * one;
    for (uint32_t k = 0; k < K; k++) {
        int32_t q = (int32_t)(v[k] * scale + 0.5f);
        q = q < (int32_t)LDA_CVB_ONE ? q : (int32_t)LDA_CVB_ONE;
        theta[k] += count * (float)(q - (int32_t)g[k]);
        next[k] += count * (float)q;
        g[k] = (uint16_t)q;
    }
}

/* Block b's pairs word by word, each slot's γ set in turn from its document's counts as they
 * move (begun from the state's, which are the pass's start's) and its word's row. A document
 * meets its pairs in increasing word order, so its counts move as if it were drawn alone. The
 * state's counts become the new γ's sums. */
static void pass_block(void *vctx, size_t b, int worker_id)
{
    job *j = vctx;
    const lda_cvb_state *s = j->s;
    const uint32_t K = s->K;
    worker *wk = &j->workers[worker_id];
    for (uint32_t k = 0; k < K; k++)
        wk->alpha[k] = (float)j->priors->alpha[k];
    const size_t first = s->block_slot[b], end = s->block_slot[b + 1];
    const size_t rows = (s->block_doc[b + 1] - s->block_doc[b]) * K;
    float *next = s->theta + s->block_doc[b] * K;
    memcpy(wk->theta, next, rows * sizeof *next);
    memset(next, 0, rows * sizeof *next);
    for (size_t p = first; p < end; p++) {
        if (p + AHEAD < end) {
            prefetch_bytes(wk->theta + (size_t)s->slot_doc[p + AHEAD] * K, K * sizeof *wk->theta);
            prefetch_bytes(next + (size_t)s->slot_doc[p + AHEAD] * K, K * sizeof *next);
            if (s->slot_word[p + AHEAD] != s->slot_word[p + AHEAD - 1])
                prefetch_bytes(s->n_wk + (size_t)s->slot_word[p + AHEAD] * K, K * sizeof *s->n_wk);
        }
        const size_t row = (size_t)s->slot_doc[p] * K;
        pass_pair(j, wk, wk->theta + row, next + row, s->n_wk + (size_t)s->slot_word[p] * K, s->gamma + p * K,
                  s->slot_count[p]);
    }
}

int lda_cvb_pass(lda_cvb_state *s, const lda_priors *priors, lda_pool *pool, lda_error *err)
{
    const int n = lda_pool_threads(pool);
    job j = {.s = s, .priors = priors};
    int rc = -1;
    if (!(j.rnz = lda_malloc_array(s->K, sizeof *j.rnz, "the CVB start", err)) ||
        workers_create(&j, n, 0, s->K, 0, s->most_block_docs, err))
        goto out;
    const double vbeta = (double)s->V * priors->beta;
    for (uint32_t k = 0; k < s->K; k++)
        j.rnz[k] = (float)(1.0 / (s->n_k[k] + vbeta));
    lda_pool_run(pool, s->num_blocks, pass_block, &j);
    sum_counts(s, pool, &j);
    rc = 0;
out:
    workers_free(&j, n);
    free(j.rnz);
    return rc;
}

void lda_cvb_phi(const lda_cvb_state *s, const lda_priors *priors, float *phi_vk)
{
    const double vbeta = (double)s->V * priors->beta;
    for (size_t w = 0; w < s->V; w++)
        for (uint32_t k = 0; k < s->K; k++)
            phi_vk[w * s->K + k] = (float)((s->n_wk[w * s->K + k] + priors->beta) / (s->n_k[k] + vbeta));
}

/* ---- the draw ---- */

static uint64_t gamma_total(const uint16_t *q, uint32_t K)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < K; k++)
        total += q[k];
    return total;
}

/* lda_cvb_pick with q's total given. */
static uint32_t pick_from(const uint16_t *q, uint32_t K, uint64_t total, uint32_t u)
{
    if (total == 0) /* every share rounded to 0 (K in the tens of thousands): any topic */
        return (uint32_t)(((uint64_t)u * K) >> 32);
    const uint64_t target = ((uint64_t)u * total) >> 32;
    uint64_t run = 0;
    for (uint32_t k = 0; k < K; k++) {
        run += q[k];
        if (target < run)
            return k;
    }
    return K - 1; /* not reached: target < total */
}

uint32_t lda_cvb_pick(const uint16_t *q, uint32_t K, uint32_t u)
{
    return pick_from(q, K, gamma_total(q, K), u);
}

/* Block b's tokens, slot by slot: γ read in order, its total once a pair. */
static void draw_block(void *vctx, size_t b, int worker_id)
{
    (void)worker_id;
    job *j = vctx;
    const lda_cvb_state *s = j->s;
    const uint32_t K = s->K;
    const size_t t0 = j->c->doc_offsets[s->block_doc[b]];
    size_t at = t0;
    for (size_t p = s->block_slot[b]; p < s->block_slot[b + 1]; p++) {
        const uint16_t *g = s->gamma + p * K;
        const uint64_t total = gamma_total(g, K);
        for (uint32_t n = 0; n < s->slot_count[p]; n++, at++) {
            const size_t i = t0 + s->slot_tokens[at];
            j->z[i] = pick_from(g, K, total, lda_rng_once(j->seed, LDA_RNG_CVB_START, 1, i));
        }
    }
}

void lda_cvb_draw(const lda_cvb_state *s, const corpus *c, uint64_t seed, lda_pool *pool, uint32_t *z)
{
    job j = {.s = (lda_cvb_state *)s, .c = c, .seed = seed, .z = z};
    lda_pool_run(pool, s->num_blocks, draw_block, &j);
}

int lda_cvb_run(lda_cvb_state *s, const corpus *c, const lda_priors *priors, uint32_t K, uint64_t seed,
                const uint32_t *from, uint32_t passes, lda_pool *pool, lda_error *err)
{
    if (lda_cvb_init(s, c, K, seed, from, pool, err))
        return -1;
    for (uint32_t i = 0; i < passes; i++)
        if (lda_cvb_pass(s, priors, pool, err)) {
            lda_cvb_free(s);
            return -1;
        }
    return 0;
}

int lda_cvb_start(const corpus *c, const lda_priors *priors, uint32_t K, uint64_t seed, int threads, uint32_t passes,
                  uint32_t *z, lda_cvb_start_report *report, lda_error *err)
{
    const double t0 = lda_now_seconds();
    lda_pool *pool = lda_pool_create(threads, err);
    if (!pool)
        return -1;
    lda_cvb_state s;
    int rc = -1;
    if (lda_cvb_run(&s, c, priors, K, seed, NULL, passes, pool, err))
        goto out;
    lda_cvb_draw(&s, c, seed, pool, z);
    report->pairs = s.num_pairs;
    report->seconds = lda_now_seconds() - t0;
    rc = 0;
    lda_cvb_free(&s);
out:
    lda_pool_destroy(pool);
    return rc;
}
