/* test_sampler_sparselda.c — --sampler sparselda (backend/sampler_sparselda.h): exact
 * agreement with the plain collapsed draw, its weights in the split's order, on integer
 * weights over several passes and parts (counts included); a chi-squared test of a pair of
 * tokens on real weights, the word–topic counts moving between them; planted topics recovered
 * end to end; the same model for 1, 2 and 3 threads; the refusals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "backend/sampler_sparselda.h"
#include "backend/zplan.h"
#include "core/rng.h"
#include "core/search.h"
#include "collapsed_draws.h"
#include "helpers.h"
#include "planted.h"

/* One token's collapsed draw written out plainly, its own topic already off every count:
 * the weights (α_k + nm[k]) nw[k] scale_k of the word's topics, largest nw[k] first (ties:
 * the smaller topic), then nm[k] β scale_k of the listed topics, increasing, then α_k β scale_k
 * of every topic, in one array, searched linearly. */
static uint32_t reference_draw(const uint32_t *nm, const uint8_t *listed, const uint32_t *nw, const float *alpha,
                               double beta, const double *scale, uint32_t K, uint32_t bits, double *cum,
                               uint32_t *topic_of)
{
    uint32_t q = 0, e;
    for (uint32_t k = 0; k < K; k++)
        if (nw[k]) {
            uint32_t j = q++;
            for (; j > 0 && nw[topic_of[j - 1]] < nw[k]; j--) /* stable: ties keep increasing topics */
                topic_of[j] = topic_of[j - 1];
            topic_of[j] = k;
        }
    double sum = 0;
    for (e = 0; e < q; e++) {
        const uint32_t k = topic_of[e];
        cum[e] = sum += ((double)alpha[k] + nm[k]) * scale[k] * nw[k];
    }
    for (uint32_t k = 0; k < K; k++)
        if (listed[k]) {
            topic_of[e] = k;
            cum[e++] = sum += (double)nm[k] * beta * scale[k];
        }
    for (uint32_t k = 0; k < K; k++) {
        topic_of[e] = k;
        cum[e++] = sum += (double)alpha[k] * beta * scale[k];
    }
    return topic_of[lda_linear_search_double(cum, (int)e, lda_scaled_target_double(sum, lda_uniform_double(bits)))];
}

/* 150 documents of 1 to 120 tokens over 37 words (some cut into pieces of piece_length), a
 * third of the tokens repeating the word before them; integer α_k in 1..3, β = 2 and fixed
 * integer scales in 1..3 in place of 1 / (n[k] + Vβ), so every sum is exact; random initial z.
 * Three passes in `parts` parts must give the reference's z and counts exactly, the reference
 * drawing each part's tokens in order from its own copy of the pass's n[w,k] and n[k]. */
static void exact_on_integer_weights(uint32_t K, uint32_t parts, uint32_t piece_length)
{
    enum { DOCS = 150, V = 37, PASSES = 3 };
    corpus *c = test_word_runs_corpus(DOCS, V, 120);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_geq(L->num_warps, parts, "every part must have warps");
    cr_assert(!piece_length || L->num_cut_docs > 10, "the test must cut documents");
    float *alpha = malloc(K * sizeof *alpha);
    double *scale = malloc(K * sizeof *scale), *cum = malloc(3 * K * sizeof *cum);
    for (uint32_t k = 0; k < K; k++) {
        alpha[k] = (float)(1 + k % 3);
        scale[k] = (double)(1 + (k * 7) % 3);
    }
    const size_t VK = (size_t)V * K;
    uint32_t *z = malloc(L->num_positions * sizeof *z), *ez = malloc(L->num_positions * sizeof *ez);
    uint32_t *n = malloc(L->num_slots * K * sizeof *n), *en = malloc(L->num_slots * K * sizeof *en);
    uint32_t *n_wk = malloc(VK * sizeof *n_wk), *n_k = malloc(K * sizeof *n_k);
    uint32_t *view_wk = malloc(VK * sizeof *view_wk), *view_k = malloc(K * sizeof *view_k);
    uint32_t *topic_of = malloc(3 * K * sizeof *topic_of);
    uint8_t *listed = malloc(K);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_pos(L, s, i)] = lda_rng_once(9, LDA_RNG_TEST, 4, L->slot_token_base[s] + i) % K;
    memcpy(ez, z, L->num_positions * sizeof *z);
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_sparselda st;
    cr_assert_eq(lda_sparselda_create(L, K, parts, 2, &st, &err), 0, "%s", err.msg);
    const double beta = 2.0;
    const lda_sparselda_in sin = {&st, n_wk, n_k, beta, scale};
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .K = K, .seed = 21, .sparselda = &sin};
    size_t changed = 0;
    for (uint32_t it = 1; it <= PASSES; it++) {
        collapsed_count_all(L, K, z, n, n_wk, n_k);
        memcpy(en, n, L->num_slots * K * sizeof *n);
        in.iteration = it;
        cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
        for (uint32_t part = 0; part < parts; part++) {
            memcpy(view_wk, n_wk, VK * sizeof *n_wk);
            memcpy(view_k, n_k, K * sizeof *n_k);
            for (size_t q = part; q < L->num_warps; q += parts)
                for (size_t s = q * LDA_WARP; s < (q + 1) * LDA_WARP; s++) {
                    uint32_t *row = en + s * K;
                    for (uint32_t k = 0; k < K; k++)
                        listed[k] = row[k] != 0;
                    for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                        const size_t pos = lda_layout_pos(L, s, i);
                        const uint32_t w = L->words[pos], old = ez[pos];
                        uint32_t *nw = view_wk + (size_t)w * K;
                        row[old]--, nw[old]--, view_k[old]--;
                        const uint32_t bits = lda_rng_once(21, LDA_RNG_Z, it, L->slot_token_base[s] + i);
                        const uint32_t k = ez[pos] = reference_draw(row, listed, nw, alpha, beta, scale, K, bits, cum,
                                                                    topic_of);
                        row[k]++, nw[k]++, view_k[k]++;
                        listed[k] = 1;
                        changed += k != old;
                    }
                }
        }
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                const size_t pos = lda_layout_pos(L, s, i);
                cr_assert_eq(z[pos], ez[pos], "K=%u parts %u pass %u slot %zu token %u: %u, reference %u", K, parts, it,
                             s, i, z[pos], ez[pos]);
            }
        cr_assert_eq(memcmp(n, en, L->num_slots * K * sizeof *n), 0, "K=%u pass %u: counts differ", K, it);
    }
    if (K > 1)
        cr_assert_gt(changed, c->num_tokens / 4, "K=%u: the draws changed almost nothing", K);
    lda_sparselda_free(&st);
    lda_pool_destroy(pool);
    free(alpha);
    free(scale);
    free(cum);
    free(z);
    free(ez);
    free(n);
    free(en);
    free(n_wk);
    free(n_k);
    free(view_wk);
    free(view_k);
    free(topic_of);
    free(listed);
    lda_layout_free(L);
    corpus_free(c);
}

static const uint32_t exact_K[] = {1, 2, 31, 32, 33, 100, 1024, 4096};

Test(sampler_sparselda, exact_on_integer_weights)
{
    for (size_t i = 0; i < sizeof exact_K / sizeof exact_K[0]; i++)
        exact_on_integer_weights(exact_K[i], 3, 0);
}

/* One part: the sequential collapsed Gibbs sampler, every token seeing every earlier move. */
Test(sampler_sparselda, exact_on_integer_weights_in_one_part)
{
    exact_on_integer_weights(33, 1, 0);
    exact_on_integer_weights(1024, 1, 0);
}

/* Pieces keep their document's counts: their topics come from the row. */
Test(sampler_sparselda, exact_on_integer_weights_with_pieces)
{
    exact_on_integer_weights(33, 2, 16);
    exact_on_integer_weights(1024, 4, 7);
}

/* 32 documents of two tokens; the first drawn is slot 0 (part 0's first warp), tokens of word
 * 1 at topics (a, b); the others' words and topics fixed at random, so n[w,k] and n[k] are
 * uneven. The pair's joint distribution is P(x | state) P(y | x moved into the document's, the
 * word's and the topic's counts), the whole collapsed conditional each time (real α and β, the
 * denominators moving); 200,000 passes from the same state, each with its own uniforms, give
 * that many samples: a chi-squared test over K² cells, significance 0.001. */
Test(sampler_sparselda, chi_squared_of_pairs)
{
    enum { K = PAIR_K, V = PAIR_V, SAMPLES = 200000 };
    pair_state ps;
    pair_state_make(&ps);
    /* the pair's distribution, the counts moved as the draw moves them */
    double prob[K * K], px[K], py[K];
    uint32_t nm[K], nw[K], nk[K];
    memcpy(nm, ps.n0, sizeof nm);
    memcpy(nw, ps.n_wk + K, sizeof nw);
    memcpy(nk, ps.n_k, sizeof nk);
    nm[3]--, nw[3]--, nk[3]--;
    collapsed_conditional(nm, nw, nk, ps.alpha, ps.beta, V, K, px);
    for (uint32_t x = 0; x < K; x++) {
        nm[x]++, nw[x]++, nk[x]++;
        nm[6]--, nw[6]--, nk[6]--;
        collapsed_conditional(nm, nw, nk, ps.alpha, ps.beta, V, K, py);
        for (uint32_t y = 0; y < K; y++)
            prob[x * K + y] = px[x] * py[y];
        nm[6]++, nw[6]++, nk[6]++;
        nm[x]--, nw[x]--, nk[x]--;
    }
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_sparselda st;
    cr_assert_eq(lda_sparselda_create(ps.L, K, 1, 2, &st, &err), 0, "%s", err.msg);
    const lda_sparselda_in sin = {&st, ps.n_wk, ps.n_k, ps.beta, NULL};
    lda_zdraw in = {.alpha = ps.alpha, .K = K, .seed = 3, .sparselda = &sin};
    pair_chi_squared(&ps, pool, &in, prob, SAMPLES);
    lda_sparselda_free(&st);
    lda_pool_destroy(pool);
    pair_state_free(&ps);
}

Test(sampler_sparselda, planted_topics_recovered)
{
    planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_SPARSELDA);
}

/* Same seed, 1, 2 and 3 threads: identical θ, φ and z after a few iterations, with documents
 * cut into pieces and with --refresh 2. */
Test(sampler_sparselda, same_model_for_any_thread_count)
{
    corpus *c = test_planted_corpus(5, 20, 400, 10, 90, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 64, &err);
    cr_assert(L && L->num_cut_docs > 0 && L->num_warps >= LDA_ZPLAN_SPARSELDA_PARTS, "%s", err.msg);
    same_model_for_any_thread_count(L, 7, LDA_SAMPLER_SPARSELDA, "sparselda");
    lda_layout_free(L);
    corpus_free(c);
}

/* The collapsed model only, on the CPU only; held-out documents (φ fixed) are drawn by sparse's
 * split, so --holdout works. */
Test(sampler_sparselda, collapsed_on_the_cpu_only)
{
    lda_zplan z;
    cpu_only_sampler_refusals(LDA_SAMPLER_SPARSELDA, &z);
    cr_assert_eq(z.sparselda_parts, LDA_ZPLAN_SPARSELDA_PARTS);
}

/* A model trained with sparselda records it; --resume under --device auto on a machine with a GPU
 * must still find a device that runs it (it failed there: "runs on the CPU only"). */
Test(sampler_sparselda, auto_device_is_the_cpu_for_it)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.num_topics = 2048;
    p.sampler = LDA_SAMPLER_SPARSELDA;
    p.device = LDA_DEVICE_AUTO;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.sampler, LDA_SAMPLER_SPARSELDA);
    cr_assert_eq(p.device, LDA_DEVICE_CPU, "auto with a CPU-only sampler resolves to the CPU");
    p.sampler = LDA_SAMPLER_SPARSE;
    p.device = LDA_DEVICE_AUTO;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.device, LDA_DEVICE_AUTO, "other samplers leave auto to the backend");
}
