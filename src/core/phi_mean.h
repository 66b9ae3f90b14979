/* phi_mean.h — φ as the mean of the counts (the collapsed model, phi-mean, mean-for-mode):
 * φ[w,k] = (n[w,k] + β) / (n[k] + V β), formed as (n[w,k] + β) × s_k in float, with
 * s_k = 1 / (n[k] + V β) rounded once a topic. One definition for the CPU's φ, the GPU's φ and
 * the GPU's sparse draw, which forms φ from the counts as it reads them instead of reading a
 * φ written beforehand (at K = 10,000 on wiki43k, writing φ and reading it back for the word
 * tables cost more than a quarter of the iteration). It is within 1.5 units in the last place
 * of the exact quotient; the products and sums are rounded separately on both sides (no fused
 * multiply-add), so both give the same bits. */
#ifndef LDA_PHI_MEAN_H
#define LDA_PHI_MEAN_H

#include <stdint.h>

#include "core/hd.h"

/* s_k: rounded once, from a double quotient. */
LDA_HD float lda_phi_mean_scale(uint32_t n_k, uint32_t V, double beta)
{
#ifdef __CUDA_ARCH__
    return (float)__ddiv_rn(1.0, __dadd_rn((double)n_k, __dmul_rn((double)V, beta)));
#else
    return (float)(1.0 / ((double)n_k + (double)V * beta));
#endif
}

/* φ[w,k] from n[w,k], β in float ((float)β) and s_k. */
LDA_HD float lda_phi_mean_value(uint32_t n_wk, float beta, float scale)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(__fadd_rn((float)n_wk, beta), scale);
#else
    return ((float)n_wk + beta) * scale;
#endif
}

#endif
