/* updates_cpu.c — counts and θ/φ updates on the CPU; see updates_cpu.h. */
#include "backend/updates_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gamma.h"
#include "core/phi_mean.h"
#include "core/rng.h"

/* ---- counts ---- */

typedef struct {
    const lda_layout *L;
    const lda_word_index *wi;
    const uint32_t *z;
    uint32_t K;
    uint32_t *n_mk, *n_wk;
    uint64_t *topic_partial; /* chunks × K */
} count_ctx;

static void count_doc_topics(void *vctx, size_t q, int worker)
{
    (void)worker;
    const count_ctx *c = vctx;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        size_t s = q * LDA_WARP + r;
        uint32_t *row = c->n_mk + s * c->K;
        memset(row, 0, c->K * sizeof *row);
        for (uint32_t i = 0; i < c->L->slot_len[s]; i++)
            row[c->z[lda_layout_pos(c->L, s, i)]]++;
    }
}

static void count_word_topics(void *vctx, size_t chunk, int worker)
{
    (void)worker;
    const count_ctx *c = vctx;
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, c->L->vocab_size, &w0, &w1);
    uint64_t *partial = c->topic_partial + chunk * c->K;
    memset(partial, 0, c->K * sizeof *partial);
    for (uint32_t w = w0; w < w1; w++) {
        uint32_t *row = c->n_wk + (size_t)w * c->K;
        memset(row, 0, c->K * sizeof *row);
        for (size_t t = c->wi->offsets[w]; t < c->wi->offsets[w + 1]; t++) {
            uint32_t k = c->z[c->wi->positions[t]];
            row[k]++;
            partial[k]++;
        }
    }
}

int lda_cpu_count(lda_pool *pool, const lda_layout *L, const lda_word_index *wi, const uint32_t *z,
                  uint32_t K, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    size_t chunks = lda_phi_chunks(L->vocab_size);
    count_ctx c = {L, wi, z, K, n_mk, n_wk, NULL};
    if (n_mk)
        lda_pool_run(pool, L->num_warps, count_doc_topics, &c);
    if (!n_wk)
        return 0;
    if (!(c.topic_partial = lda_malloc_array(chunks * K, sizeof *c.topic_partial, "topic counts", err)))
        return -1;
    lda_pool_run(pool, chunks, count_word_topics, &c);
    const int rc = lda_cpu_topic_totals(c.topic_partial, chunks, K, n_k, err);
    free(c.topic_partial);
    return rc;
}

void lda_topic_total_error(lda_error *err, uint32_t k, uint64_t total)
{
    lda_error_fail(err, "topic %u holds %llu tokens; a topic's count is 32-bit (at most %u)", k,
                   (unsigned long long)total, UINT32_MAX);
}

int lda_cpu_topic_totals(const uint64_t *partial, size_t chunks, uint32_t K, uint32_t *n_k, lda_error *err)
{
    for (uint32_t k = 0; k < K; k++) {
        uint64_t total = 0;
        for (size_t ch = 0; ch < chunks; ch++)
            total += partial[ch * K + k];
        if (total > UINT32_MAX) {
            lda_topic_total_error(err, k, total);
            return -1;
        }
        n_k[k] = (uint32_t)total;
    }
    return 0;
}

/* ---- θ ---- */

typedef struct {
    const lda_layout *L;
    const uint32_t *n_mk;
    uint32_t K;
    const lda_priors *priors;
    lda_update update;
    uint64_t seed;
    uint32_t iteration;
    float *theta;
    double *scratch; /* threads × K */
} theta_ctx;

/* Normalises exp(logs) into out, subtracting the maximum first so that tiny variates
 * (shape < 1) cannot underflow the whole row to zero. */
static void normalise_logs(const double *logs, uint32_t K, float *out)
{
    double top = logs[0], sum = 0.0;
    for (uint32_t k = 1; k < K; k++)
        top = logs[k] > top ? logs[k] : top;
    for (uint32_t k = 0; k < K; k++)
        sum += exp(logs[k] - top);
    for (uint32_t k = 0; k < K; k++)
        out[k] = (float)(exp(logs[k] - top) / sum);
}

static void update_theta_warp(void *vctx, size_t q, int worker)
{
    const theta_ctx *c = vctx;
    const uint32_t K = c->K;
    double *logs = c->scratch + (size_t)worker * K;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        size_t s = q * LDA_WARP + r;
        const uint32_t *n = c->n_mk + s * K;
        float *th = c->theta + s * K;
        uint32_t doc = c->L->slot_doc[s];
        if (doc == LDA_NO_DOC) {
            for (uint32_t k = 0; k < K; k++)
                th[k] = 1.0f / (float)K;
        } else if (c->update == LDA_UPDATE_MEAN) {
            double denom = (double)c->L->slot_doc_len[s] + c->priors->alpha_sum;
            for (uint32_t k = 0; k < K; k++)
                th[k] = (float)((n[k] + c->priors->alpha[k]) / denom);
        } else {
            for (uint32_t k = 0; k < K; k++) {
                lda_rng rng;
                lda_rng_init(&rng, c->seed, LDA_RNG_THETA, c->iteration, (uint64_t)doc * K + k);
                logs[k] = lda_log_gamma_variate(&rng, c->priors->alpha[k] + n[k]);
            }
            normalise_logs(logs, K, th);
        }
    }
}

int lda_cpu_update_theta(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, uint32_t K,
                         const lda_priors *priors, lda_update update, uint64_t seed, uint32_t iteration,
                         float *theta, lda_error *err)
{
    theta_ctx c = {L, n_mk, K, priors, update, seed, iteration, theta, NULL};
    if (!(c.scratch = lda_malloc_array((size_t)lda_pool_threads(pool) * K, sizeof(double), "theta scratch", err)))
        return -1;
    lda_pool_run(pool, L->num_warps, update_theta_warp, &c);
    free(c.scratch);
    return 0;
}

/* ---- φ ---- */

typedef struct {
    uint32_t V, K;
    const uint32_t *n_wk, *n_k;
    double beta;
    lda_update update;
    uint64_t seed;
    uint32_t iteration;
    float *phi;
    double *column_partial; /* chunks × K: Σ over the chunk's words of the Gamma variates */
    double *column_scale;   /* K: 1 / column total */
    float *mean_scale;      /* K: the mean's s_k (core/phi_mean.h) */
} phi_ctx;

static void draw_phi_chunk(void *vctx, size_t chunk, int worker)
{
    (void)worker;
    const phi_ctx *c = vctx;
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, c->V, &w0, &w1);
    double *partial = c->column_partial + chunk * c->K;
    memset(partial, 0, c->K * sizeof *partial);
    for (uint32_t w = w0; w < w1; w++) {
        const uint32_t *n = c->n_wk + (size_t)w * c->K;
        float *row = c->phi + (size_t)w * c->K;
        for (uint32_t k = 0; k < c->K; k++) {
            lda_rng rng;
            lda_rng_init(&rng, c->seed, LDA_RNG_PHI, c->iteration, (uint64_t)w * c->K + k);
            float g = (float)exp(lda_log_gamma_variate(&rng, c->beta + n[k]));
            row[k] = g;
            partial[k] += g;
        }
    }
}

static void scale_phi_chunk(void *vctx, size_t chunk, int worker)
{
    (void)worker;
    const phi_ctx *c = vctx;
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, c->V, &w0, &w1);
    for (uint32_t w = w0; w < w1; w++) {
        float *row = c->phi + (size_t)w * c->K;
        for (uint32_t k = 0; k < c->K; k++)
            row[k] = c->column_scale[k] > 0.0 ? (float)(row[k] * c->column_scale[k]) : 1.0f / (float)c->V;
    }
}

static void mean_phi_chunk(void *vctx, size_t chunk, int worker)
{
    (void)worker;
    const phi_ctx *c = vctx;
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, c->V, &w0, &w1);
    for (uint32_t w = w0; w < w1; w++) {
        const uint32_t *n = c->n_wk + (size_t)w * c->K;
        float *row = c->phi + (size_t)w * c->K;
        const float beta = (float)c->beta;
        for (uint32_t k = 0; k < c->K; k++)
            row[k] = lda_phi_mean_value(n[k], beta, c->mean_scale[k]);
    }
}

int lda_cpu_update_phi(lda_pool *pool, uint32_t V, const uint32_t *n_wk, const uint32_t *n_k,
                       uint32_t K, double beta, lda_update update, uint64_t seed, uint32_t iteration,
                       float *phi, lda_error *err)
{
    size_t chunks = lda_phi_chunks(V);
    phi_ctx c = {V, K, n_wk, n_k, beta, update, seed, iteration, phi, NULL, NULL, NULL};
    if (update == LDA_UPDATE_MEAN) {
        if (!(c.mean_scale = lda_malloc_array(K, sizeof *c.mean_scale, "phi's scales", err)))
            return -1;
        for (uint32_t k = 0; k < K; k++)
            c.mean_scale[k] = lda_phi_mean_scale(n_k[k], V, beta);
        lda_pool_run(pool, chunks, mean_phi_chunk, &c);
        free(c.mean_scale);
        return 0;
    }
    if (!(c.column_partial = lda_malloc_array(chunks * K, sizeof(double), "phi column sums", err)) ||
        !(c.column_scale = lda_calloc(K, sizeof(double), "phi column sums", err))) {
        free(c.column_partial);
        return -1;
    }
    lda_pool_run(pool, chunks, draw_phi_chunk, &c);
    for (size_t ch = 0; ch < chunks; ch++) /* fixed order: same sums for any thread count */
        for (uint32_t k = 0; k < K; k++)
            c.column_scale[k] += c.column_partial[ch * K + k];
    for (uint32_t k = 0; k < K; k++) /* a column that underflowed entirely becomes uniform */
        c.column_scale[k] = c.column_scale[k] > 0.0 ? 1.0 / c.column_scale[k] : 0.0;
    lda_pool_run(pool, chunks, scale_phi_chunk, &c);
    free(c.column_partial);
    free(c.column_scale);
    return 0;
}
