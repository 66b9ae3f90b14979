/* gamma.h — Gamma(shape, 1) variates for the Dirichlet draws of θ and φ.
 *
 * Marsaglia & Tsang (2000) for shape >= 1; for shape < 1, Gamma(shape) is drawn as
 * Gamma(shape + 1) * U^(1/shape). With LDA's small priors (β = 0.01) the second factor
 * is often below the smallest double, so the variate is returned as its logarithm and the
 * caller normalises in log space. Normals come from Box–Muller. Everything is in double
 * and shared by the CPU and the GPU (hd.h), so both backends draw the same values from
 * the same counter-based stream, up to the last bits of their libm. */
#ifndef LDA_GAMMA_H
#define LDA_GAMMA_H

#include <math.h>

#include "core/hd.h"
#include "core/rng.h"

LDA_HD double lda_standard_normal(lda_rng *r)
{
    double u1 = lda_uniform_open0(lda_rng_next(r));
    double u2 = lda_uniform_double(lda_rng_next(r));
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* log of a Gamma(shape, 1) variate; shape > 0. */
LDA_HD double lda_log_gamma_variate(lda_rng *r, double shape)
{
    double log_boost = 0.0;
    if (shape < 1.0) {
        log_boost = log(lda_uniform_open0(lda_rng_next(r))) / shape;
        shape += 1.0;
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = lda_standard_normal(r);
        double v = 1.0 + c * x;
        if (v <= 0.0)
            continue;
        v = v * v * v;
        double u = lda_uniform_open0(lda_rng_next(r));
        double x2 = x * x;
        /* The squeeze accepts ~98% without a logarithm. */
        if (u < 1.0 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1.0 - v + log(v)))
            return log(d * v) + log_boost;
    }
}

/* log of a Gamma(shape, 1) variate for shape < 1 by Ahrens & Dieter's GS algorithm (1974), in
 * double: two uniforms, a logarithm and an exponential an attempt, nearly every attempt accepted
 * at a small shape, where lda_log_gamma_variate's boost and Marsaglia–Tsang take three
 * logarithms, a square root and a cosine. ldagpu generate draws its planted topics' K × V
 * variates of β (10^9 at K = 10^4, V = 10^5) this way. */
LDA_HD double lda_log_gamma_small(lda_rng *r, double shape)
{
    const double b = 1.0 + shape * 0.36787944117144233; /* 1 + a/e */
    for (;;) {
        const double p = b * lda_uniform_open0(lda_rng_next(r)); /* > 0 */
        const double u = lda_uniform_open0(lda_rng_next(r));
        if (p <= 1.0) { /* x = p^(1/a), accepted with probability e^-x */
            const double log_x = log(p) / shape;
            if (u <= exp(-exp(log_x)))
                return log_x;
        } else { /* x = -log((b - p) / a), accepted with probability x^(a-1) */
            const double x = -log((b - p) / shape), log_x = log(x);
            if (log(u) <= (shape - 1.0) * log_x)
                return log_x;
        }
    }
}

/* The same draw in single precision, for the GPU's θ/φ updates (tens of millions of
 * variates an iteration at K = 1024: double-precision transcendentals would cost more than
 * the whole z draw). On the device the fast intrinsics are used; statistically the draws are
 * as good (tests check the moments), they are just not the CPU's to the last bit. */
LDA_HD float lda_logf_fast(float x)
{
#if defined(__CUDA_ARCH__)
    return __logf(x);
#else
    return logf(x);
#endif
}

LDA_HD float lda_uniform_open0_float(uint32_t x)
{
    return (float)((x >> 8) + 1) * 5.9604644775390625e-8f; /* (0, 1] */
}

LDA_HD float lda_standard_normal_float(lda_rng *r)
{
    float u1 = lda_uniform_open0_float(lda_rng_next(r));
    float u2 = lda_uniform_float(lda_rng_next(r)) - 0.5f; /* cos(2πu) = -cos(2π(u - 1/2)), argument in [-π, π) */
#if defined(__CUDA_ARCH__)
    float c = -__cosf(6.2831853071795865f * u2);
    return sqrtf(-2.0f * lda_logf_fast(u1)) * c;
#else
    float c = -cosf(6.2831853071795865f * u2);
    return sqrtf(-2.0f * lda_logf_fast(u1)) * c;
#endif
}

/* Shape < 1: Ahrens & Dieter's GS algorithm (1974), in log space. Most entries of θ and φ
 * have zero counts, so their shape is the prior (α, β < 1): GS needs two uniforms and two
 * logarithms there, against a normal, three logarithms and a uniform for Marsaglia–Tsang
 * with the U^(1/a) boost. */
/* One GS attempt from two random words; returns 1 and *log_x when it accepts. */
LDA_HD int lda_gs_attempt(uint32_t w0, uint32_t w1, float shape, float *log_x)
{
    const float b = 1.0f + shape * 0.36787944117144233f; /* 1 + a/e */
    float p = b * lda_uniform_open0_float(w0); /* p > 0: a zero word must not give log x = -inf */
    float log_u = lda_logf_fast(lda_uniform_open0_float(w1));
    if (p <= 1.0f) {
        float lx = lda_logf_fast(p) / shape; /* x = p^(1/a) */
#if defined(__CUDA_ARCH__)
        float x = __expf(lx);
#else
        float x = expf(lx);
#endif
        *log_x = lx;
        return log_u <= -x;
    }
    float x = -lda_logf_fast((b - p) / shape);
    *log_x = lda_logf_fast(x);
    return log_u <= (shape - 1.0f) * *log_x;
}

LDA_HD float lda_log_gamma_small_float(lda_rng *r, float shape)
{
    for (;;) {
        uint32_t w0 = lda_rng_next(r), w1 = lda_rng_next(r);
        float log_x;
        if (lda_gs_attempt(w0, w1, shape, &log_x))
            return log_x;
    }
}

LDA_HD float lda_log_gamma_variate_float(lda_rng *r, float shape)
{
    if (shape < 1.0f)
        return lda_log_gamma_small_float(r, shape);
    const float d = shape - 1.0f / 3.0f;
    const float c = 1.0f / sqrtf(9.0f * d);
    for (;;) {
        float x = lda_standard_normal_float(r);
        float v = 1.0f + c * x;
        if (v <= 0.0f)
            continue;
        v = v * v * v;
        float u = lda_uniform_open0_float(lda_rng_next(r));
        float x2 = x * x;
        if (u < 1.0f - 0.0331f * x2 * x2 || lda_logf_fast(u) < 0.5f * x2 + d * (1.0f - v + lda_logf_fast(v)))
            return lda_logf_fast(d * v);
    }
}

#endif
