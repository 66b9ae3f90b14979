/* test_sampler_cpu.c — the CPU reference z draw: exact agreement of the binary search with
 * a linear scan, and a chi-squared goodness-of-fit of its draws. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/layout.h"
#include "backend/sampler_cpu.h"
#include "core/rng.h"
#include "core/search.h"
#include "helpers.h"

Test(search, binary_equals_linear_on_integer_weights)
{
    static const int Ks[] = {1, 2, 3, 7, 31, 32, 33, 64, 100, 257};
    for (size_t t = 0; t < sizeof Ks / sizeof Ks[0]; t++) {
        const int K = Ks[t];
        float pf[300];
        double pd[300];
        for (int trial = 0; trial < 200; trial++) {
            float sf = 0;
            double sd = 0;
            for (int k = 0; k < K; k++) {
                /* small integers, zeros included: every partial sum is exact */
                uint32_t w = lda_rng_once(11, LDA_RNG_TEST, (uint32_t)trial, (uint64_t)(K * 1000 + k)) % 6;
                w = w == 5 ? 13 : w;
                sf += (float)w;
                sd += w;
                pf[k] = sf;
                pd[k] = sd;
            }
            if (sd == 0)
                continue;
            for (int i = 0; i < 64; i++) {
                uint32_t bits = lda_rng_once(12, LDA_RNG_TEST, (uint32_t)trial, (uint64_t)i);
                float tf = lda_scaled_target_float(sf, lda_uniform_float(bits));
                double td = lda_scaled_target_double(sd, lda_uniform_double(bits));
                int jf = lda_binary_search_float(pf, K, tf), jd = lda_binary_search_double(pd, K, td);
                cr_assert_eq(jf, lda_linear_search_float(pf, K, tf), "K=%d", K);
                cr_assert_eq(jd, lda_linear_search_double(pd, K, td), "K=%d", K);
                cr_assert(jf == 0 ? pf[0] > 0 : pf[jf] > pf[jf - 1], "zero-weight topic %d drawn (K=%d)", jf, K);
            }
        }
    }
}

Test(search, target_never_reaches_the_total)
{
    /* u just below 1 times a total that rounds: without the clamp u*total == total. */
    float total = 3.0f;
    float u = lda_uniform_float(0xffffffffu);
    cr_assert(lda_scaled_target_float(total, u) < total);
    double totald = 0.1 + 0.2;
    cr_assert(lda_scaled_target_double(totald, lda_uniform_double(0xffffffffu)) < totald);
    /* The last topic has zero weight: it must not be drawn even at u -> 1. */
    float p[3] = {1.0f, 3.0f, 3.0f};
    cr_assert_eq(lda_binary_search_float(p, 3, lda_scaled_target_float(3.0f, u)), 1);
}

/* 32 documents of one repeated word: every token has the same distribution
 * a[k] = θ[k] φ[w,k], so 10^6 tokens give 10^6 independent draws from it. */
static void chi2_of_cpu_draws(lda_precision precision)
{
    const uint32_t K = 50, V = 3;
    corpus *c = test_repeated_word_corpus(32, 31250, V, 1); /* 10^6 tokens */
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    float *theta = malloc(L->num_slots * K * sizeof *theta), *phi = malloc(V * K * sizeof *phi);
    double prob[50], total = 0;
    for (uint32_t k = 0; k < K; k++) {
        float th = 0.5f + (float)((k * 37) % 11) / 7.0f, ph = k % 10 == 3 ? 0.0f : 0.01f + (float)((k * 13) % 17) / 50.0f;
        for (size_t s = 0; s < L->num_slots; s++)
            theta[s * K + k] = th;
        for (uint32_t w = 0; w < V; w++)
            phi[w * K + k] = w == 1 ? ph : 1.0f;
        prob[k] = (double)th * ph;
        total += prob[k];
    }
    for (uint32_t k = 0; k < K; k++)
        prob[k] /= total;
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool);
    lda_zdraw in = {.theta = theta, .phi = phi, .K = K, .precision = precision, .seed = 77, .iteration = 1};
    cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
    uint64_t counts[50] = {0};
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = z[lda_layout_pos(L, s, i)];
            cr_assert(k < K);
            counts[k]++;
        }
    for (uint32_t k = 3; k < K; k += 10)
        cr_assert_eq(counts[k], 0, "zero-weight topic %u drawn %llu times", k, (unsigned long long)counts[k]);
    double dof, stat = test_chi2_stat(counts, prob, K, 1000000, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert(p > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, p);
    lda_pool_destroy(pool);
    free(z);
    free(theta);
    free(phi);
    lda_layout_free(L);
    corpus_free(c);
}

Test(sampler_cpu, chi_squared_float) { chi2_of_cpu_draws(LDA_PRECISION_FLOAT); }
Test(sampler_cpu, chi_squared_double) { chi2_of_cpu_draws(LDA_PRECISION_DOUBLE); }

Test(stats, chi2_tail_matches_known_values)
{
    /* P(X >= 3.841) = 0.05 for 1 dof; P(X >= 124.3) = 0.05 for 100 dof. */
    cr_assert(fabs(test_chi2_sf(3.841459, 1) - 0.05) < 1e-4);
    cr_assert(fabs(test_chi2_sf(124.3421, 100) - 0.05) < 1e-4);
    cr_assert(fabs(test_chi2_sf(10.0, 10) - 0.4404933) < 1e-5);
}

/* θ collapsed: the counts the draws leave behind are exactly the tally of the new z. */
Test(sampler_cpu, collapsed_draws_keep_the_counts_consistent)
{
    corpus *c = test_planted_corpus(3, 8, 80, 3, 30, 6, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t K = 9, V = L->vocab_size;
    uint32_t *z = calloc(L->num_positions, sizeof *z), *n = calloc(L->num_slots * K, sizeof *n);
    float *phi = malloc(V * K * sizeof *phi);
    for (size_t i = 0; i < (size_t)V * K; i++)
        phi[i] = 0.01f + (float)(lda_rng_once(1, LDA_RNG_TEST, 0, i) % 100) / 100.0f;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = lda_rng_once(2, LDA_RNG_TEST, 0, s * 100 + i) % K;
            z[lda_layout_pos(L, s, i)] = k;
            n[s * K + k]++;
        }
    lda_pool *pool = lda_pool_create(2, &err);
    const float alpha[9] = {0.5f, 0.1f, 2.0f, 0.5f, 0.5f, 1.0f, 0.05f, 0.5f, 3.0f}; /* per topic */
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .phi = phi, .K = K, .precision = LDA_PRECISION_FLOAT, .seed = 3,
                    .iteration = 1};
    cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
    size_t changed = 0;
    for (size_t s = 0; s < L->num_slots; s++) {
        uint32_t tally[9] = {0};
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = z[lda_layout_pos(L, s, i)];
            cr_assert_lt(k, K);
            tally[k]++;
            changed += k != lda_rng_once(2, LDA_RNG_TEST, 0, s * 100 + i) % K;
        }
        cr_assert_eq(memcmp(tally, n + s * K, sizeof tally), 0, "slot %zu: counts drifted from z", s);
    }
    cr_assert_gt(changed, c->num_tokens / 4, "the draws changed almost nothing");
    lda_pool_destroy(pool);
    free(z);
    free(n);
    free(phi);
    lda_layout_free(L);
    corpus_free(c);
}
