/* doc_lengths.c — see doc_lengths.h. */
#include "synth/doc_lengths.h"

#include <math.h>

#include "core/gamma.h"
#include "core/rng.h"
#include "corpus/corpus.h"

const lda_choice lda_length_choices[] = {
    {"poisson", LDA_LENGTHS_POISSON, "Poisson with the mean length"},
    {"lognormal", LDA_LENGTHS_LOGNORMAL, "log-normal with the mean length and --length-sigma: a long tail"},
    {NULL, 0, NULL},
};

/* Poisson(lambda), lambda < 10: Knuth's product of uniforms. */
static double poisson_small(lda_rng *r, double lambda)
{
    const double limit = exp(-lambda);
    double k = 0.0, p = lda_uniform_open0(lda_rng_next(r));
    while (p > limit) {
        k += 1.0;
        p *= lda_uniform_open0(lda_rng_next(r));
    }
    return k;
}

/* Poisson(lambda), lambda >= 10: Hörmann's transformed rejection with squeeze (PTRS, 1993),
 * O(1) expected draws for any lambda. */
static double poisson_ptrs(lda_rng *r, double lambda)
{
    const double slam = sqrt(lambda), loglam = log(lambda);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        const double u = lda_uniform_double(lda_rng_next(r)) - 0.5;
        const double v = lda_uniform_open0(lda_rng_next(r));
        const double us = 0.5 - fabs(u);
        const double k = floor((2.0 * a / us + b) * u + lambda + 0.43);
        if (us >= 0.07 && v <= vr)
            return k;
        if (k < 0.0 || (us < 0.013 && v > us))
            continue;
        int sign;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma_r(k + 1.0, &sign))
            return k;
    }
}

uint32_t lda_doc_length(const lda_length_spec *spec, uint64_t seed, uint64_t doc)
{
    lda_rng r;
    lda_rng_init(&r, seed, LDA_RNG_GEN_LENGTH, 0, doc);
    double len;
    if (spec->model == LDA_LENGTHS_POISSON) {
        len = spec->mean < 10.0 ? poisson_small(&r, spec->mean) : poisson_ptrs(&r, spec->mean);
    } else {
        const double mu = log(spec->mean) - 0.5 * spec->sigma * spec->sigma;
        const double x = mu + spec->sigma * lda_standard_normal(&r);
        len = x > log((double)CORPUS_MAX_DOC_TOKENS) ? (double)CORPUS_MAX_DOC_TOKENS : floor(exp(x) + 0.5);
    }
    return len < 1.0 ? 1u : len > (double)CORPUS_MAX_DOC_TOKENS ? (uint32_t)CORPUS_MAX_DOC_TOKENS : (uint32_t)len;
}
