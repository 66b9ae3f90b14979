/* sampler_sparse.h — the sparse z draw (--sampler sparse) on the CPU: θ collapsed, work per
 * token growing with the topics of its document, not with K (SaberLDA, seed 003).
 *
 * Each token's weights (n[m,k] + α_k) φ[w,k] are split as core/sparse_draw.h says: a sum
 * over the document's topics in increasing order, and the word's dense part α_k φ[w,k],
 * whose prefix sums are built for every word once per φ (lda_cpu_word_prior_prefix) and
 * searched in O(log K), a tree of blocks of topics. The document's topics are a sorted list kept beside its row of
 * n[m,k]: a topic whose count falls to zero stays in it until the document is done (its
 * weight is exactly zero, so it is never drawn), a topic drawn from the dense part is
 * inserted. This is the reference the GPU's sparse kernel is checked against, and the CPU's
 * fast path for the θ-collapsed models. */
#ifndef LDA_SAMPLER_SPARSE_H
#define LDA_SAMPLER_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/sampler_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the dense part's table (V × ceil(K/16) reals of the draw's precision). */
size_t lda_word_prior_prefix_bytes(uint32_t V, uint32_t K, lda_precision precision);

/* For every word w < V, the prefix sums Σ_{j<=k} α_j φ[w,j] (left to right in the precision
 * of `in`, from in->alpha and in->phi) at the last topic k of each block of 16: the draw
 * searches the blocks, then forms the block's sums again by the same additions. */
void lda_cpu_word_prior_prefix(lda_pool *pool, uint32_t V, const lda_zdraw *in, void *table);

/* The z draw of lda_cpu_sample_z (θ collapsed: in->n_mk set) with the split; in->word_prior
 * must hold lda_cpu_word_prior_prefix of the same φ and α. */
int lda_cpu_sample_z_sparse(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
