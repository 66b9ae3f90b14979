/* phi_cvb.h — the collapsed model's topics polished by CVB0 from its last sample (--phi-estimate cvb).
 *
 * One sample of z spreads each topic's words by chance; the expected counts (phi_expected.h) take
 * one step from it towards their mean. Passes of collapsed variational Bayes (cvb_start.h) begun from
 * the sample take that step again and again: each (document, word) pair's γ starts as its tokens'
 * share of each topic, and each pass sets it to
 *   γ_k ∝ (n[m,k]¬ + α_k) (n[w,k]¬ + β) / (n[k] + Vβ)
 * from the expected counts. φ is (n[w,k] + β) / (n[k] + Vβ) of the last pass's expected counts.
 *
 * The passes stay near the mode the sampler found, and so keep its quality, while removing the
 * sample's noise; begun from a random start instead, CVB0 ends lower (wikimix, K = 100: −8.313
 * after 400 passes, where Gibbs reaches −8.29). Measured on wiki43k and wikimix at K = 100 (2
 * threads; docs/samplers.md, "Polished by collapsed variational Bayes"): held-out a token better
 * than the expected counts' after 25, 100 and 400 iterations, by 0.007–0.045. The passes are those
 * of the start, so the same φ for any thread count. */
#ifndef LDA_PHI_CVB_H
#define LDA_PHI_CVB_H

#include <stdint.h>

#include "core/error.h"
#include "core/priors.h"
#include "corpus/corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The passes --phi-estimate cvb makes (--phi-passes `asked`, LDA_PHI_CVB_PASSES by default) after
 * `iterations` of sampling: at most one a sampling iteration, so that a short run's estimate does
 * not cost more than its training (a pass costs half an iteration at K = 100). */
uint32_t lda_phi_cvb_passes(uint32_t asked, uint32_t iterations);

/* φ of the tokens of c whose topics are z (corpus order, each < K) after `passes` passes of CVB0
 * begun from them, word-major: phi_vk[w·K + k], c->vocab_size × K. The priors' α_k and β. Over
 * `threads` workers (0: one per core). -1 with err when out of memory. */
int lda_phi_cvb(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *priors, int threads,
                uint32_t passes, float *phi_vk, lda_error *err);

/* The bytes lda_phi_cvb allocates for a corpus of these sizes, at most. */
uint64_t lda_phi_cvb_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K);

#ifdef __cplusplus
}
#endif

#endif
