/* updates_cpu.h — the CPU reference for everything in an iteration after the z draw:
 * the counts n[m,k], n[w,k], n[k] from z, and θ and φ from the counts.
 *
 * --update draw (uncollapsed Gibbs): θ[m,·] ~ Dirichlet(α + n[m,·]) and
 * φ[·,k] ~ Dirichlet(β + n[·,k]), each a vector of Gamma(shape, 1) variates normalised by
 * its sum (gamma.h); the variate for θ[m,k] comes from the stream (LDA_RNG_THETA, iteration,
 * doc·K + k) and the one for φ[w,k] from (LDA_RNG_PHI, iteration, w·K + k), doc being the
 * corpus-order document index.
 * --update mean (mean-for-mode): θ[m,k] = (n[m,k] + α) / (N[m] + Kα) and
 * φ[w,k] = (n[w,k] + β) / (n[k] + Vβ).
 * θ rows of padding slots are uniform (1/K); they are never sampled. */
#ifndef LDA_UPDATES_CPU_H
#define LDA_UPDATES_CPU_H

#include <stdint.h>

#include "backend/layout.h"
#include "core/params.h"
#include "core/priors.h"
#include "util/threadpool.h"

/* Tasks over the vocabulary go chunk by chunk (core/phi_chunks.h), so sums over words do not
 * depend on the thread count. */
#include "core/phi_chunks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n[m,k], n[w,k] and n[k] from z; NULL n_mk or n_wk: not counted (n_wk NULL: nor n[k]). */
int lda_cpu_count(lda_pool *pool, const lda_layout *L, const lda_word_index *wi, const uint32_t *z,
                  uint32_t K, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err);

/* n[k] from the chunks' partial counts (chunks × K, 64-bit: a chunk of words may hold more
 * than 2^32 tokens of a topic), summed in the chunks' order; -1 with err (a run failure) when a
 * topic holds more than 2^32 - 1 tokens, which n[k] cannot count. lda_cpu_count ends with it. */
int lda_cpu_topic_totals(const uint64_t *partial, size_t chunks, uint32_t K, uint32_t *n_k, lda_error *err);

/* The failure of topic k past 2^32 - 1 tokens (it holds `total`), a run failure: the CPU's totals
 * and the GPU's check (cuda/topic_totals.cu) say it in the same words. */
void lda_topic_total_error(lda_error *err, uint32_t k, uint64_t total);

int lda_cpu_update_theta(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, uint32_t K,
                         const lda_priors *priors, lda_update update, uint64_t seed, uint32_t iteration,
                         float *theta, lda_error *err);

int lda_cpu_update_phi(lda_pool *pool, uint32_t V, const uint32_t *n_wk, const uint32_t *n_k,
                       uint32_t K, double beta, lda_update update, uint64_t seed, uint32_t iteration,
                       float *phi, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
