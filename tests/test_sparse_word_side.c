/* test_sparse_word_side.c — the word side of the sparse draw (core/sparse_draw.h,
 * lda_sparse_word_side): φ[w,k] = f_k + e[w,k], the document part summed over the word's
 * topics plus F, the document's counts weighted by the floor. Its draws go through other
 * sums than the plain split's, so they are tested by their distribution: pairs of tokens
 * whose joint law is known, with a chi-squared at significance 0.001, every part of the draw
 * reached (the word's topics, the floor, the word's dense part), and F carried from the first
 * token to the second. Its exact test, against a plain restatement on integer weights, is in
 * tests/test_sampler_sparse.c. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "backend/layout.h"
#include "backend/sampler_sparse.h"
#include "core/sparse_draw.h"
#include "helpers.h"

enum { K = 10, V = 2, DOCS = 200000 };

/* Word 1 lists topics 2 and 6 (e > 0 there); f_k > 0 everywhere. Word 0 is not listed. */
static void word_side_weights(float *phi, float *floor_, float *alpha)
{
    for (uint32_t k = 0; k < K; k++) {
        alpha[k] = 0.1f + (float)(k % 4) * 0.3f;
        floor_[k] = 0.05f + 0.02f * (float)(k % 3);
        phi[k] = 1.0f;
        phi[K + k] = floor_[k] + (k == 6 ? 0.4f : k == 2 ? 0.7f : 0.0f);
    }
}

/* Documents of two tokens of word 1, held at topics (a, b): the first is drawn with counts
 * {b: 1}, the second with {the first's new topic: 1}. P(z0, z1) = P(z0 | b) P(z1 | z0), each
 * ∝ (n[k] + α_k) φ[1,k]. Both tokens go by the word side (its list of 2 is within the
 * document's 2 or 3 topics: quarters 4). */
static void chi2_of_word_side_pairs(lda_precision precision)
{
    const uint32_t a0 = 3, b0 = 6;
    corpus *c = test_repeated_word_corpus(DOCS, 2, V, 1);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    float phi[V * K], alpha[K], floor_[K];
    word_side_weights(phi, floor_, alpha);
    const uint64_t offset[V + 1] = {0, 0, 2};
    const uint32_t topics[] = {2, 6}, len[V] = {LDA_SPARSE_WORD_UNLISTED, 2};
    const float excess[] = {lda_sparse_add_float(phi[K + 2], -floor_[2]), lda_sparse_add_float(phi[K + 6], -floor_[6])};
    const lda_sparse_word_side ws = {offset, topics, len, excess, floor_, 4};
    double prob[K * K], cond[K];
    for (uint32_t x = 0; x < K; x++) {
        double sum = 0;
        for (uint32_t k = 0; k < K; k++)
            sum += (cond[k] = ((k == b0) + (double)alpha[k]) * phi[K + k]);
        double px = cond[x] / sum, sum1 = 0;
        for (uint32_t k = 0; k < K; k++)
            sum1 += ((k == x) + (double)alpha[k]) * phi[K + k];
        for (uint32_t y = 0; y < K; y++)
            prob[x * K + y] = px * ((y == x) + (double)alpha[y]) * phi[K + y] / sum1;
    }
    uint32_t *z = calloc(L->num_positions, sizeof *z), *n = calloc(L->num_slots * K, sizeof *n);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            z[lda_layout_pos(L, s, i)] = i ? b0 : a0;
            n[s * K + (i ? b0 : a0)]++;
        }
    void *table = malloc(lda_word_prior_prefix_bytes(V, K, precision));
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .phi = phi, .word_prior = table, .word_side = &ws, .K = K,
                    .precision = precision, .seed = 9, .iteration = 1};
    lda_cpu_word_prior_prefix(pool, V, &in, table);
    cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
    uint64_t counts[K * K] = {0};
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s])
            counts[z[lda_layout_pos(L, s, 0)] * K + z[lda_layout_pos(L, s, 1)]]++;
    /* every part reached: the word's topics (2 with no count: only through the dense part) */
    cr_assert_gt(counts[6 * K + 6], 0);
    cr_assert_gt(counts[2 * K + 2], 0);
    cr_assert_gt(counts[0 * K + 0], 0);
    double dof, stat = test_chi2_stat(counts, prob, K * K, DOCS, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert(p > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, p);
    lda_pool_destroy(pool);
    free(z);
    free(n);
    free(table);
    lda_layout_free(L);
    corpus_free(c);
}

Test(sparse_word_side, chi_squared_of_pairs_float) { chi2_of_word_side_pairs(LDA_PRECISION_FLOAT); }
Test(sparse_word_side, chi_squared_of_pairs_double) { chi2_of_word_side_pairs(LDA_PRECISION_DOUBLE); }

/* The rule that sends a token to the word side: its word listed, its list at most quarters / 4
 * times the document's, quarters 0 never. */
Test(sparse_word_side, applies_where_the_words_list_is_short)
{
    cr_assert(lda_sparse_word_side_applies(2, 4, 2));
    cr_assert(lda_sparse_word_side_applies(2, 1, 8));
    cr_assert(!lda_sparse_word_side_applies(3, 1, 8));
    cr_assert(lda_sparse_word_side_applies(16, 8, 8));
    cr_assert(!lda_sparse_word_side_applies(17, 8, 8));
    cr_assert(!lda_sparse_word_side_applies(1, 0, 8));
    cr_assert(!lda_sparse_word_side_applies(LDA_SPARSE_WORD_UNLISTED, 4, UINT32_MAX));
    cr_assert(lda_sparse_word_side_applies(0, 4, 0));
    cr_assert(!lda_sparse_word_side_applies(UINT32_MAX - 1, UINT32_MAX, 1)); /* no overflow of the products */
    cr_assert(lda_sparse_word_side_applies(UINT32_MAX - 1, 4, UINT32_MAX));
}
