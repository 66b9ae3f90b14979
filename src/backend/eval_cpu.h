/* eval_cpu.h — the predictive and joint per-token log-likelihoods on the CPU (loglik.h).
 *
 * Each figure is a sum of terms, one per warp of the layout (the tokens' predictive terms; the
 * documents' joint terms) or per vocabulary chunk (the words' joint terms), added in that fixed
 * order. The terms are kept apart (lda_cpu_*_terms) so that a run split over shards
 * (backend_sharded.c), each computing the terms of its own warps, adds them in the order of the
 * whole layout and prints the same figures as one device (lda_loglik_*_from_terms). */
#ifndef LDA_EVAL_CPU_H
#define LDA_EVAL_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/priors.h"
#include "util/threadpool.h"

/* per_warp[q] = Σ over warp q's tokens of log Σ_k θ φ. */
void lda_cpu_loglik_pred_terms(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                               uint32_t K, double *per_warp);
/* per_warp[q]: the joint's terms of the documents whose first piece is in warp q. */
void lda_cpu_joint_doc_terms(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, uint32_t K,
                             const lda_priors *priors, double *per_warp);
/* per_chunk[c] (lda_phi_chunks(V) of them): the joint's terms of the words of chunk c. */
void lda_cpu_joint_word_terms(lda_pool *pool, uint32_t V, const uint32_t *n_wk, uint32_t K,
                              const lda_priors *priors, double *per_chunk);

/* The figures from the terms of a whole layout: sums in order, over num_tokens. */
double lda_loglik_pred_from_terms(const double *per_warp, size_t num_warps, size_t num_tokens);
double lda_loglik_joint_from_terms(const double *doc_per_warp, size_t num_warps, const double *word_per_chunk,
                                   uint32_t V, const uint32_t *n_k, uint32_t K, const lda_priors *priors,
                                   size_t num_tokens);

/* The terms and the figure in one call. */
int lda_cpu_loglik_pred(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                        uint32_t K, double *out, lda_error *err);

int lda_cpu_loglik_joint(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                         const uint32_t *n_k, uint32_t K, const lda_priors *priors, double *out, lda_error *err);

#endif
