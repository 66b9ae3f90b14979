/* cvb_start.c — a run's start from collapsed variational Bayes; see cvb_start.h. */
#include "train/cvb_start.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "util/memory.h"
#include "util/clock.h"

#define DOCS_A_TASK 16
#define WORDS_A_TASK 256
#define LANES 8 /* a pair's total summed in 8 running sums, combined in one order: the same on any machine */
#define AHEAD 8 /* pairs ahead whose rows are asked for: a pair's word row and a word's pairs are scattered */

/* Asks for the `bytes` at `at`, a cache line at a time. */
static void prefetch_bytes(const void *at, size_t bytes)
{
    for (size_t b = 0; b < bytes; b += 64)
        __builtin_prefetch((const char *)at + b);
}

uint64_t lda_cvb_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K)
{
    /* Pairs are at most the tokens. Each: γ, its word and count, and its place in the word's
     * list; and z in corpus order, a token. */
    const uint64_t pair = (uint64_t)K * sizeof(uint16_t) + 2 * sizeof(uint32_t) + sizeof(size_t);
    return num_tokens * (pair + sizeof(uint32_t)) + (num_docs + 1 + vocab_size + 1) * sizeof(size_t) +
           (uint64_t)vocab_size * K * sizeof(float) + K * sizeof(double);
}

void lda_cvb_free(lda_cvb_state *s)
{
    free(s->doc_pair);
    free(s->pair_word);
    free(s->pair_count);
    free(s->word_start);
    free(s->word_pairs);
    free(s->gamma);
    free(s->n_wk);
    free(s->n_k);
    memset(s, 0, sizeof *s);
}

/* ---- the pairs ---- */

typedef struct {
    uint32_t *stamp, *slot; /* V: word w is in the current document where stamp[w] is its epoch */
    uint32_t *words;        /* the document's distinct words */
    uint32_t epoch;
    float *theta, *weight, *alpha; /* K */
} worker;

typedef struct {
    lda_cvb_state *s;
    const corpus *c;
    const lda_priors *priors;
    worker *workers;
    float *rnz;   /* K: 1 / (n[k] + Vβ) */
    uint64_t seed;
    uint32_t *z;
} job;

static uint32_t next_epoch(worker *wk, uint32_t V)
{
    if (++wk->epoch == 0) { /* wrapped: no word is this document's */
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

/* Document m's distinct words into wk->words (increasing), each one's tokens in wk->slot. */
static uint32_t distinct_words(const corpus *c, size_t m, worker *wk, uint32_t V)
{
    const uint32_t epoch = next_epoch(wk, V);
    uint32_t n = 0;
    for (size_t i = c->doc_offsets[m]; i < c->doc_offsets[m + 1]; i++) {
        const uint32_t w = c->words[i];
        if (wk->stamp[w] != epoch) {
            wk->stamp[w] = epoch;
            wk->slot[w] = 0;
            wk->words[n++] = w;
        }
        wk->slot[w]++;
    }
    qsort(wk->words, n, sizeof *wk->words, by_word);
    return n;
}

static size_t task_end(size_t task, size_t per, size_t n)
{
    return (task + 1) * per < n ? (task + 1) * per : n;
}

static void count_pairs(void *vctx, size_t task, int worker_id)
{
    job *j = vctx;
    worker *wk = &j->workers[worker_id];
    for (size_t m = task * DOCS_A_TASK; m < task_end(task, DOCS_A_TASK, j->c->num_docs); m++)
        j->s->doc_pair[m + 1] = distinct_words(j->c, m, wk, j->s->V);
}

static void fill_pairs(void *vctx, size_t task, int worker_id)
{
    job *j = vctx;
    lda_cvb_state *s = j->s;
    worker *wk = &j->workers[worker_id];
    for (size_t m = task * DOCS_A_TASK; m < task_end(task, DOCS_A_TASK, j->c->num_docs); m++) {
        const uint32_t n = distinct_words(j->c, m, wk, s->V);
        for (uint32_t i = 0; i < n; i++) {
            const size_t p = s->doc_pair[m] + i;
            s->pair_word[p] = wk->words[i];
            s->pair_count[p] = wk->slot[wk->words[i]];
            uint16_t *g = s->gamma + p * s->K;
            memset(g, 0, s->K * sizeof *g);
            const uint32_t u = lda_rng_once(j->seed, LDA_RNG_CVB_START, 0, p);
            g[(uint32_t)(((uint64_t)u * s->K) >> 32)] = LDA_CVB_ONE;
        }
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
                prefetch_bytes(s->gamma + s->word_pairs[i + AHEAD] * K, K * sizeof *s->gamma);
            const size_t p = s->word_pairs[i];
            const float count = (float)s->pair_count[p] * one;
            const uint16_t *restrict g = s->gamma + p * K;
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

/* ---- set-up ---- */

static int workers_create(job *j, int n, uint32_t V, uint32_t K, size_t longest, lda_error *err)
{
    const char *what = "the CVB start";
    if (!(j->workers = lda_calloc((size_t)n, sizeof *j->workers, what, err)))
        return -1;
    for (int i = 0; i < n; i++) {
        worker *wk = &j->workers[i];
        if (!(wk->stamp = lda_calloc(V ? V : 1, sizeof *wk->stamp, what, err)) ||
            !(wk->slot = lda_malloc_array(V ? V : 1, sizeof *wk->slot, what, err)) ||
            !(wk->words = lda_malloc_array(longest ? longest : 1, sizeof *wk->words, what, err)) ||
            !(wk->theta = lda_malloc_array(K, sizeof *wk->theta, what, err)) ||
            !(wk->weight = lda_malloc_array(K, sizeof *wk->weight, what, err)) ||
            !(wk->alpha = lda_malloc_array(K, sizeof *wk->alpha, what, err)))
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
        free(wk->theta);
        free(wk->weight);
        free(wk->alpha);
    }
    free(j->workers);
    j->workers = NULL;
}

static size_t longest_document(const corpus *c)
{
    size_t longest = 0;
    for (size_t m = 0; m < c->num_docs; m++)
        if (c->doc_offsets[m + 1] - c->doc_offsets[m] > longest)
            longest = c->doc_offsets[m + 1] - c->doc_offsets[m];
    return longest;
}

/* The pairs grouped by word (then document), by counting. */
static int index_words(lda_cvb_state *s, lda_error *err)
{
    const char *what = "the CVB start";
    if (!(s->word_start = lda_calloc((size_t)s->V + 1, sizeof *s->word_start, what, err)) ||
        !(s->word_pairs = lda_malloc_array(s->num_pairs ? s->num_pairs : 1, sizeof *s->word_pairs, what, err)))
        return -1;
    for (size_t p = 0; p < s->num_pairs; p++)
        s->word_start[s->pair_word[p] + 1]++;
    for (uint32_t w = 0; w < s->V; w++)
        s->word_start[w + 1] += s->word_start[w];
    size_t *next = lda_malloc_array((size_t)s->V + 1, sizeof *next, what, err);
    if (!next)
        return -1;
    memcpy(next, s->word_start, ((size_t)s->V + 1) * sizeof *next);
    for (size_t p = 0; p < s->num_pairs; p++)
        s->word_pairs[next[s->pair_word[p]]++] = p;
    free(next);
    return 0;
}

int lda_cvb_init(lda_cvb_state *s, const corpus *c, uint32_t K, uint64_t seed, lda_pool *pool, lda_error *err)
{
    const char *what = "the CVB start";
    memset(s, 0, sizeof *s);
    s->K = K;
    s->V = c->vocab_size;
    s->num_docs = c->num_docs;
    job j = {.s = s, .c = c, .seed = seed};
    const int n = lda_pool_threads(pool);
    const size_t tasks = (c->num_docs + DOCS_A_TASK - 1) / DOCS_A_TASK;
    int rc = -1;
    if (!(s->doc_pair = lda_calloc(c->num_docs + 1, sizeof *s->doc_pair, what, err)) ||
        workers_create(&j, n, s->V, K, longest_document(c), err))
        goto out;
    lda_pool_run(pool, tasks, count_pairs, &j);
    for (size_t m = 0; m < c->num_docs; m++)
        s->doc_pair[m + 1] += s->doc_pair[m];
    s->num_pairs = s->doc_pair[c->num_docs];
    const size_t P = s->num_pairs ? s->num_pairs : 1;
    if (!(s->pair_word = lda_malloc_array(P, sizeof *s->pair_word, what, err)) ||
        !(s->pair_count = lda_malloc_array(P, sizeof *s->pair_count, what, err)) ||
        !(s->gamma = lda_malloc_array(P, (size_t)K * sizeof *s->gamma, what, err)) ||
        !(s->n_wk = lda_malloc_array(s->V ? s->V : 1, (size_t)K * sizeof *s->n_wk, what, err)) ||
        !(s->n_k = lda_calloc(K, sizeof *s->n_k, what, err)))
        goto out;
    lda_pool_run(pool, tasks, fill_pairs, &j);
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
 * gives the same bits (a plain running sum would not be vectorized). */
static float lane_total(const float *restrict v, uint32_t K)
{
    float lane[LANES] = {0};
    uint32_t k = 0;
    for (; k + LANES <= K; k += LANES)
        for (uint32_t l = 0; l < LANES; l++)
            lane[l] += v[k + l];
    for (; k < K; k++)
        lane[k % LANES] += v[k];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/* Document m's pairs, each γ set from its document's counts as they move and the word's of the
 * pass's start, both without the pair's own token. */
static void pass_document(const job *j, worker *wk, size_t m)
{
    const lda_cvb_state *s = j->s;
    const uint32_t K = s->K;
    const float one = 1.0f / LDA_CVB_ONE, beta = (float)j->priors->beta;
    float *restrict theta = wk->theta, *restrict v = wk->weight;
    const float *restrict alpha = wk->alpha, *restrict rnz = j->rnz;
    for (uint32_t k = 0; k < K; k++)
        theta[k] = 0;
    for (size_t p = s->doc_pair[m]; p < s->doc_pair[m + 1]; p++) {
        const float count = (float)s->pair_count[p] * one;
        const uint16_t *restrict g = s->gamma + p * K;
        for (uint32_t k = 0; k < K; k++)
            theta[k] += count * (float)g[k];
    }
    for (size_t p = s->doc_pair[m]; p < s->doc_pair[m + 1]; p++) {
        if (p + AHEAD < s->doc_pair[m + 1])
            prefetch_bytes(s->n_wk + (size_t)s->pair_word[p + AHEAD] * K, K * sizeof *s->n_wk);
        uint16_t *restrict g = s->gamma + p * K;
        const float *restrict row = s->n_wk + (size_t)s->pair_word[p] * K;
        for (uint32_t k = 0; k < K; k++) {
            const float own = (float)g[k] * one;
            v[k] = (theta[k] - own + alpha[k]) * (row[k] - own + beta) * rnz[k];
        }
        const float scale = (float)LDA_CVB_ONE / lane_total(v, K), count = (float)s->pair_count[p] * one;
        for (uint32_t k = 0; k < K; k++) {
            int32_t q = (int32_t)(v[k] * scale + 0.5f);
            q = q < (int32_t)LDA_CVB_ONE ? q : (int32_t)LDA_CVB_ONE;
            theta[k] += count * (float)(q - (int32_t)g[k]);
            g[k] = (uint16_t)q;
        }
    }
}

static void pass_documents(void *vctx, size_t task, int worker_id)
{
    job *j = vctx;
    worker *wk = &j->workers[worker_id];
    for (uint32_t k = 0; k < j->s->K; k++)
        wk->alpha[k] = (float)j->priors->alpha[k];
    for (size_t m = task * DOCS_A_TASK; m < task_end(task, DOCS_A_TASK, j->s->num_docs); m++)
        pass_document(j, wk, m);
}

int lda_cvb_pass(lda_cvb_state *s, const lda_priors *priors, lda_pool *pool, lda_error *err)
{
    const int n = lda_pool_threads(pool);
    job j = {.s = s, .priors = priors};
    int rc = -1;
    if (!(j.rnz = lda_malloc_array(s->K, sizeof *j.rnz, "the CVB start", err)) ||
        workers_create(&j, n, 0, s->K, 0, err))
        goto out;
    const double vbeta = (double)s->V * priors->beta;
    for (uint32_t k = 0; k < s->K; k++)
        j.rnz[k] = (float)(1.0 / (s->n_k[k] + vbeta));
    lda_pool_run(pool, (s->num_docs + DOCS_A_TASK - 1) / DOCS_A_TASK, pass_documents, &j);
    sum_counts(s, pool, &j);
    rc = 0;
out:
    workers_free(&j, n);
    free(j.rnz);
    return rc;
}

/* ---- the draw ---- */

uint32_t lda_cvb_pick(const uint16_t *q, uint32_t K, uint32_t u)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < K; k++)
        total += q[k];
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

static void draw_documents(void *vctx, size_t task, int worker_id)
{
    job *j = vctx;
    const lda_cvb_state *s = j->s;
    const corpus *c = j->c;
    worker *wk = &j->workers[worker_id];
    for (size_t m = task * DOCS_A_TASK; m < task_end(task, DOCS_A_TASK, c->num_docs); m++) {
        for (size_t p = s->doc_pair[m]; p < s->doc_pair[m + 1]; p++)
            wk->slot[s->pair_word[p]] = (uint32_t)(p - s->doc_pair[m]);
        for (size_t i = c->doc_offsets[m]; i < c->doc_offsets[m + 1]; i++) {
            const size_t p = s->doc_pair[m] + wk->slot[c->words[i]];
            j->z[i] = lda_cvb_pick(s->gamma + p * s->K, s->K, lda_rng_once(j->seed, LDA_RNG_CVB_START, 1, i));
        }
    }
}

int lda_cvb_draw(const lda_cvb_state *s, const corpus *c, uint64_t seed, lda_pool *pool, uint32_t *z, lda_error *err)
{
    const int n = lda_pool_threads(pool);
    job j = {.s = (lda_cvb_state *)s, .c = c, .seed = seed, .z = z};
    int rc = -1;
    if (workers_create(&j, n, s->V, 1, 0, err) == 0) {
        lda_pool_run(pool, (c->num_docs + DOCS_A_TASK - 1) / DOCS_A_TASK, draw_documents, &j);
        rc = 0;
    }
    workers_free(&j, n);
    return rc;
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
    if (lda_cvb_init(&s, c, K, seed, pool, err))
        goto out;
    for (uint32_t i = 0; i < passes; i++)
        if (lda_cvb_pass(&s, priors, pool, err))
            goto out_state;
    if (lda_cvb_draw(&s, c, seed, pool, z, err))
        goto out_state;
    report->pairs = s.num_pairs;
    report->seconds = lda_now_seconds() - t0;
    rc = 0;
out_state:
    lda_cvb_free(&s);
out:
    lda_pool_destroy(pool);
    return rc;
}
