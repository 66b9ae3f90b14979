/* doc_lengths.h — the length of each document of a synthetic corpus (ldagpu generate).
 *
 * Poisson(mean), or log-normal with the given mean and σ of its logarithm (μ = ln mean − σ²/2),
 * rounded: log-normal lengths have the long tail of real collections (a few documents far
 * longer than the mean). Each length is a function of (seed, document) alone
 * (LDA_RNG_GEN_LENGTH), clamped to [1, CORPUS_MAX_DOC_TOKENS] (a 0 becomes 1, which raises a
 * Poisson mean below ~5 slightly). */
#ifndef LDA_DOC_LENGTHS_H
#define LDA_DOC_LENGTHS_H

#include <stdint.h>

#include "core/params.h"

typedef enum { LDA_LENGTHS_POISSON, LDA_LENGTHS_LOGNORMAL } lda_length_model;

extern const lda_choice lda_length_choices[];

typedef struct {
    lda_length_model model;
    double mean;  /* >= 1 */
    double sigma; /* log-normal: σ of the logarithm (> 0) */
} lda_length_spec;

uint32_t lda_doc_length(const lda_length_spec *spec, uint64_t seed, uint64_t doc);

#endif
