/* test_rng.c — the counter-based generator, its uniforms, and Gamma variates on the CPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gamma.h"
#include "core/rng.h"

Test(rng, philox_matches_random123_known_answers)
{
    /* Random123's kat_vectors for philox4x32-10: counter, key, expected output. */
    const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (int t = 0; t < 3; t++) {
        lda_u32x4 c = {{kat[t][0], kat[t][1], kat[t][2], kat[t][3]}};
        uint64_t seed = (uint64_t)kat[t][4] | (uint64_t)kat[t][5] << 32;
        lda_u32x4 out = lda_philox(c, seed);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(out.v[i], kat[t][6 + i], "vector %d word %d: %08x != %08x", t, i, out.v[i], kat[t][6 + i]);
    }
}

Test(rng, streams_differ_by_purpose_iteration_and_index)
{
    uint32_t a = lda_rng_once(1, LDA_RNG_Z, 3, 100);
    cr_assert_neq(a, lda_rng_once(1, LDA_RNG_Z_INIT, 3, 100));
    cr_assert_neq(a, lda_rng_once(1, LDA_RNG_Z, 4, 100));
    cr_assert_neq(a, lda_rng_once(1, LDA_RNG_Z, 3, 101));
    cr_assert_neq(a, lda_rng_once(2, LDA_RNG_Z, 3, 100));
    cr_assert_neq(a, lda_rng_once(1, LDA_RNG_Z, 3, 100 + (1ull << 32)));
    cr_assert_eq(a, lda_rng_once(1, LDA_RNG_Z, 3, 100));
}

Test(rng, uniforms_stay_in_the_unit_interval)
{
    cr_assert_eq(lda_uniform_float(0), 0.0f);
    cr_assert(lda_uniform_float(0xffffffffu) < 1.0f);
    cr_assert_eq(lda_uniform_double(0), 0.0);
    cr_assert(lda_uniform_double(0xffffffffu) < 1.0);
    cr_assert(lda_uniform_open0(0) > 0.0);
    cr_assert_eq(lda_uniform_open0(0xffffffffu), 1.0);
}

Test(rng, uniform_mean_and_variance)
{
    const int n = 1000000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        double u = lda_uniform_double(lda_rng_once(9, LDA_RNG_TEST, 0, (uint64_t)i));
        s += u;
        s2 += u * u;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    /* standard error of the mean: sqrt(1/12/n) = 2.9e-4; allow 5 of them */
    cr_assert(fabs(mean - 0.5) < 1.5e-3, "mean %f", mean);
    cr_assert(fabs(var - 1.0 / 12) < 1e-3, "variance %f", var);
}

/* Gamma(shape, 1) has mean and variance both equal to shape. */
static void check_gamma_moments(double shape)
{
    const int n = 400000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        lda_rng r;
        lda_rng_init(&r, 5, LDA_RNG_TEST, 1, (uint64_t)i);
        double g = exp(lda_log_gamma_variate(&r, shape));
        s += g;
        s2 += g * g;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    /* SE(mean) = sqrt(shape/n); SE(var) ~ sqrt((mu4 - var^2)/n), mu4 = 3 shape^2 + 6 shape */
    double se_mean = sqrt(shape / n), se_var = sqrt((3 * shape * shape + 6 * shape - shape * shape) / n);
    cr_assert(fabs(mean - shape) < 5 * se_mean, "shape %g: mean %g (se %g)", shape, mean, se_mean);
    cr_assert(fabs(var - shape) < 6 * se_var, "shape %g: variance %g (se %g)", shape, var, se_var);
}

Test(rng, gamma_moments_small_shape) { check_gamma_moments(0.3); }
Test(rng, gamma_moments_unit_shape) { check_gamma_moments(1.0); }
Test(rng, gamma_moments_large_shape) { check_gamma_moments(7.5); }

Test(rng, gamma_log_variate_is_finite_for_tiny_shapes)
{
    for (int i = 0; i < 10000; i++) {
        lda_rng r;
        lda_rng_init(&r, 3, LDA_RNG_TEST, 2, (uint64_t)i);
        double lg = lda_log_gamma_variate(&r, 0.001);
        cr_assert(isfinite(lg), "log variate %g", lg);
    }
}

/* The double-precision GS draw for shape < 1 (ldagpu generate's planted topics): Gamma's mean
 * and variance, and at a tiny shape the moments of the logarithm, which the variates' tail
 * decides: E[log X] = ψ(a), Var[log X] = ψ'(a) (5 standard errors; at a tiny shape log X is
 * nearly log(U)/a, an exponential's, whose fourth central moment is 9 σ^4: so 8 σ^4 / n is the
 * variance of the sample's variance). */
static void polygamma01(double x, double *psi, double *trigamma)
{
    double p = 0, t = 0;
    for (; x < 8; x += 1) { /* recurrence up to where the asymptotic series serves */
        p -= 1 / x;
        t += 1 / (x * x);
    }
    const double i2 = 1 / (x * x);
    *psi = p + log(x) - 0.5 / x - i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 / 252));
    *trigamma = t + 1 / x + 0.5 * i2 + i2 / x * (1.0 / 6 - i2 * (1.0 / 30 - i2 / 42));
}

static void check_gamma_small_moments(double shape)
{
    const int n = 400000;
    double s = 0, s2 = 0, l = 0, l2 = 0;
    for (int i = 0; i < n; i++) {
        lda_rng r;
        lda_rng_init(&r, 9, LDA_RNG_TEST, 3, (uint64_t)i);
        const double lg = lda_log_gamma_small(&r, shape), g = exp(lg);
        cr_assert(isfinite(lg), "shape %g: log variate %g", shape, lg);
        s += g;
        s2 += g * g;
        l += lg;
        l2 += lg * lg;
    }
    const double mean = s / n, var = s2 / n - mean * mean, lmean = l / n, lvar = l2 / n - lmean * lmean;
    const double se_mean = sqrt(shape / n), se_var = sqrt((3 * shape * shape + 6 * shape - shape * shape) / n);
    cr_assert(fabs(mean - shape) < 5 * se_mean, "shape %g: mean %g (se %g)", shape, mean, se_mean);
    cr_assert(fabs(var - shape) < 6 * se_var, "shape %g: variance %g (se %g)", shape, var, se_var);
    double psi, tri;
    polygamma01(shape, &psi, &tri);
    cr_assert(fabs(lmean - psi) < 5 * sqrt(tri / n), "shape %g: mean log %g, ψ %g", shape, lmean, psi);
    cr_assert(fabs(lvar - tri) < 5 * sqrt(8 * tri * tri / n), "shape %g: variance of the log %g, ψ' %g", shape,
              lvar, tri);
}

Test(rng, gamma_small_moments) { check_gamma_small_moments(0.3); }
Test(rng, gamma_small_moments_near_one) { check_gamma_small_moments(0.9); }
Test(rng, gamma_small_moments_tiny_shape) { check_gamma_small_moments(0.01); }

/* The single-precision draw the GPU uses, on the host. */
static void check_gamma_float_moments(float shape)
{
    const int n = 400000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        lda_rng r;
        lda_rng_init(&r, 6, LDA_RNG_TEST, 1, (uint64_t)i);
        double g = exp((double)lda_log_gamma_variate_float(&r, shape));
        s += g;
        s2 += g * g;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    double se_mean = sqrt(shape / n), se_var = sqrt((2.0 * shape * shape + 6 * shape) / n);
    cr_assert(fabs(mean - shape) < 5 * se_mean, "shape %g: mean %g (se %g)", shape, mean, se_mean);
    cr_assert(fabs(var - shape) < 6 * se_var, "shape %g: variance %g (se %g)", shape, var, se_var);
}

Test(rng, gamma_float_moments_small_shape) { check_gamma_float_moments(0.05f); }
Test(rng, gamma_float_moments_large_shape) { check_gamma_float_moments(9.0f); }
Test(rng, gamma_float_moments_shape_near_one) { check_gamma_float_moments(0.9f); }
Test(rng, gamma_float_moments_shape_one) { check_gamma_float_moments(1.0f); }
Test(rng, gamma_float_moments_tiny_shape) { check_gamma_float_moments(0.01f); }

/* Every word, the smallest included, gives a finite log-variate: an exact zero would put
 * -inf into θ or φ and NaN into their normalisation (seen on wiki43k at K = 1024: a
 * 2^-24 event among 44 million draws an iteration). */
Test(rng, gamma_float_log_variates_are_finite_at_the_extremes)
{
    static const uint32_t words[] = {0u, 1u, 255u, 256u, 0xffffffffu};
    static const float shapes[] = {0.001f, 0.05f, 0.9f};
    for (size_t s = 0; s < 3; s++)
        for (size_t i = 0; i < 5; i++)
            for (size_t j = 0; j < 5; j++) {
                float lx = 0.0f;
                if (lda_gs_attempt(words[i], words[j], shapes[s], &lx))
                    cr_assert(isfinite(lx), "shape %g words %08x %08x: log x = %g", shapes[s], words[i], words[j], lx);
            }
}
