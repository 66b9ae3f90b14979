/* loglik.h — the two quality figures every evaluation reports, shared by both backends.
 *
 * Predictive (per token):  (1/N) Σ_tokens log Σ_k θ[m,k] φ[w,k]
 *   how well the current point estimate explains the training tokens.
 * Joint (per token):       (1/N) log p(w, z | α, β), with θ and φ integrated out:
 *   log p = Σ_k [ lgamma(Vβ) − lgamma(n[k] + Vβ) + Σ_w (lgamma(n[w,k] + β) − lgamma(β)) ]
 *         + Σ_m [ lgamma(Kα) − lgamma(N[m] + Kα) + Σ_k (lgamma(n[m,k] + α) − lgamma(α)) ]
 *   the figure exact collapsed Gibbs samplers (GibbsLDA++, WarpLDA, CuLDA_CGS) print.
 * Zero counts contribute nothing to the inner sums, so only non-zero counts are visited. */
#ifndef LDA_LOGLIK_H
#define LDA_LOGLIK_H

#include <math.h>
#include <stdint.h>

#include "core/hd.h"

#if defined(__CUDACC__)
#define LDA_LGAMMA(x) lgamma(x)
#else
/* lgamma() writes the global signgam: use the reentrant form from worker threads. */
LDA_HD double lda_lgamma_host(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}
#define LDA_LGAMMA(x) lda_lgamma_host(x)
#endif

/* lgamma(n + prior) − lgamma(prior), with lgamma(prior) passed in; 0 for n = 0. */
LDA_HD double lda_joint_count_term(uint32_t n, double prior, double lgamma_prior)
{
    return n ? LDA_LGAMMA((double)n + prior) - lgamma_prior : 0.0;
}

/* lgamma(total_prior) − lgamma(n + total_prior): the normaliser of one document or topic. */
LDA_HD double lda_joint_norm_term(double n, double total_prior)
{
    return LDA_LGAMMA(total_prior) - LDA_LGAMMA(n + total_prior);
}

#endif
