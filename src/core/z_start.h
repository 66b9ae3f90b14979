/* z_start.h — the topics a run starts from, the same on the CPU and the GPU (keyed on the
 * document and the token, not on where either is stored, so any layout, shard or thread
 * count starts alike).
 *
 * Uniform (start_topics 0): each token's topic uniform over the K topics, the classic start.
 * Then every document lists min(K, its length) topics, which is what makes the first
 * iterations of the sparse draws the slowest: their work follows the topics a document lists.
 * Sparse (start_topics S > 0): each document first draws S topics, uniform over K (repeats
 * allowed), and each of its tokens starts in one of them, uniform over the S. Measured on
 * wiki43k (docs/samplers.md, "The start"): cheaper first iterations and held-out no worse. */
#ifndef LDA_Z_START_H
#define LDA_Z_START_H

#include <stdint.h>

#include "core/hd.h"
#include "core/rng.h"

/* The initial topic of the token at corpus position `token` in document `doc` (LDA_NO_DOC or
 * start_topics 0: the uniform start). */
LDA_HD uint32_t lda_start_topic(uint64_t seed, uint32_t doc, uint64_t token, uint32_t K, uint32_t start_topics)
{
    uint32_t bits = lda_rng_once(seed, LDA_RNG_Z_INIT, 0, token);
    if (start_topics && doc != UINT32_MAX) { /* UINT32_MAX: LDA_NO_DOC, a slot of no document */
        const uint32_t j = (uint32_t)(((uint64_t)bits * start_topics) >> 32); /* which of its S topics */
        bits = lda_rng_once(seed, LDA_RNG_Z_INIT, 1 + j, doc);
    }
    return (uint32_t)(((uint64_t)bits * K) >> 32);
}

#endif
