/* test_gpu.c — the CUDA backend against the CPU reference. Every test skips cleanly on a
 * machine without a GPU, or in a build without CUDA.
 *
 * - exactness: with small integer weights every partial sum is exact, so each GPU sampler
 *   must return exactly the CPU binary search's index for the same uniforms;
 * - statistics: chi-squared of 10^6 GPU draws against the exact distribution;
 * - updates: counts equal the CPU's for the same z; Gamma and Dirichlet moments;
 * - end to end: planted topics recovered; CPU and GPU reach similar log-likelihoods. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "backend/sampler_cpu.h"
#include "backend/sampler_sparse.h"
#include "backend/updates_cpu.h"
#include "core/rng.h"
#include "corpus/corpus_read.h"
#include "helpers.h"
#include "pieces.h"
#include "planted.h"

#ifdef LDA_HAVE_CUDA
#include "backend/cuda_testing.h"

static void require_gpu(void)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0)
        cr_skip_test("no GPU here: %s", why);
}

static const char *sampler_name(lda_sampler s)
{
    return lda_choice_name(lda_sampler_choices, s);
}

Test(gpu, philox_equals_the_host_implementation)
{
    require_gpu();
    enum { N = 4096 };
    lda_u32x4 *ctr = malloc(N * sizeof *ctr), *dev = malloc(N * sizeof *dev);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++)
            ctr[i].v[j] = lda_rng_once(3, LDA_RNG_TEST, (uint32_t)j, (uint64_t)i);
    lda_error err = {0};
    const uint64_t seed = 0x0123456789abcdefull;
    cr_assert_eq(lda_cuda_philox(seed, ctr, dev, N, &err), 0, "%s", err.msg);
    for (int i = 0; i < N; i++) {
        lda_u32x4 host = lda_philox_host(ctr[i], (uint32_t)seed, (uint32_t)(seed >> 32));
        cr_assert_eq(memcmp(&host, &dev[i], sizeof host), 0, "counter %d differs", i);
    }
    free(ctr);
    free(dev);
}

/* runs = 0: documents of unequal lengths (1..57 tokens, so warps have ragged ends), 3 warps.
 * runs = 1: documents of up to 700 tokens whose words come in runs of 1 to 6, as a
 * bag-of-words file lists them: the sparse draw carries its sums along a run where lists are
 * long (core/sparse_draw.h, LDA_SPARSE_REUSE_AFTER), which this exercises. */
static corpus *test_docs_corpus(uint32_t V, int runs)
{
    enum { MOST_DOCS = 77 };
    const int num_docs = runs ? 24 : MOST_DOCS;
    uint32_t *docs[MOST_DOCS], lengths[MOST_DOCS];
    for (int d = 0; d < num_docs; d++) {
        lengths[d] = runs ? 1 + (uint32_t)((d * 151) % 700) : 1 + (uint32_t)((d * 29) % 57);
        docs[d] = malloc(lengths[d] * sizeof(uint32_t));
        for (uint32_t i = 0; i < lengths[d];) {
            const uint32_t bits = lda_rng_once(runs ? 9 : 8, LDA_RNG_TEST, runs ? 2 : 1, (uint64_t)d * 1000 + i);
            const uint32_t run = runs ? 1 + (bits >> 16) % 6 : 1;
            for (uint32_t r = 0; r < run && i < lengths[d]; r++)
                docs[d][i++] = bits % V;
        }
    }
    corpus *c = test_corpus_from_docs((size_t)num_docs, (const uint32_t *const *)docs, lengths, V);
    for (int d = 0; d < num_docs; d++)
        free(docs[d]);
    return c;
}

static corpus *ragged_corpus(uint32_t V)
{
    return test_docs_corpus(V, 0);
}

static corpus *run_corpus(uint32_t V)
{
    return test_docs_corpus(V, 1);
}

typedef struct {
    lda_sampler sampler;
    uint32_t split; /* butterfly: as --split (LDA_SPLIT_STAGED, N warps a group, LDA_SPLIT_AUTO) */
    int collapsed;  /* θ collapsed: weights n[m,k] + α, updated token by token */
} variant;

static void describe(const variant *v, lda_precision precision, uint32_t K, char *buf, size_t size)
{
    char split[16];
    snprintf(buf, size, "%s%s split %s %s K=%u", sampler_name(v->sampler), v->collapsed ? " θ-collapsed" : "",
             lda_split_name(v->split, split), lda_choice_name(lda_precision_choices, precision), K);
}

/* Small integer weights (θ in 1..3, or counts + α_k with α_k in 1..3, one per topic; φ in
 * 0..4 with zeros): every partial sum is exact, so the GPU must draw exactly the CPU's topics
 * (and, θ collapsed, leave exactly the CPU's counts). */
static void exactness(const variant *v, lda_precision precision, uint32_t K)
{
    const uint32_t V = 40;
    corpus *c = ragged_corpus(V);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    float *theta = malloc(L->num_slots * K * sizeof *theta), *phi = malloc((size_t)V * K * sizeof *phi);
    float *alpha = malloc(K * sizeof *alpha);
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = (float)(1 + lda_rng_once(7, LDA_RNG_TEST, K, k) % 3);
    uint32_t *n[2] = {calloc(L->num_slots * K, 4), calloc(L->num_slots * K, 4)};
    uint32_t *z[2] = {calloc(L->num_positions, 4), calloc(L->num_positions, 4)};
    for (size_t i = 0; i < L->num_slots * K; i++)
        theta[i] = (float)(1 + lda_rng_once(4, LDA_RNG_TEST, K, i) % 3);
    for (size_t i = 0; i < (size_t)V * K; i++)
        phi[i] = (float)(lda_rng_once(5, LDA_RNG_TEST, K, i) % 5);
    for (uint32_t w = 0; w < V; w++)
        phi[(size_t)w * K + w % K] = 1.0f; /* no all-zero row */
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = lda_rng_once(6, LDA_RNG_TEST, K, s * 1000 + i) % K;
            for (int d = 0; d < 2; d++) {
                z[d][lda_layout_pos(L, s, i)] = k;
                n[d][s * K + k]++;
            }
        }
    lda_pool *pool = lda_pool_create(2, &err);
    for (int d = 0; d < 2; d++) {
        lda_zdraw in = {.theta = theta, .n_mk = v->collapsed ? n[d] : NULL, .alpha = alpha, .phi = phi, .K = K,
                        .precision = precision, .seed = 31, .iteration = 2};
        int rc = d == 0 ? lda_cpu_sample_z(pool, L, &in, z[0], &err)
                        : lda_cuda_sample_z_given(L, &in, v->sampler, v->split, z[1], &err);
        cr_assert_eq(rc, 0, "%s", err.msg);
    }
    char what[128];
    describe(v, precision, K, what, sizeof what);
    size_t mismatches = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            size_t p = lda_layout_pos(L, s, i);
            if (z[0][p] != z[1][p] && mismatches++ < 5)
                cr_log_error("%s: slot %zu token %u: CPU %u, GPU %u", what, s, i, z[0][p], z[1][p]);
        }
    cr_assert_eq(mismatches, 0, "%s: %zu of %zu draws differ from the CPU", what, mismatches, c->num_tokens);
    if (v->collapsed)
        cr_assert_eq(memcmp(n[0], n[1], L->num_slots * K * 4), 0, "%s: counts differ from the CPU", what);
    lda_pool_destroy(pool);
    for (int d = 0; d < 2; d++) {
        free(n[d]);
        free(z[d]);
    }
    free(theta);
    free(phi);
    free(alpha);
    lda_layout_free(L);
    corpus_free(c);
}

static void exactness_all_k(variant v, lda_precision precision)
{
    require_gpu();
    static const uint32_t Ks[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 1024};
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; i++)
        exactness(&v, precision, Ks[i]);
    for (uint32_t K = 480; K <= 544; K++)
        exactness(&v, precision, K);
}

#define EXACTNESS_TESTS(NAME, SAMPLER, SPLIT, COLLAPSED)                                                        \
    Test(gpu, NAME##_float_exact, .timeout = 300)                                                              \
    {                                                                                                          \
        exactness_all_k((variant){SAMPLER, SPLIT, COLLAPSED}, LDA_PRECISION_FLOAT);                            \
    }                                                                                                          \
    Test(gpu, NAME##_double_exact, .timeout = 300)                                                             \
    {                                                                                                          \
        exactness_all_k((variant){SAMPLER, SPLIT, COLLAPSED}, LDA_PRECISION_DOUBLE);                           \
    }

EXACTNESS_TESTS(butterfly_staged, LDA_SAMPLER_BUTTERFLY, LDA_SPLIT_STAGED, 0)
EXACTNESS_TESTS(butterfly_auto, LDA_SAMPLER_BUTTERFLY, LDA_SPLIT_AUTO, 0)
EXACTNESS_TESTS(butterfly_split1, LDA_SAMPLER_BUTTERFLY, 1, 0)
EXACTNESS_TESTS(butterfly_split3, LDA_SAMPLER_BUTTERFLY, 3, 0)
EXACTNESS_TESTS(butterfly_collapsed, LDA_SAMPLER_BUTTERFLY, 0, 1)
EXACTNESS_TESTS(butterfly_stored, LDA_SAMPLER_BUTTERFLY_STORED, 0, 0)
EXACTNESS_TESTS(transpose, LDA_SAMPLER_TRANSPOSE, 0, 0)
EXACTNESS_TESTS(naive, LDA_SAMPLER_NAIVE, 0, 0)
EXACTNESS_TESTS(naive_collapsed, LDA_SAMPLER_NAIVE, 0, 1)

/* 10^6 draws from one real-valued distribution (32 documents of one repeated word), with
 * every tenth topic at weight exactly 0. Significance 0.001. */
static void chi_squared(lda_sampler sampler, uint32_t split, lda_precision precision, uint32_t K)
{
    require_gpu();
    const uint32_t V = 3;
    corpus *c = test_repeated_word_corpus(32, 31250, V, 2); /* 10^6 tokens */
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    float *theta = malloc(L->num_slots * K * sizeof *theta), *phi = malloc((size_t)V * K * sizeof *phi);
    double *prob = malloc(K * sizeof *prob), total = 0;
    for (uint32_t k = 0; k < K; k++) {
        float th = 0.25f + (float)((k * 37) % 11) / 7.0f;
        float ph = k % 10 == 7 ? 0.0f : 1e-3f * (1.0f + (float)((k * 13) % 17));
        for (size_t s = 0; s < L->num_slots; s++)
            theta[s * K + k] = th;
        for (uint32_t w = 0; w < V; w++)
            phi[(size_t)w * K + k] = w == 2 ? ph : 0.5f;
        prob[k] = (double)th * ph;
        total += prob[k];
    }
    for (uint32_t k = 0; k < K; k++)
        prob[k] /= total;
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    lda_zdraw in = {.theta = theta, .phi = phi, .K = K, .precision = precision, .seed = 4242, .iteration = 1};
    cr_assert_eq(lda_cuda_sample_z_given(L, &in, sampler, split, z, &err), 0, "%s", err.msg);
    uint64_t *counts = calloc(K, sizeof *counts), zero_drawn = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = z[lda_layout_pos(L, s, i)];
            cr_assert_lt(k, K, "index %u outside [0, %u)", k, K);
            counts[k]++;
            zero_drawn += k % 10 == 7;
        }
    cr_assert_eq(zero_drawn, 0, "zero-weight topics drawn %llu times", (unsigned long long)zero_drawn);
    double dof, stat = test_chi2_stat(counts, prob, K, 1000000, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_log_info("%s %s K=%u: chi-squared %.1f, %.0f dof, p = %.3f", sampler_name(sampler),
                lda_choice_name(lda_precision_choices, precision), K, stat, dof, p);
    cr_assert(p > 0.001, "%s K=%u: chi-squared %.1f on %.0f dof, p = %g < 0.001", sampler_name(sampler), K, stat, dof, p);
    free(counts);
    free(z);
    free(prob);
    free(theta);
    free(phi);
    lda_layout_free(L);
    corpus_free(c);
}

#define STAGED LDA_SPLIT_STAGED
#define AUTO LDA_SPLIT_AUTO
Test(gpu, butterfly_chi_squared_float) { chi_squared(LDA_SAMPLER_BUTTERFLY, STAGED, LDA_PRECISION_FLOAT, 100); }
Test(gpu, butterfly_chi_squared_double) { chi_squared(LDA_SAMPLER_BUTTERFLY, STAGED, LDA_PRECISION_DOUBLE, 100); }
Test(gpu, butterfly_chi_squared_small_k) { chi_squared(LDA_SAMPLER_BUTTERFLY, STAGED, LDA_PRECISION_FLOAT, 20); }
Test(gpu, butterfly_chi_squared_k1000) { chi_squared(LDA_SAMPLER_BUTTERFLY, STAGED, LDA_PRECISION_FLOAT, 1000); }
Test(gpu, butterfly_split32_chi_squared_float) { chi_squared(LDA_SAMPLER_BUTTERFLY, 32, LDA_PRECISION_FLOAT, 100); }
Test(gpu, butterfly_stored_chi_squared_float) { chi_squared(LDA_SAMPLER_BUTTERFLY_STORED, AUTO, LDA_PRECISION_FLOAT, 100); }
Test(gpu, butterfly_stored_chi_squared_double) { chi_squared(LDA_SAMPLER_BUTTERFLY_STORED, AUTO, LDA_PRECISION_DOUBLE, 100); }
Test(gpu, transpose_chi_squared_float) { chi_squared(LDA_SAMPLER_TRANSPOSE, AUTO, LDA_PRECISION_FLOAT, 100); }
Test(gpu, transpose_chi_squared_double) { chi_squared(LDA_SAMPLER_TRANSPOSE, AUTO, LDA_PRECISION_DOUBLE, 100); }
Test(gpu, naive_chi_squared_float) { chi_squared(LDA_SAMPLER_NAIVE, AUTO, LDA_PRECISION_FLOAT, 100); }
Test(gpu, naive_chi_squared_double) { chi_squared(LDA_SAMPLER_NAIVE, AUTO, LDA_PRECISION_DOUBLE, 100); }

static lda_backend *backend_for(const lda_layout *L, lda_device device, uint32_t K, lda_update update)
{
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.device = device;
    p.update = update;
    p.alpha = 0.2;
    p.beta = 0.05;
    p.seed = 17;
    lda_error err = {0};
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    return b;
}

/* The same z on both backends: identical counts (a cut document's in every piece: the GPU's
 * join against its CPU reference); mean-rule θ and φ equal up to rounding. */
static void counts_and_mean_update_equal_the_cpu(uint32_t piece_length)
{
    require_gpu();
    const uint32_t K = 37;
    /* with pieces, documents of up to 600 tokens: up to 38 pieces, joined in several chunks */
    corpus *c = test_planted_corpus(6, 20, 300, 5, piece_length ? 600 : 80, 9, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(!piece_length || L->num_cut_docs > 100);
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_pos(L, s, i)] = lda_rng_once(2, LDA_RNG_TEST, 0, s * 100 + i) % K;
    lda_backend *b[2] = {backend_for(L, LDA_DEVICE_CPU, K, LDA_UPDATE_MEAN),
                         backend_for(L, LDA_DEVICE_CUDA, K, LDA_UPDATE_MEAN)};
    uint32_t *mk[2], *wk[2], *nk[2];
    float *theta[2], *phi[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(b[i]->ops->start(b[i], z, 5, &err), 0, "%s", err.msg);
        mk[i] = malloc(L->num_slots * K * 4);
        wk[i] = malloc(L->vocab_size * K * 4);
        nk[i] = malloc(K * 4);
        theta[i] = malloc(L->num_slots * K * 4);
        phi[i] = malloc(L->vocab_size * K * 4);
        cr_assert_eq(b[i]->ops->fetch_counts(b[i], mk[i], wk[i], nk[i], &err), 0, "%s", err.msg);
        cr_assert_eq(b[i]->ops->fetch(b[i], theta[i], phi[i], NULL, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(memcmp(mk[0], mk[1], L->num_slots * K * 4), 0, "n[m,k] differs");
    cr_assert_eq(memcmp(wk[0], wk[1], L->vocab_size * K * 4), 0, "n[w,k] differs");
    cr_assert_eq(memcmp(nk[0], nk[1], K * 4), 0, "n[k] differs");
    for (size_t i = 0; i < L->num_slots * K; i++)
        cr_assert(fabsf(theta[0][i] - theta[1][i]) <= 1e-6f * theta[0][i] + 1e-12f, "theta %zu", i);
    for (size_t i = 0; i < (size_t)L->vocab_size * K; i++)
        cr_assert(fabsf(phi[0][i] - phi[1][i]) <= 1e-6f * phi[0][i] + 1e-12f, "phi %zu", i);
    /* and the log-likelihoods agree */
    lda_eval e[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(b[i]->ops->evaluate(b[i], &e[i], &err), 0, "%s", err.msg);
    cr_assert(fabs(e[0].loglik_pred - e[1].loglik_pred) < 1e-6, "%f %f", e[0].loglik_pred, e[1].loglik_pred);
    cr_assert(fabs(e[0].loglik_joint - e[1].loglik_joint) < 1e-9, "%f %f", e[0].loglik_joint, e[1].loglik_joint);
    for (int i = 0; i < 2; i++) {
        free(mk[i]);
        free(wk[i]);
        free(nk[i]);
        free(theta[i]);
        free(phi[i]);
        lda_backend_destroy(b[i]);
    }
    free(z);
    lda_layout_free(L);
    corpus_free(c);
}

/* The predictive log-likelihood where the sparse draw keeps n[m,k] as lists: the GPU forms a
 * token's term from its document's list and its word's Σ_k α_k φ[w,k] (cuda/eval.cu,
 * loglik_pred_lists_kernel), the CPU reference sums over K. The same z on both, with cut
 * documents (whose pieces carry the whole document's list), at K = 37 and at K = 1000 (where
 * the GPU's dense form took a token a warp): the figures agree to 1e-7 of their size (the CPU's
 * θ is rounded to float, the GPU's is not on this way: about 1e-8 of a token's term), the joint
 * ones as before. */
static void list_predictive_equals_the_cpu(uint32_t K)
{
    require_gpu();
    corpus *c = test_planted_corpus(6, 20, 300, 5, 600, 9, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 64, &err);
    cr_assert(L && L->num_cut_docs > 100, "%s", err.msg);
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_pos(L, s, i)] = lda_rng_once(2, LDA_RNG_TEST, 0, s * 100 + i) % K;
    lda_eval e[2];
    for (int i = 0; i < 2; i++) {
        lda_params p;
        lda_params_default(&p);
        p.num_topics = K;
        p.device = i ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU;
        lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
        p.sampler = LDA_SAMPLER_SPARSE;
        p.alpha = 0.2;
        p.beta = 0.05;
        p.seed = 17;
        lda_backend *b = lda_backend_create(L, &p, &err);
        cr_assert(b, "%s", err.msg);
        cr_assert_eq(b->ops->start(b, z, 5, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->evaluate(b, &e[i], &err), 0, "%s", err.msg);
        lda_backend_destroy(b);
    }
    cr_assert(fabs(e[0].loglik_pred - e[1].loglik_pred) < 1e-7 * fabs(e[0].loglik_pred), "K = %u: CPU %.12f, GPU %.12f",
              K, e[0].loglik_pred, e[1].loglik_pred);
    cr_assert(fabs(e[0].loglik_joint - e[1].loglik_joint) < 1e-9, "%f %f", e[0].loglik_joint, e[1].loglik_joint);
    free(z);
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, list_predictive_equals_the_cpu_k37) { list_predictive_equals_the_cpu(37); }
Test(gpu, list_predictive_equals_the_cpu_k1000) { list_predictive_equals_the_cpu(1000); }

/* The histograms that learning the priors reads: the GPU's kernels against the CPU reference,
 * for the same z, on a layout with pieces and with counts past LDA_HIST_CAP (listed). */
Test(gpu, count_histograms_equal_the_cpu)
{
    require_gpu();
    const uint32_t K = 7;
    corpus *c = test_planted_corpus(3, 20, 300, 5, 900, 19, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 100, &err);
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    for (size_t s = 0; s < L->num_slots; s++) /* topic 0 for most tokens: large counts */
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_pos(L, s, i)] = lda_rng_once(2, LDA_RNG_TEST, 0, L->slot_token_base[s] + i) % (2 * K) % K;
    lda_count_hist h[2];
    for (int i = 0; i < 2; i++) {
        lda_params p;
        lda_params_default(&p);
        p.num_topics = K;
        p.device = i ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU;
        p.optimize_interval = 1;
        lda_backend *b = lda_backend_create(L, &p, &err);
        cr_assert(b, "%s", err.msg);
        cr_assert_eq(b->ops->start(b, z, 0, &err), 0, "%s", err.msg);
        cr_assert_eq(lda_count_hist_alloc(&h[i], K, L->num_tokens, &err), 0);
        cr_assert_eq(b->ops->count_histograms(b, &h[i], &err), 0, "%s", err.msg);
        lda_backend_destroy(b);
    }
    cr_assert_gt(h[0].num_doc_over, 10, "counts past the binned ones");
    cr_assert_eq(memcmp(h[0].doc_topic, h[1].doc_topic, (size_t)K * LDA_HIST_CAP * 4), 0, "document histograms");
    cr_assert_eq(h[0].num_doc_over, h[1].num_doc_over);
    cr_assert_eq(memcmp(h[0].doc_topic_over, h[1].doc_topic_over, h[0].num_doc_over * 8), 0);
    cr_assert_eq(memcmp(h[0].word_topic, h[1].word_topic, LDA_HIST_CAP * 4), 0, "word histograms");
    cr_assert_eq(h[0].num_word_over, h[1].num_word_over);
    cr_assert_eq(memcmp(h[0].word_topic_over, h[1].word_topic_over, h[0].num_word_over * 4), 0);
    cr_assert_eq(memcmp(h[0].topic, h[1].topic, K * 4), 0);
    for (int i = 0; i < 2; i++)
        lda_count_hist_free(&h[i]);
    free(z);
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, counts_and_mean_update_equal_the_cpu) { counts_and_mean_update_equal_the_cpu(0); }
Test(gpu, counts_and_mean_update_equal_the_cpu_pieces) { counts_and_mean_update_equal_the_cpu(16); }

/* Inference plumbing: a frozen φ set from the host stays put, and score() of a layout
 * against itself is the predictive log-likelihood times its tokens, on both backends. */
Test(gpu, set_phi_freeze_and_score_agree_with_the_cpu)
{
    require_gpu();
    const uint32_t K = 20;
    corpus *c = test_planted_corpus(4, 15, 200, 4, 50, 21, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t V = L->vocab_size;
    float *phi = malloc(V * K * 4), *got = malloc(V * K * 4);
    for (uint32_t k = 0; k < K; k++) {
        double col = 0;
        for (uint32_t w = 0; w < V; w++)
            col += phi[w * K + k] = 0.01f + (float)(lda_rng_once(3, LDA_RNG_TEST, k, w) % 97);
        for (uint32_t w = 0; w < V; w++)
            phi[w * K + k] = (float)(phi[w * K + k] / col);
    }
    double sums[2];
    for (int i = 0; i < 2; i++) {
        lda_params p;
        lda_params_default(&p);
        p.num_topics = K;
        p.device = i ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU;
        p.freeze_phi = 1;
        p.update = LDA_UPDATE_MEAN;
        lda_backend *b = lda_backend_create(L, &p, &err);
        cr_assert(b, "%s", err.msg);
        cr_assert_eq(b->ops->set_phi(b, phi, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
        for (uint32_t it = 1; it <= 3; it++)
            cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch(b, NULL, got, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(memcmp(phi, got, V * K * 4), 0, "φ moved although frozen (%s)", i ? "GPU" : "CPU");
        lda_eval e;
        cr_assert_eq(b->ops->evaluate(b, &e, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->score(b, L, &sums[i], &err), 0, "%s", err.msg);
        cr_assert(fabs(sums[i] - e.loglik_pred * c->num_tokens) < 1e-6 * fabs(sums[i]), "score %f vs %f", sums[i],
                  e.loglik_pred * c->num_tokens);
        lda_backend_destroy(b);
    }
    cr_assert(fabs(sums[0] - sums[1]) < 1e-3 * fabs(sums[0]), "CPU %f, GPU %f", sums[0], sums[1]);
    free(phi);
    free(got);
    lda_layout_free(L);
    corpus_free(c);
}

/* The GPU keeps its counts up to date incrementally (only tokens whose topic changed):
 * after several iterations they must still equal a recount of its own z, for every model. */
static void counts_stay_exact(lda_model_kind model, uint32_t refresh)
{
    require_gpu();
    counts_equal_a_recount(LDA_DEVICE_CUDA, model, refresh, 0);
}

Test(gpu, counts_stay_exact_uncollapsed) { counts_stay_exact(LDA_MODEL_UNCOLLAPSED, 1); }
Test(gpu, counts_stay_exact_collapsed) { counts_stay_exact(LDA_MODEL_COLLAPSED, 1); }
Test(gpu, counts_stay_exact_refreshed) { counts_stay_exact(LDA_MODEL_MEAN_FOR_MODE, 3); }
Test(gpu, counts_stay_exact_collapsed_refreshed) { counts_stay_exact(LDA_MODEL_COLLAPSED, 4); }

/* Documents cut into pieces (backend/layout.h) on the GPU: with θ given nothing changes, by
 * the split kernel (few groups) and by the staged kernel that keeps the counts itself (more
 * than 512 groups in either layout); every piece holds its document's counts for every
 * model; planted topics are recovered with θ collapsed across pieces. */
Test(gpu, pieces_change_nothing_uncollapsed_split)
{
    require_gpu();
    pieces_change_nothing_with_theta_given(LDA_DEVICE_CUDA, LDA_MODEL_UNCOLLAPSED, 400, 40, 1e-4);
}
Test(gpu, pieces_change_nothing_staged_fused)
{
    require_gpu();
    pieces_change_nothing_with_theta_given(LDA_DEVICE_CUDA, LDA_MODEL_UNCOLLAPSED, 17000, 40, 1e-4);
    pieces_change_nothing_with_theta_given(LDA_DEVICE_CUDA, LDA_MODEL_MEAN_FOR_MODE, 17000, 40, 1e-4);
}
/* Cutting documents changes which block, warp, lane and row draw a token. With integer
 * weights every partial sum is exact, so the draws must not change at all: the staged, split
 * and one-warp kernels on a layout with pieces of 16 tokens against the uncut layout and
 * against the CPU reference. θ is each document's (every piece reads its row). */
static void pieces_draw_exactly(uint32_t split, lda_precision precision, uint32_t K)
{
    corpus *c = test_planted_corpus(4, 10, 200, 1, 300, 17, NULL);
    const uint32_t V = c->vocab_size;
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    float *phi = malloc((size_t)V * K * sizeof *phi);
    for (size_t i = 0; i < (size_t)V * K; i++)
        phi[i] = (float)(lda_rng_once(5, LDA_RNG_TEST, K, i) % 5);
    for (uint32_t w = 0; w < V; w++)
        phi[(size_t)w * K + w % K] = 1.0f; /* no all-zero row */
    uint32_t *z_corpus[3];
    for (int v = 0; v < 3; v++) { /* the uncut layout on the GPU, the cut one on the GPU and on the CPU */
        lda_layout *L = lda_layout_build(c, v ? 16 : 0, &err);
        cr_assert(L && (v == 0 || L->num_cut_docs > 50), "%s", err.msg);
        float *theta = malloc(L->num_slots * K * sizeof *theta);
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t k = 0; k < K; k++)
                theta[s * K + k] = L->slot_doc[s] == LDA_NO_DOC
                                       ? 1.0f
                                       : (float)(1 + lda_rng_once(4, LDA_RNG_TEST, K, (uint64_t)L->slot_doc[s] * K + k) % 3);
        uint32_t *z = calloc(L->num_positions, sizeof *z);
        lda_zdraw in = {.theta = theta, .phi = phi, .K = K, .precision = precision, .seed = 31, .iteration = 2};
        int rc = v < 2 ? lda_cuda_sample_z_given(L, &in, LDA_SAMPLER_BUTTERFLY, split, z, &err)
                       : lda_cpu_sample_z(pool, L, &in, z, &err);
        cr_assert_eq(rc, 0, "%s", err.msg);
        z_corpus[v] = malloc(c->num_tokens * sizeof(uint32_t));
        lda_layout_z_to_corpus_order(L, z, z_corpus[v]);
        free(z);
        free(theta);
        lda_layout_free(L);
    }
    char split_name[16];
    cr_assert_eq(memcmp(z_corpus[0], z_corpus[1], c->num_tokens * 4), 0, "split %s K=%u: pieces changed a draw",
                 lda_split_name(split, split_name), K);
    cr_assert_eq(memcmp(z_corpus[1], z_corpus[2], c->num_tokens * 4), 0, "split %s K=%u: GPU differs from the CPU",
                 split_name, K);
    for (int v = 0; v < 3; v++)
        free(z_corpus[v]);
    free(phi);
    lda_pool_destroy(pool);
    corpus_free(c);
}

Test(gpu, pieces_draw_exactly)
{
    require_gpu();
    static const uint32_t Ks[] = {31, 100, 1024};
    static const uint32_t splits[] = {LDA_SPLIT_STAGED, 32, 1};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            pieces_draw_exactly(splits[j], LDA_PRECISION_FLOAT, Ks[i]);
    pieces_draw_exactly(LDA_SPLIT_STAGED, LDA_PRECISION_DOUBLE, 100);
}

Test(gpu, pieces_hold_their_documents_counts)
{
    require_gpu();
    counts_equal_a_recount(LDA_DEVICE_CUDA, LDA_MODEL_UNCOLLAPSED, 1, 16);
    counts_equal_a_recount(LDA_DEVICE_CUDA, LDA_MODEL_MEAN_FOR_MODE, 3, 16);
    counts_equal_a_recount(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, 1, 16);
    counts_equal_a_recount(LDA_DEVICE_CUDA, LDA_MODEL_THETA_COLLAPSED, 4, 16);
}
Test(gpu, planted_topics_collapsed_pieces)
{
    require_gpu();
    planted_recovery_pieces(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, 16);
}

/* The default z kernel (split auto, enough document groups) stages θ in shared memory, keeps the
 * counts current itself and, for mean-for-mode, forms θ from them; with --split 32 the same
 * draws come from the kernel that reads θ from global memory, followed by the count and θ
 * update kernels. Same arithmetic, so after several iterations z, the counts, θ and φ must be
 * byte-identical. The corpus has just enough short documents for the fused kernel in every
 * --refresh part (the rows of a launch fill LDA_ZPLAN_STAGED_MIN_FILL waves of its longest group). */
static void fused_equals_unfused(lda_model_kind model, uint32_t refresh, lda_precision precision, uint32_t K)
{
    require_gpu();
    corpus *c = test_planted_corpus(5, 12, (size_t)512 * 32 * refresh, 3, 15, 8, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t V = L->vocab_size;
    const size_t sizes[6] = {L->num_positions * 4, L->num_slots * K * 4, (size_t)V * K * 4, K * 4,
                             L->num_slots * K * 4, (size_t)V * K * 4};
    static const char *names[6] = {"z", "n[m,k]", "n[w,k]", "n[k]", "theta", "phi"};
    void *got[2][6];
    for (int run = 0; run < 2; run++) {
        lda_params p;
        lda_params_default(&p);
        p.num_topics = K;
        p.device = LDA_DEVICE_CUDA;
        p.precision = precision;
        lda_params_set_model(&p, model);
        p.refresh = refresh;
        p.split = run == 0 ? LDA_SPLIT_AUTO : 32;
        lda_zplan plan;
        cr_assert_eq(lda_cuda_zplan(&p, L, &plan, &err), 0, "%s", err.msg);
        cr_assert_eq(plan.kernel == LDA_ZKERNEL_STAGED && plan.fused_counts, run == 0, "split %u: %s", p.split,
                     plan.why);
        for (int i = 0; i < 6; i++)
            got[run][i] = malloc(sizes[i]);
        lda_backend *b = lda_backend_create(L, &p, &err);
        cr_assert(b, "%s", err.msg);
        cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
        for (uint32_t it = 1; it <= 6; it++)
            cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch_counts(b, got[run][1], got[run][2], got[run][3], &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch(b, got[run][4], got[run][5], got[run][0], &err), 0, "%s", err.msg);
        lda_backend_destroy(b);
    }
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(memcmp(got[0][i], got[1][i], sizes[i]), 0, "%s differs between the fused and unfused kernels",
                     names[i]);
        free(got[0][i]);
        free(got[1][i]);
    }
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, fused_equals_unfused_mean_for_mode) { fused_equals_unfused(LDA_MODEL_MEAN_FOR_MODE, 1, LDA_PRECISION_FLOAT, 24); }
Test(gpu, fused_equals_unfused_mean_for_mode_remnant) { fused_equals_unfused(LDA_MODEL_MEAN_FOR_MODE, 1, LDA_PRECISION_FLOAT, 100); }
Test(gpu, fused_equals_unfused_uncollapsed_double) { fused_equals_unfused(LDA_MODEL_UNCOLLAPSED, 1, LDA_PRECISION_DOUBLE, 64); }
Test(gpu, fused_equals_unfused_refreshed) { fused_equals_unfused(LDA_MODEL_MEAN_FOR_MODE, 3, LDA_PRECISION_FLOAT, 40); }

static void gpu_gamma_moments(double shape)
{
    require_gpu();
    const size_t n = 1000000;
    double *lg = malloc(n * sizeof *lg), s = 0, s2 = 0;
    lda_error err = {0};
    cr_assert_eq(lda_cuda_log_gamma(shape, 77, n, lg, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < n; i++) {
        double g = exp(lg[i]);
        s += g;
        s2 += g * g;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    double se_mean = sqrt(shape / n), se_var = sqrt((2 * shape * shape + 6 * shape) / n);
    cr_assert(fabs(mean - shape) < 5 * se_mean, "shape %g: mean %g", shape, mean);
    cr_assert(fabs(var - shape) < 6 * se_var, "shape %g: variance %g", shape, var);
    free(lg);
}

Test(gpu, gamma_moments_small_shape) { gpu_gamma_moments(0.05); }
Test(gpu, gamma_moments_unit_shape) { gpu_gamma_moments(1.0); }
Test(gpu, gamma_moments_large_shape) { gpu_gamma_moments(12.0); }

/* Dirichlet draws of θ and φ on the GPU: averaged over 300 iterations' streams, each
 * entry is within 5 standard errors of its Dirichlet mean; its sample variance, averaged
 * over all entries relative to the Dirichlet variance m(1-m)/(A+1), is 1 within 10%;
 * rows/columns sum to 1. */
Test(gpu, dirichlet_draws_have_the_right_means_and_variances, .timeout = 120)
{
    require_gpu();
    const uint32_t K = 6, draws = 300;
    corpus *c = test_planted_corpus(4, 10, 100, 5, 40, 3, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t V = L->vocab_size;
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_pos(L, s, i)] = (uint32_t)((s + i) % K);
    lda_backend *b = backend_for(L, LDA_DEVICE_CUDA, K, LDA_UPDATE_DRAW);
    uint32_t *mk = malloc(L->num_slots * K * 4), *wk = malloc(V * K * 4), *nk = malloc(K * 4);
    float *theta = malloc(L->num_slots * K * 4), *phi = malloc(V * K * 4);
    double *ts = calloc(L->num_slots * K, 8), *ps = calloc(V * K, 8);
    double *ts2 = calloc(L->num_slots * K, 8), *ps2 = calloc(V * K, 8);
    for (uint32_t it = 1; it <= draws; it++) {
        cr_assert_eq(b->ops->start(b, z, it, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch(b, theta, phi, NULL, &err), 0, "%s", err.msg);
        for (size_t i = 0; i < L->num_slots * K; i++) {
            ts[i] += theta[i];
            ts2[i] += (double)theta[i] * theta[i];
        }
        for (size_t i = 0; i < (size_t)V * K; i++) {
            ps[i] += phi[i];
            ps2[i] += (double)phi[i] * phi[i];
        }
    }
    cr_assert_eq(b->ops->fetch_counts(b, mk, wk, nk, &err), 0, "%s", err.msg);
    const double alpha = b->params.alpha, beta = b->params.beta;
    double ratio_sum = 0;
    size_t ratios = 0;
    for (size_t s = 0; s < c->num_docs; s++) {
        double row = 0;
        for (uint32_t k = 0; k < K; k++) {
            size_t i = s * K + k;
            double A = L->slot_len[s] + K * alpha, m = (mk[i] + alpha) / A, var = m * (1 - m) / (A + 1);
            cr_assert(fabs(ts[i] / draws - m) < 5 * sqrt(var / draws) + 1e-6, "theta[%zu,%u]", s, k);
            ratio_sum += (ts2[i] / draws - (ts[i] / draws) * (ts[i] / draws)) / var;
            ratios++;
            row += theta[i];
        }
        cr_assert(fabs(row - 1) < 1e-5);
    }
    cr_assert(fabs(ratio_sum / ratios - 1) < 0.1, "theta: sample/Dirichlet variance %.3f", ratio_sum / ratios);
    ratio_sum = 0;
    ratios = 0;
    for (uint32_t k = 0; k < K; k++) {
        double col = 0;
        for (uint32_t w = 0; w < V; w++) {
            size_t i = (size_t)w * K + k;
            double A = nk[k] + V * beta, m = (wk[i] + beta) / A, var = m * (1 - m) / (A + 1);
            cr_assert(fabs(ps[i] / draws - m) < 5 * sqrt(var / draws) + 1e-6, "phi[%u,%u]", w, k);
            ratio_sum += (ps2[i] / draws - (ps[i] / draws) * (ps[i] / draws)) / var;
            ratios++;
            col += phi[i];
        }
        cr_assert(fabs(col - 1) < 1e-4);
    }
    cr_assert(fabs(ratio_sum / ratios - 1) < 0.1, "phi: sample/Dirichlet variance %.3f", ratio_sum / ratios);
    free(mk);
    free(wk);
    free(nk);
    free(theta);
    free(phi);
    free(ts);
    free(ps);
    free(ts2);
    free(ps2);
    free(z);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, planted_topics_butterfly_float) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_butterfly_double) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_DRAW, LDA_PRECISION_DOUBLE, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_butterfly_mean) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_MEAN, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_uncollapsed_refreshed) { require_gpu(); planted_recovery_refreshed(LDA_DEVICE_CUDA, LDA_MODEL_UNCOLLAPSED, 4); }
Test(gpu, planted_topics_collapsed_refreshed) { require_gpu(); planted_recovery_refreshed(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, 4); }
Test(gpu, planted_topics_naive) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_NAIVE); }
Test(gpu, planted_topics_transpose) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_TRANSPOSE); }
Test(gpu, planted_topics_butterfly_stored) { require_gpu(); planted_recovery(LDA_DEVICE_CUDA, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY_STORED); }
Test(gpu, planted_topics_theta_collapsed) { require_gpu(); planted_recovery_model(LDA_DEVICE_CUDA, LDA_MODEL_THETA_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_collapsed) { require_gpu(); planted_recovery_model(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_phi_mean) { require_gpu(); planted_recovery_model(LDA_DEVICE_CUDA, LDA_MODEL_PHI_MEAN, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(gpu, planted_topics_collapsed_naive) { require_gpu(); planted_recovery_model(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, LDA_PRECISION_DOUBLE, LDA_SAMPLER_NAIVE); }

/* Same seed, same device: the same state after a few iterations. */
Test(gpu, same_seed_same_state)
{
    require_gpu();
    const uint32_t K = 64;
    corpus *c = test_planted_corpus(6, 20, 500, 5, 80, 4, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    uint32_t *z[2];
    float *phi[2];
    for (int run = 0; run < 2; run++) {
        lda_backend *b = backend_for(L, LDA_DEVICE_CUDA, K, LDA_UPDATE_DRAW);
        cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
        for (uint32_t it = 1; it <= 5; it++)
            cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
        z[run] = malloc(L->num_positions * 4);
        phi[run] = malloc(L->vocab_size * K * 4);
        cr_assert_eq(b->ops->fetch(b, NULL, phi[run], z[run], &err), 0, "%s", err.msg);
        lda_backend_destroy(b);
    }
    cr_assert_eq(memcmp(z[0], z[1], L->num_positions * 4), 0, "z differs between runs");
    cr_assert_eq(memcmp(phi[0], phi[1], L->vocab_size * K * 4), 0, "phi differs between runs");
    for (int run = 0; run < 2; run++) {
        free(z[run]);
        free(phi[run]);
    }
    lda_layout_free(L);
    corpus_free(c);
}

/* wiki5k (UCI form, carried to the GPU machine under .corpora/ or found in ../shared):
 * after 40 iterations at K=32 the GPU's log-likelihoods are within 1% of the CPU's. */
Test(gpu, cpu_and_gpu_reach_similar_loglik_on_wiki5k, .timeout = 300)
{
    require_gpu();
    const char *candidates[] = {".corpora/wiki5k/docword.wiki5k.txt.gz", "../shared/corpora/wiki5k/docword.wiki5k.txt.gz"};
    const char *path = NULL;
    char buf[1024];
    for (int i = 0; i < 2 && !path; i++) {
        snprintf(buf, sizeof buf, "%s/%s", test_root(), candidates[i]);
        FILE *f = fopen(buf, "r");
        if (f) {
            fclose(f);
            path = buf;
        }
    }
    if (!path)
        cr_skip_test("wiki5k not found under .corpora/ or ../shared/corpora/");
    corpus_options opt;
    corpus_options_default(&opt);
    lda_error err = {0};
    corpus *c = corpus_read(path, &opt, &err);
    cr_assert(c, "%s", err.msg);
    lda_layout *L = lda_layout_build(c, 0, &err);
    lda_eval e[2];
    for (int i = 0; i < 2; i++) {
        lda_backend *b = backend_for(L, i ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU, 32, LDA_UPDATE_DRAW);
        cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
        for (uint32_t it = 1; it <= 40; it++)
            cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->evaluate(b, &e[i], &err), 0, "%s", err.msg);
        lda_backend_destroy(b);
    }
    cr_log_info("wiki5k K=32, 40 iterations: CPU predictive %.4f joint %.4f; GPU predictive %.4f joint %.4f",
                e[0].loglik_pred, e[0].loglik_joint, e[1].loglik_pred, e[1].loglik_joint);
    cr_assert(fabs(e[0].loglik_pred - e[1].loglik_pred) < 0.01 * fabs(e[0].loglik_pred), "predictive differs");
    cr_assert(fabs(e[0].loglik_joint - e[1].loglik_joint) < 0.01 * fabs(e[0].loglik_joint), "joint differs");
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, too_little_memory_is_a_clear_error)
{
    require_gpu();
    /* At K = 65,536 θ and n[m,k] take 512 KiB a document: enough short documents for twice the
     * device's whole memory, so the plan must refuse on any GPU, before allocating. */
    const uint32_t K = 1u << 16;
    const size_t docs = lda_cuda_memory_bytes() / ((size_t)K * 8) * 2;
    corpus *c = test_planted_corpus(4, 10, docs, 3, 5, 1, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.device = LDA_DEVICE_CUDA;
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert_null(b, "a run needing %zu documents x 512 KiB was accepted", docs);
    cr_assert_eq(err.status, LDA_EXIT_FAILURE, "%s", err.msg);
    cr_assert(strstr(err.msg, "not enough GPU memory") && strstr(err.msg, "GiB"), "%s", err.msg);
    /* twice the memory in θ and n[m,k]: three GPUs at least, and the message says why */
    cr_assert(strstr(err.msg, "; split over ") && strstr(err.msg, " GPUs like this one it would need at most"),
              "%s", err.msg);
    cr_assert(!strstr(err.msg, "split over 2 GPUs"), "%s", err.msg);
    cr_assert(strstr(err.msg, "most of it is the dense D x K arrays"), "%s", err.msg);
    /* and where it goes: the largest arrays, θ and n[m,k] among them */
    const char *shares = strstr(err.msg, "(device memory: ");
    cr_assert(shares && strstr(shares, " B a token: ") && strstr(shares, " n[m,k] ") && strstr(shares, " θ "), "%s",
              err.msg);
    lda_layout_free(L);
    corpus_free(c);
}

/* The same through the binary, on purpose: a run the GPU cannot hold ends with status 1 and
 * a clear last line before any iteration, into an existing model folder that it leaves as it
 * was, and without creating a new one. 114,688 one-token documents at K = 65,536 with
 * butterfly-stored in double: θ, n[m,k] and the sampler's per-thread tables are 20 bytes a
 * document and topic on the device, 150 GiB (more than an H200 has), while the host's part
 * (the model as it would be saved) is 60 GiB. */
Test(gpu, a_run_too_large_for_the_gpu_exits_1_and_writes_nothing)
{
    require_gpu();
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 2 -n 2 -q --device cuda -o '%s/m'", tiny, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "cp '%s/m/phi.npy' '%s/phi.before'", dir, dir);
    cr_assert_eq(system(args), 0);
    char *big = NULL;
    cr_assert(asprintf(&big, "%s/big.ldac", dir) > 0);
    FILE *f = fopen(big, "w");
    cr_assert(f);
    for (int d = 0; d < 114688; d++)
        fputs("1 0:1\n", f);
    fclose(f);
    free(test_write_file(dir, "big.vocab", "word\n"));
    const char *outputs[] = {"m", "new"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "train '%s' -K 65536 -n 1 --sampler butterfly-stored --precision double --device cuda --force "
                 "-o '%s/%s'",
                 big, dir, outputs[i]);
        int rc = test_run_ldagpu(args, &out);
        cr_assert_eq(rc, 1, "exit %d: %s", rc, out);
        char *last = strrchr(out, '\n');
        while (last && last > out && last[-1] != '\n')
            last--;
        cr_assert(last && strstr(last, "ldagpu train: not enough GPU memory on") && strstr(last, "GiB are free"),
                  "last line: %s", out);
        cr_assert(!strstr(out, "iter "), "it iterated: %s", out);
        free(out);
    }
    char before[2048], after[2048];
    snprintf(before, sizeof before, "%s/phi.before", dir);
    snprintf(after, sizeof after, "%s/m/phi.npy", dir);
    cr_assert(test_same_bytes(before, after), "the existing model was changed");
    snprintf(args, sizeof args, "%s/m", dir);
    cr_assert_eq(test_count_entries(args, "tmp", "checkpoint", NULL), 0, "temporary files or a checkpoint in %s", args);
    snprintf(args, sizeof args, "%s/new", dir);
    cr_assert_eq(access(args, F_OK), -1, "a folder %s was created", args);
    free(big);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* Two copies of a start for the θ-collapsed draws: random topics (keyed on K), the counts of
 * each slot's z, a cut document's pieces joined as the backends join them. */
static void two_random_starts(const lda_layout *L, uint32_t K, uint32_t *z[2], uint32_t *n[2])
{
    for (int d = 0; d < 2; d++) {
        z[d] = calloc(L->num_positions, 4);
        n[d] = calloc(L->num_slots * K, 4);
    }
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = lda_rng_once(6, LDA_RNG_TEST, K, L->slot_token_base[s] + i) % K;
            for (int d = 0; d < 2; d++) {
                z[d][lda_layout_pos(L, s, i)] = k;
                n[d][s * K + k]++;
            }
        }
    for (int d = 0; d < 2; d++)
        lda_layout_join_cut_counts(L, K, n[d], NULL);
}

/* The counts a next pass starts from: a recount of z, joined, as the backends do. */
static void recount_joined(const lda_layout *L, uint32_t K, const uint32_t *z, uint32_t *n)
{
    memset(n, 0, L->num_slots * K * 4);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            n[s * K + z[lda_layout_pos(L, s, i)]]++;
    lda_layout_join_cut_counts(L, K, n, NULL);
}

static void free_two(uint32_t *a[2])
{
    free(a[0]);
    free(a[1]);
}

/* The sparse draw (core/sparse_draw.h, cuda/zsample_sparse.cuh): on integer weights every sum
 * is exact, so the GPU's warp must draw the CPU's topics and leave its counts, over three
 * passes, on layouts with and without pieces (whose lists come from their rows). On real
 * weights the warp's sums are associated otherwise than the CPU's, so a draw within a few ulps
 * of a boundary may differ: the first pass must agree on all but 1% of the tokens. */
/* long_lists: the kernel's compilation (zplan.h), -1 the plan's. runs: the corpus of words in
 * runs and long lists (run_corpus), else ragged_corpus. */
static void sparse_equals_the_cpu_on(int runs, uint32_t K, lda_precision precision, int integer_weights,
                                     uint32_t piece_length, int long_lists)
{
    const uint32_t V = 40;
    corpus *c = runs ? run_corpus(V) : ragged_corpus(V);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    float *phi = malloc((size_t)V * K * sizeof *phi), *alpha = malloc(K * sizeof *alpha);
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = integer_weights ? (float)(1 + k % 3) : 0.01f + (float)(lda_rng_once(7, LDA_RNG_TEST, K, k) % 97) / 50.0f;
    for (size_t i = 0; i < (size_t)V * K; i++) {
        uint32_t bits = lda_rng_once(5, LDA_RNG_TEST, K, i);
        phi[i] = integer_weights ? (float)(bits % 5) : bits % 7 == 0 ? 0.0f : (float)(bits >> 8) * 0x1p-30f;
    }
    for (uint32_t w = 0; w < V; w++)
        phi[(size_t)w * K + w % K] = 1.0f; /* no all-zero row */
    uint32_t *n[2], *z[2];
    two_random_starts(L, K, z, n);
    void *table = malloc(lda_word_prior_prefix_bytes(V, K, precision));
    lda_pool *pool = lda_pool_create(2, &err);
    char what[128];
    snprintf(what, sizeof what, "sparse %s K=%u %s weights, pieces of %u, %s lists' kernel, %s",
             lda_choice_name(lda_precision_choices, precision), K, integer_weights ? "integer" : "real", piece_length,
             long_lists < 0 ? "the plan's" : long_lists ? "long" : "short", runs ? "runs" : "ragged");
    for (uint32_t it = 1; it <= (integer_weights ? 3u : 1u); it++) {
        for (int d = 0; d < 2; d++) {
            lda_zdraw in = {.n_mk = n[d], .alpha = alpha, .phi = phi, .word_prior = table, .K = K,
                            .precision = precision, .seed = 31, .iteration = it};
            if (d == 0)
                lda_cpu_word_prior_prefix(pool, V, &in, table);
            int rc = d == 0 ? lda_cpu_sample_z(pool, L, &in, z[0], &err)
                            : lda_cuda_sample_z_sparse_lists(L, &in, long_lists, z[1], &err);
            cr_assert_eq(rc, 0, "%s", err.msg);
        }
        size_t mismatches = 0;
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                size_t p = lda_layout_pos(L, s, i);
                if (z[0][p] != z[1][p] && mismatches++ < 5) { /* real weights: some are allowed */
                    if (integer_weights)
                        cr_log_error("%s pass %u: slot %zu token %u: CPU %u, GPU %u", what, it, s, i, z[0][p], z[1][p]);
                    else
                        cr_log_info("%s pass %u: slot %zu token %u: CPU %u, GPU %u", what, it, s, i, z[0][p], z[1][p]);
                }
            }
        if (!integer_weights) {
            cr_assert_leq(mismatches, c->num_tokens / 100, "%s: %zu of %zu draws differ from the CPU", what, mismatches,
                          c->num_tokens);
            break;
        }
        cr_assert_eq(mismatches, 0, "%s pass %u: %zu of %zu draws differ from the CPU", what, it, mismatches,
                     c->num_tokens);
        cr_assert_eq(memcmp(n[0], n[1], L->num_slots * K * 4), 0, "%s pass %u: counts differ from the CPU", what, it);
        for (int d = 0; d < 2; d++)
            recount_joined(L, K, z[d], n[d]);
    }
    lda_pool_destroy(pool);
    free_two(n);
    free_two(z);
    free(table);
    free(phi);
    free(alpha);
    lda_layout_free(L);
    corpus_free(c);
}

static void sparse_equals_the_cpu(uint32_t K, lda_precision precision, int integer_weights, uint32_t piece_length,
                                  int long_lists)
{
    for (int runs = 0; runs < 2; runs++)
        sparse_equals_the_cpu_on(runs, K, precision, integer_weights, piece_length, long_lists);
}

/* Beyond 64 blocks of topics (K > 1024) the word part's block is found in two steps
 * (cuda/zsample_sparse.cuh, word_block_find): 4096 in 32 segments of 8 blocks, 10,000 in 32 of 20
 * with the last one 5 blocks short. */
static const uint32_t sparse_K[] = {1, 2, 31, 32, 33, 64, 100, 1000, 1024, 4096, 10000};

static void sparse_from_counts_equals_phi_written_on(int runs, int long_lists, int word_lists, uint32_t K,
                                                     lda_precision precision, uint32_t piece_length);

/* The kernel's forms: the short lists' compilation; the long lists' with the word lists as a
 * run plans them (room for a word's tokens' topics: the test's counts have more, so most words
 * are gathered); the long lists' reading every run's n[w,k] from whole word lists. */
static void sparse_from_counts_equals_phi_written(uint32_t K, lda_precision precision, uint32_t piece_length)
{
    static const int forms[][2] = {{0, 0}, {1, -1}, {1, 1}}; /* long_lists, word_lists */
    for (int runs = 0; runs < 2; runs++)
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
            sparse_from_counts_equals_phi_written_on(runs, forms[f][0], forms[f][1], K, precision, piece_length);
}

/* The collapsed model's sparse draw forms φ from the counts as it reads them (the plan's
 * phi_from_counts, core/phi_mean.h): its topics and counts must be, bit for bit, those of the
 * same draw reading the φ the mean's update writes (the CPU's), over three passes, with and
 * without pieces, in both precisions and every form of the kernel, on both test corpora; some
 * counts are above 65,535 (no narrower copy of them may stand in). */
static void sparse_from_counts_equals_phi_written_on(int runs, int long_lists, int word_lists, uint32_t K,
                                                     lda_precision precision, uint32_t piece_length)
{
    const uint32_t V = 40;
    const double beta = 0.05;
    corpus *c = runs ? run_corpus(V) : ragged_corpus(V);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    float *phi = malloc((size_t)V * K * sizeof *phi), *alpha = malloc(K * sizeof *alpha);
    uint32_t *n_wk = malloc((size_t)V * K * sizeof *n_wk), *n_k = calloc(K, sizeof *n_k);
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = 0.01f + (float)(lda_rng_once(7, LDA_RNG_TEST, K, k) % 97) / 500.0f;
    for (size_t i = 0; i < (size_t)V * K; i++) {
        const uint32_t bits = lda_rng_once(9, LDA_RNG_TEST, K, i);
        n_wk[i] = lda_rng_once(8, LDA_RNG_TEST, K, i) % 3 == 0 ? bits % 50 == 0 ? 65530 + bits % 12 : bits % 200 : 0;
        n_k[i % K] += n_wk[i];
    }
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    cr_assert_eq(lda_cpu_update_phi(pool, V, n_wk, n_k, K, beta, LDA_UPDATE_MEAN, 0, 0, phi, &err), 0, "%s", err.msg);
    uint32_t *n[2], *z[2], *z0 = malloc(L->num_positions * 4);
    two_random_starts(L, K, z, n);
    memcpy(z0, z[0], L->num_positions * 4);
    for (uint32_t it = 1; it <= 3; it++) {
        for (int d = 0; d < 2; d++) {
            lda_zdraw in = {.n_mk = n[d], .alpha = alpha, .phi = phi, .K = K, .precision = precision, .seed = 41,
                            .iteration = it};
            int rc = d == 0 ? lda_cuda_sample_z_sparse_lists(L, &in, long_lists, z[0], &err)
                            : lda_cuda_sample_z_sparse_from_counts(L, &in, n_wk, n_k, beta, long_lists, word_lists,
                                                                   z[1], &err);
            cr_assert_eq(rc, 0, "%s", err.msg);
        }
        cr_assert_eq(memcmp(z[0], z[1], L->num_positions * 4), 0,
                     "K=%u pass %u, %s lists' kernel, word lists %d, %s: the topics differ", K, it,
                     long_lists ? "long" : "short", word_lists, runs ? "runs" : "ragged");
        cr_assert_eq(memcmp(n[0], n[1], L->num_slots * K * 4), 0,
                     "K=%u pass %u, %s lists' kernel, word lists %d, %s: the counts differ", K, it,
                     long_lists ? "long" : "short", word_lists, runs ? "runs" : "ragged");
        for (int d = 0; d < 2; d++)
            recount_joined(L, K, z[d], n[d]);
    }
    size_t changed = 0;
    for (size_t i = 0; i < L->num_positions; i++)
        changed += z[0][i] != z0[i];
    if (K > 1)
        cr_assert_gt(changed, c->num_tokens / 4, "K=%u: the draws changed almost nothing", K);
    lda_pool_destroy(pool);
    free_two(n);
    free_two(z);
    free(z0);
    free(phi);
    free(alpha);
    free(n_wk);
    free(n_k);
    lda_layout_free(L);
    corpus_free(c);
}

/* The word tables (cuda/sparse_table.cuh) are the CPU's byte for byte: the kernel keeps the
 * CPU's additions in their order (no reassociation, no fused multiply-add), on integer φ and on
 * real φ, in both precisions; 200 words make whole and partial warps and two blocks. From the
 * counts, the mean's kernel writes the CPU's φ byte for byte, and the tables formed from the
 * counts (the collapsed model's) are the CPU's of that φ. */
static const uint32_t table_K[] = {1, 2, 31, 32, 33, 64, 100, 1000, 1024, 4096, 10000};

static void tables_equal_the_cpu(uint32_t K, lda_precision precision, lda_pool *pool)
{
    const uint32_t V = 200;
    const size_t bytes = lda_word_prior_prefix_bytes(V, K, precision);
    float *phi = malloc((size_t)V * K * sizeof *phi), *phi_gpu = malloc((size_t)V * K * sizeof *phi),
          *alpha = malloc(K * sizeof *alpha);
    uint32_t *n_wk = malloc((size_t)V * K * sizeof *n_wk), *n_k = calloc(K, sizeof *n_k);
    void *cpu = malloc(bytes), *gpu = malloc(bytes);
    lda_error err = {0};
    const char *name = lda_choice_name(lda_precision_choices, precision);
    for (int integer = 1; integer >= 0; integer--) {
        for (uint32_t k = 0; k < K; k++)
            alpha[k] = integer ? (float)(1 + k % 3) : 0.01f + (float)(lda_rng_once(7, LDA_RNG_TEST, K, k) % 97) / 50.0f;
        for (size_t i = 0; i < (size_t)V * K; i++) {
            uint32_t bits = lda_rng_once(5, LDA_RNG_TEST, K, i);
            phi[i] = integer ? (float)(bits % 5) : (float)(bits >> 8) * 0x1p-30f;
        }
        lda_zdraw in = {.alpha = alpha, .phi = phi, .K = K, .precision = precision};
        lda_cpu_word_prior_prefix(pool, V, &in, cpu);
        memset(gpu, 0xa5, bytes);
        cr_assert_eq(lda_cuda_sparse_tables(V, K, precision, alpha, NULL, NULL, 0.0, phi, gpu, &err), 0, "%s", err.msg);
        cr_assert_eq(memcmp(cpu, gpu, bytes), 0, "K=%u %s, %s φ: the GPU's tables differ from the CPU's", K, name,
                     integer ? "integer" : "real");
    }
    for (size_t i = 0; i < (size_t)V * K; i++) {
        n_wk[i] = lda_rng_once(8, LDA_RNG_TEST, K, i) % 4 == 0 ? lda_rng_once(9, LDA_RNG_TEST, K, i) % 50 : 0;
        n_k[i % K] += n_wk[i];
    }
    const double beta = 0.01;
    cr_assert_eq(lda_cpu_update_phi(pool, V, n_wk, n_k, K, beta, LDA_UPDATE_MEAN, 0, 0, phi, &err), 0, "%s", err.msg);
    memset(phi_gpu, 0xa5, (size_t)V * K * sizeof *phi_gpu);
    memset(gpu, 0xa5, bytes);
    cr_assert_eq(lda_cuda_sparse_tables(V, K, precision, alpha, n_wk, n_k, beta, phi_gpu, gpu, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(phi, phi_gpu, (size_t)V * K * sizeof *phi), 0, "K=%u: the mean's kernel's φ is not the CPU's", K);
    lda_zdraw mean = {.alpha = alpha, .phi = phi, .K = K, .precision = precision};
    lda_cpu_word_prior_prefix(pool, V, &mean, cpu);
    cr_assert_eq(memcmp(cpu, gpu, bytes), 0, "K=%u %s: the tables formed from the counts differ from the CPU's of its φ", K,
                 name);
    free(phi);
    free(phi_gpu);
    free(alpha);
    free(n_wk);
    free(n_k);
    free(cpu);
    free(gpu);
}

Test(gpu, sparse_tables_equal_the_cpu)
{
    require_gpu();
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    for (size_t i = 0; i < sizeof table_K / sizeof table_K[0]; i++) {
        tables_equal_the_cpu(table_K[i], LDA_PRECISION_FLOAT, pool);
        tables_equal_the_cpu(table_K[i], LDA_PRECISION_DOUBLE, pool);
    }
    lda_pool_destroy(pool);
}

/* The word lists (cuda/word_lists.cuh) the tables' kernel writes are each word's non-zero
 * counts, topics increasing; a word with more than its room is marked so (UINT32_MAX), and
 * nothing is written past its room (the lists are allocated to the entry: memcheck sees it).
 * Counts above 65,535, rows of every density, rooms of none, some and all of K. */
static void word_lists_are_the_rows(uint32_t K)
{
    const uint32_t V = 70;
    uint32_t *n_wk = malloc((size_t)V * K * 4), *n_k = calloc(K, 4), *room = malloc(V * 4), *len = malloc(V * 4);
    size_t entries = 0;
    for (uint32_t w = 0; w < V; w++) {
        const uint32_t every = 1 + w % 7; /* one topic in `every` has a count */
        uint32_t nonzero = 0;
        for (uint32_t k = 0; k < K; k++) {
            const uint32_t bits = lda_rng_once(3, LDA_RNG_TEST, w, k);
            n_wk[(size_t)w * K + k] = bits % every == 0 ? 1 + (bits >> 8) % (w % 5 == 0 ? 100000 : 9) : 0;
            nonzero += n_wk[(size_t)w * K + k] != 0;
            n_k[k] += n_wk[(size_t)w * K + k];
        }
        room[w] = w % 3 == 0 ? K : w % 3 == 1 ? nonzero : (nonzero ? nonzero - 1 : 0);
        entries += room[w];
    }
    uint32_t *topics = malloc(entries * 4 + 4), *counts = malloc(entries * 4 + 4);
    lda_error err = {0};
    cr_assert_eq(lda_cuda_word_lists(V, K, n_wk, n_k, room, topics, counts, len, &err), 0, "%s", err.msg);
    size_t at = 0;
    for (uint32_t w = 0; w < V; w++) {
        uint32_t nonzero = 0;
        for (uint32_t k = 0; k < K; k++)
            nonzero += n_wk[(size_t)w * K + k] != 0;
        if (nonzero > room[w]) {
            cr_assert_eq(len[w], UINT32_MAX, "K=%u word %u: %u counts in a room of %u, not marked", K, w, nonzero,
                         room[w]);
        } else {
            cr_assert_eq(len[w], nonzero, "K=%u word %u: its list has %u entries, its row %u counts", K, w, len[w],
                         nonzero);
            uint32_t j = 0;
            for (uint32_t k = 0; k < K; k++)
                if (n_wk[(size_t)w * K + k]) {
                    cr_assert(topics[at + j] == k && counts[at + j] == n_wk[(size_t)w * K + k],
                              "K=%u word %u entry %u: (%u, %u), its row's (%u, %u)", K, w, j, topics[at + j],
                              counts[at + j], k, n_wk[(size_t)w * K + k]);
                    j++;
                }
        }
        at += room[w];
    }
    free(n_wk);
    free(n_k);
    free(room);
    free(len);
    free(topics);
    free(counts);
}

Test(gpu, word_lists_are_the_rows)
{
    require_gpu();
    static const uint32_t Ks[] = {1, 31, 32, 33, 100, 1024, 4096};
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; i++)
        word_lists_are_the_rows(Ks[i]);
}

Test(gpu, sparse_exact_on_integer_weights, .timeout = 300)
{
    require_gpu();
    for (size_t i = 0; i < sizeof sparse_K / sizeof sparse_K[0]; i++)
        for (int long_lists = 0; long_lists < 2; long_lists++) { /* both of the kernel's compilations */
            sparse_equals_the_cpu(sparse_K[i], LDA_PRECISION_FLOAT, 1, 0, long_lists);
            sparse_equals_the_cpu(sparse_K[i], LDA_PRECISION_DOUBLE, 1, 16, long_lists);
        }
}

Test(gpu, sparse_close_to_the_cpu_on_real_weights, .timeout = 300)
{
    require_gpu();
    for (size_t i = 0; i < sizeof sparse_K / sizeof sparse_K[0]; i++) {
        sparse_equals_the_cpu(sparse_K[i], LDA_PRECISION_FLOAT, 0, 16, -1);
        sparse_equals_the_cpu(sparse_K[i], LDA_PRECISION_DOUBLE, 0, 0, -1);
    }
}

Test(gpu, sparse_phi_from_counts_equals_phi_written, .timeout = 300)
{
    require_gpu();
    for (size_t i = 0; i < sizeof sparse_K / sizeof sparse_K[0]; i++) {
        sparse_from_counts_equals_phi_written(sparse_K[i], LDA_PRECISION_FLOAT, 16);
        sparse_from_counts_equals_phi_written(sparse_K[i], LDA_PRECISION_DOUBLE, 0);
    }
}

Test(gpu, sparse_counts_stay_exact)
{
    require_gpu();
    counts_equal_a_recount_drawn_by(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 1, 0);
    counts_equal_a_recount_drawn_by(LDA_DEVICE_CUDA, LDA_MODEL_THETA_COLLAPSED, LDA_SAMPLER_SPARSE, 3, 16);
    /* the cut documents joined in two spans of topics (cuda/join_block.cuh, JOIN_BLOCK_SPAN) */
    counts_equal_a_recount_at(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 1, 16, 12000);
}

/* The sparse draw keeps n[m,k] as lists (cuda/count_lists.cuh): its device memory grows with
 * the tokens, not with documents × topics. 20,000 documents of 5 to 40 tokens and V = 100: from
 * K = 1024 to 4096 the dense collapsed run's state grows by its D × K counts (20,000 × 3072 × 4
 * bytes, 245 MB), the sparse run's by less than a tenth of that (its V × K arrays); and at
 * K = 4096 the sparse run needs less than the dense one by most of the dense counts (all but
 * the window of rows it forms them in when something reads them, 32 MiB of 328 MB). */
Test(gpu, sparse_state_grows_with_tokens_not_documents_times_topics)
{
    require_gpu();
    corpus *c = test_planted_corpus(4, 25, 20000, 5, 40, 3, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 256, &err);
    cr_assert(L, "%s", err.msg);
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    uint64_t bytes[2][2]; /* [sparse][K = 1024, 4096] */
    for (int sparse = 0; sparse < 2; sparse++)
        for (int i = 0; i < 2; i++) {
            p.sampler = sparse ? LDA_SAMPLER_SPARSE : LDA_SAMPLER_BUTTERFLY;
            p.num_topics = i ? 4096 : 1024;
            bytes[sparse][i] = lda_cuda_state_bytes(L, &p);
            cr_assert_neq(bytes[sparse][i], UINT64_MAX);
        }
    const uint64_t counts = (uint64_t)L->num_slots * 3072 * sizeof(uint32_t);
    cr_log_info("state bytes, K = 1024 -> 4096: dense %llu -> %llu, sparse %llu -> %llu (D x 3072 counts: %llu)",
                (unsigned long long)bytes[0][0], (unsigned long long)bytes[0][1], (unsigned long long)bytes[1][0],
                (unsigned long long)bytes[1][1], (unsigned long long)counts);
    cr_assert_geq(bytes[0][1] - bytes[0][0], counts, "the dense run's counts are D x K");
    cr_assert_lt(bytes[1][1] - bytes[1][0], counts / 10, "the sparse run's state grows with D x K");
    cr_assert_geq(bytes[0][1] - bytes[1][1], (uint64_t)L->num_slots * 4096 * sizeof(uint32_t) / 4 * 3,
                  "the sparse run holds n[m,k] dense"); /* less its window of rows, 32 MiB */
    lda_layout_free(L);
    corpus_free(c);
}

Test(gpu, planted_topics_collapsed_sparse)
{
    require_gpu();
    planted_recovery_model(LDA_DEVICE_CUDA, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_SPARSE);
}

#else

Test(gpu, skipped_without_cuda)
{
    cr_skip_test("built without CUDA (make CUDA=0, or no nvcc): GPU tests not compiled");
}

#endif
