/* sparse_draw.h — the split draw of the sparse sampler (backend/sampler_sparse.h), one
 * copy for the CPU and the GPU.
 *
 * With θ collapsed a token of word w in document m has weights (n[m,k] + α_k) φ[w,k], which
 * split into a document-sparse part s_k = n[m,k] φ[w,k], non-zero only for the document's
 * topics, and a dense part q_k = α_k φ[w,k] that depends on the word alone. With S = Σ s_k
 * and Q = Σ q_k, the token's uniform u gives the target t = u (S + Q) (clamped below the
 * total, search.h); t < S picks within the sparse part (its topics in increasing order),
 * otherwise t − S picks within the dense part by a binary search of the word's prefix sums
 * of q (built once per φ). Same distribution as the dense draw; on integer weights every
 * sum is exact, so every implementation of this split draws the same topic for the same u. */
#ifndef LDA_SPARSE_DRAW_H
#define LDA_SPARSE_DRAW_H

#include "core/hd.h"
#include "core/search.h"

/* The target within the dense part once t >= S: t − S, kept strictly below Q (rounding in
 * S + Q and t − S may otherwise reach Q, which would land on a last topic of zero weight). */
#define LDA_DEFINE_SPARSE_DENSE_TARGET(REAL, SUFFIX)                                       \
    LDA_HD REAL lda_sparse_dense_target_##SUFFIX(REAL target, REAL sparse_total, REAL dense_total) \
    {                                                                                     \
        REAL t = target - sparse_total;                                                   \
        if (t < (REAL)0)                                                                  \
            t = (REAL)0;                                                                  \
        return t < dense_total ? t : lda_below_##SUFFIX(dense_total);                     \
    }

LDA_DEFINE_SPARSE_DENSE_TARGET(float, float)
LDA_DEFINE_SPARSE_DENSE_TARGET(double, double)

#endif
