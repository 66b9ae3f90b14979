/* phi_expected.h — the collapsed model's topics from expected counts (--phi-estimate expected).
 *
 * The collapsed model's φ is the mean of the counts, (n[w,k] + β) / (n[k] + Vβ), of one sample of
 * z. Its expected counts given the other tokens' topics are a better estimate of the same thing
 * (Rao–Blackwellized: the average over every topic a token could take, each weighted by its full
 * conditional, instead of the one it drew):
 *
 *   e[w,k] = Σ over the tokens of w of p(k | the others),
 *   p(k | the others) ∝ (n[m,k]¬ + α_k) (n[w,k]¬ + β) / (n[k]¬ + Vβ)   (¬: without the token),
 *   φ[w,k] = (e[w,k] + β) / (Σ_w e[w,k] + Vβ).
 *
 * A word's rare tokens then spread over the topics their documents hold instead of sitting in the
 * one each drew. Measured on wikimix at K = 1024 (2 threads, the cpu-peers split): held-out a token
 * after 25 / 100 / 800 iterations −8.342 / −8.246 / −8.200 against the sample's −8.360 / −8.259 /
 * −8.207 (docs/samplers.md, "The topics written").
 *
 * One pass over the tokens, word by word: a word's factors are a K-long row, each token walks its
 * document's list of (topic, count) twice (its sum, then its shares), and the α part, the same
 * shape for every token of the word, is added once a word, scaled by the sum of the tokens'
 * 1 / Z. Each word's row is summed by one worker in corpus order, and the topic totals over a
 * fixed partition of the words (by tokens, not by threads) combined in order: the same φ for any
 * thread count. */
#ifndef LDA_PHI_EXPECTED_H
#define LDA_PHI_EXPECTED_H

#include <stdint.h>

#include "core/error.h"
#include "core/priors.h"
#include "corpus/corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* φ of the tokens of c whose topics are z (corpus order, each < K), word-major: phi_vk[w·K + k],
 * c->vocab_size × K. The priors' α_k and β. Over `threads` workers (0: one per core). -1 with err
 * when out of memory. */
int lda_phi_expected(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *priors, int threads,
                     float *phi_vk, lda_error *err);

/* The bytes lda_phi_expected allocates for a corpus of these sizes, at most (a document's list
 * holds at most min(its tokens, K) topics; a worker's rows, 2K doubles and 2K counts, are left out). */
uint64_t lda_phi_expected_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K);

#ifdef __cplusplus
}
#endif

#endif
