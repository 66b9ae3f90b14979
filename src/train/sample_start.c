/* sample_start.c — a run's start from a sample of its documents; see sample_start.h. */
#include "train/sample_start.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/zplan.h"
#include "core/rng.h"
#include "core/search.h"
#include "train/heldout.h"
#include "util/clock.h"
#include "util/threadpool.h"

/* Slots a task of the draw: enough work to amortize claiming it. */
#define SLOTS_A_TASK 64

void lda_sample_counts_free(lda_sample_counts *c)
{
    free(c->offset);
    free(c->topic);
    free(c->count);
    free(c->word_sum);
    free(c->inv);
    free(c->smooth_sum);
    memset(c, 0, sizeof *c);
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int lda_sample_counts_build(const lda_layout *L, const uint32_t *z_pos, const lda_priors *priors,
                            lda_sample_counts *c, lda_error *err)
{
    memset(c, 0, sizeof *c);
    const uint32_t V = (uint32_t)L->vocab_size, K = priors->K;
    const char *what = "the sample's counts";
    uint64_t *fill = NULL;
    uint32_t *n_k = NULL;
    c->V = V;
    c->K = K;
    c->beta = priors->beta;
    const uint64_t N = L->num_tokens;
    if (!(c->offset = lda_calloc((size_t)V + 1, sizeof *c->offset, what, err)) ||
        !(fill = lda_calloc((size_t)V + 1, sizeof *fill, what, err)) ||
        !(c->topic = lda_malloc_array(N + 1, sizeof *c->topic, what, err)) ||
        !(n_k = lda_calloc(K, sizeof *n_k, what, err)) ||
        !(c->inv = lda_malloc_array(K, sizeof *c->inv, what, err)) ||
        !(c->smooth_sum = lda_malloc_array(K, sizeof *c->smooth_sum, what, err)))
        goto fail;
    /* the tokens' topics filed by word (a counting sort), each word's sorted and run-length coded */
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            c->offset[L->words[lda_layout_pos(L, s, i)] + 1]++;
    for (uint32_t w = 0; w < V; w++)
        c->offset[w + 1] += c->offset[w];
    memcpy(fill, c->offset, ((size_t)V + 1) * sizeof *fill);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            const size_t pos = lda_layout_pos(L, s, i);
            c->topic[fill[L->words[pos]]++] = z_pos[pos];
            n_k[z_pos[pos]]++;
        }
    if (!(c->count = lda_malloc_array(N + 1, sizeof *c->count, what, err)) ||
        !(c->word_sum = lda_malloc_array(N + 1, sizeof *c->word_sum, what, err)))
        goto fail;
    const double vbeta = (double)V * c->beta;
    double smooth = 0;
    for (uint32_t k = 0; k < K; k++) {
        c->inv[k] = 1.0 / ((double)n_k[k] + vbeta);
        smooth += priors->alpha[k] * c->beta * c->inv[k];
        c->smooth_sum[k] = smooth;
    }
    uint64_t out = 0;
    for (uint32_t w = 0; w < V; w++) {
        const uint64_t from = c->offset[w], to = c->offset[w + 1];
        c->offset[w] = out;
        qsort(c->topic + from, to - from, sizeof *c->topic, cmp_u32);
        double sum = 0;
        for (uint64_t j = from; j < to;) {
            const uint32_t k = c->topic[j];
            uint64_t e = j;
            while (e < to && c->topic[e] == k)
                e++;
            c->topic[out] = k; /* out ≤ j: the compacted list never overtakes the sorted one */
            c->count[out] = (uint32_t)(e - j);
            sum += priors->alpha[k] * (double)(e - j) * c->inv[k];
            c->word_sum[out++] = sum;
            j = e;
        }
    }
    c->offset[V] = out;
    free(fill);
    free(n_k);
    return 0;
fail:
    free(fill);
    free(n_k);
    lda_sample_counts_free(c);
    return -1;
}

/* ---- the draw ---- */

typedef struct {
    uint32_t *topic, *count; /* K: the slot's topics so far, in the order they came */
    uint32_t *at, *mark;     /* K: topic k's entry, valid where mark[k] is the slot's epoch */
    double *cum;             /* K: the document part's running sums */
    uint32_t epoch;
} draw_worker;

typedef struct {
    const lda_layout *L;
    const lda_sample_counts *c;
    const double *alpha;
    uint64_t seed;
    uint32_t *z_pos;
    draw_worker *workers;
} draw_ctx;

/* n'[w,k] of a word's list (topics increasing), 0 where k is not in it. */
static uint32_t word_count_of(const lda_sample_counts *c, uint64_t from, uint64_t to, uint32_t k)
{
    uint64_t lo = from, hi = to;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (c->topic[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < to && c->topic[lo] == k ? c->count[lo] : 0;
}

static uint32_t draw_token(const draw_ctx *x, draw_worker *wk, uint32_t m, uint32_t w, uint64_t token)
{
    const lda_sample_counts *c = x->c;
    const uint64_t from = c->offset[w], to = c->offset[w + 1];
    double D = 0;
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t k = wk->topic[j];
        D += (double)wk->count[j] * ((double)word_count_of(c, from, to, k) + c->beta) * c->inv[k];
        wk->cum[j] = D;
    }
    const double A = to > from ? c->word_sum[to - 1] : 0, S = c->smooth_sum[c->K - 1];
    const lda_u32x4 bits = lda_philox(lda_rng_counter(LDA_RNG_SAMPLE_START, 0, token, 0), x->seed);
    const double u = lda_scaled_target_double(D + A + S, lda_uniform_double(bits.v[0]));
    if (u < D) {
        uint32_t j = 0;
        while (j + 1 < m && !(u < wk->cum[j]))
            j++;
        return wk->topic[j];
    }
    if (u - D < A)
        return c->topic[from + (uint64_t)lda_binary_search_double(c->word_sum + from, (int)(to - from), u - D)];
    return (uint32_t)lda_binary_search_double(c->smooth_sum, (int)c->K, u - D - A);
}

static void draw_slots(void *vctx, size_t task, int worker)
{
    const draw_ctx *x = vctx;
    const lda_layout *L = x->L;
    draw_worker *wk = &x->workers[worker];
    const size_t end = (task + 1) * SLOTS_A_TASK < L->num_slots ? (task + 1) * SLOTS_A_TASK : L->num_slots;
    for (size_t s = task * SLOTS_A_TASK; s < end; s++) {
        if (++wk->epoch == 0) { /* the marks wrapped: none is this slot's */
            memset(wk->mark, 0, x->c->K * sizeof *wk->mark);
            wk->epoch = 1;
        }
        uint32_t m = 0;
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            const size_t pos = lda_layout_pos(L, s, i);
            const uint32_t k = draw_token(x, wk, m, L->words[pos], L->slot_token_base[s] + i);
            if (wk->mark[k] != wk->epoch) {
                wk->mark[k] = wk->epoch;
                wk->at[k] = m;
                wk->topic[m] = k;
                wk->count[m++] = 0;
            }
            wk->count[wk->at[k]]++;
            x->z_pos[pos] = k;
        }
    }
}

int lda_sample_start_draw(const lda_layout *L, const lda_sample_counts *c, const lda_priors *priors, uint64_t seed,
                          int threads, uint32_t *z_pos, lda_error *err)
{
    lda_pool *pool = lda_pool_create(threads, err);
    if (!pool)
        return -1;
    const int workers = lda_pool_threads(pool);
    const uint32_t K = c->K;
    const char *what = "the start's draw";
    draw_ctx x = {L, c, priors->alpha, seed, z_pos, lda_calloc((size_t)workers, sizeof(draw_worker), what, err)};
    int rc = -1;
    if (!x.workers)
        goto out;
    for (int i = 0; i < workers; i++) {
        draw_worker *wk = &x.workers[i];
        if (!(wk->topic = lda_malloc_array(K, sizeof *wk->topic, what, err)) ||
            !(wk->count = lda_malloc_array(K, sizeof *wk->count, what, err)) ||
            !(wk->at = lda_malloc_array(K, sizeof *wk->at, what, err)) ||
            !(wk->mark = lda_calloc(K, sizeof *wk->mark, what, err)) ||
            !(wk->cum = lda_malloc_array(K, sizeof *wk->cum, what, err)))
            goto out;
    }
    lda_pool_run(pool, (L->num_slots + SLOTS_A_TASK - 1) / SLOTS_A_TASK, draw_slots, &x);
    rc = 0;
out:
    for (int i = 0; x.workers && i < workers; i++) {
        free(x.workers[i].topic);
        free(x.workers[i].count);
        free(x.workers[i].at);
        free(x.workers[i].mark);
        free(x.workers[i].cum);
    }
    free(x.workers);
    lda_pool_destroy(pool);
    return rc;
}

/* ---- the whole start ---- */

/* The sample's z after its training: its own backend on the CPU, the run's settings. */
static int train_sample(const lda_layout *S, const lda_params *params, const lda_priors *priors, uint32_t iterations,
                        uint32_t *z_pos, lda_error *err)
{
    lda_params p = *params;
    p.device = LDA_DEVICE_CPU; /* the sample is small: the CPU's draws, whatever the run's device */
    p.sampler = LDA_SAMPLER_AUTO;
    lda_zplan_resolve_sampler(&p);
    p.shards = 1;
    p.over_ranks = 0;
    p.shard_devices = 0;
    p.optimize_interval = 0; /* the run's priors, never the sample's */
    p.sample_start = 0;
    lda_backend *b = lda_backend_create(S, &p, err);
    if (!b)
        return -1;
    int rc = -1;
    if (lda_backend_set_priors(b, priors, err) || b->ops->start(b, NULL, 0, err))
        goto out;
    for (uint32_t it = 1; it <= iterations; it++) {
        lda_iter_timing timing;
        if (b->ops->iterate(b, it, &timing, err))
            goto out;
    }
    rc = b->ops->fetch(b, NULL, NULL, z_pos, err);
out:
    lda_backend_destroy(b);
    return rc;
}

int lda_sample_start(const corpus *c, const lda_layout *L, const lda_params *params, const lda_priors *priors,
                     uint32_t iterations, uint32_t *z_pos, lda_sample_start_report *report, lda_error *err)
{
    const double t0 = lda_now_seconds();
    unsigned char *keep = lda_calloc(c->num_docs ? c->num_docs : 1, 1, "the sample", err);
    if (!keep)
        return -1;
    for (size_t d = 0; d < c->num_docs; d += LDA_SAMPLE_START_STRIDE)
        keep[d] = 1;
    corpus *sample = lda_corpus_subset(c, keep, 0, err);
    free(keep);
    if (!sample)
        return -1;
    lda_layout *S = lda_layout_build(sample, params->piece_length, err);
    uint32_t *sample_z = S ? lda_calloc(S->num_positions ? S->num_positions : 1, sizeof *sample_z, "the sample", err)
                           : NULL;
    lda_sample_counts counts = {0};
    int rc = -1;
    if (!sample_z || train_sample(S, params, priors, iterations, sample_z, err) ||
        lda_sample_counts_build(S, sample_z, priors, &counts, err) ||
        lda_sample_start_draw(L, &counts, priors, params->seed, params->threads, z_pos, err))
        goto out;
    report->sample_docs = sample->num_docs;
    report->sample_tokens = sample->num_tokens;
    report->seconds = lda_now_seconds() - t0;
    rc = 0;
out:
    lda_sample_counts_free(&counts);
    free(sample_z);
    lda_layout_free(S);
    corpus_free(sample);
    return rc;
}
