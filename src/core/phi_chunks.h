/* phi_chunks.h — the fixed partition of the vocabulary behind every φ column sum.
 *
 * A φ update sums each topic's column over all V words. So that the result does not depend
 * on threads or scheduling, and so that both backends add in the same order, the words are
 * cut into chunks of LDA_PHI_CHUNK; each chunk's partial sums are formed in word order and
 * the partials are then added in chunk order (CPU: updates_cpu.c, eval_cpu.c; GPU:
 * cuda/updates.cu). */
#ifndef LDA_PHI_CHUNKS_H
#define LDA_PHI_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"

#define LDA_PHI_CHUNK 64u

/* Chunks of a vocabulary of V words. */
LDA_HD size_t lda_phi_chunks(uint32_t V)
{
    return (V + LDA_PHI_CHUNK - 1) / LDA_PHI_CHUNK;
}

/* Words [*w0, *w1) of chunk `chunk`. */
LDA_HD void lda_phi_chunk_words(size_t chunk, uint32_t V, uint32_t *w0, uint32_t *w1)
{
    *w0 = (uint32_t)chunk * LDA_PHI_CHUNK;
    *w1 = *w0 + LDA_PHI_CHUNK < V ? *w0 + LDA_PHI_CHUNK : V;
}

#endif
