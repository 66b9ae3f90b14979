/* layout.h — documents sorted by length and grouped into warps of W = 32.
 *
 * Both backends sample from this layout (Steele & Tristan, section 5): documents are sorted
 * by decreasing length (ties by input order) so the 32 documents sharing a warp have similar
 * lengths, and padded with empty documents to a multiple of W. Document "slot" s = q*W + r
 * is lane r of warp q.
 *
 * Tokens are stored interleaved by warp: position warp_offset[q] + i*W + r holds token i of
 * slot q*W + r, so the 32 lanes of a warp read their i-th words with one coalesced load.
 * Each warp reserves warp_len[q] (its longest document) rows; in a shorter document the rows
 * past its end repeat its last word, which is what the master-index loop of Algorithm 4
 * reads (i = min(i_master, N[m]-1)); padding slots hold word 0 and are never sampled.
 * z is stored at the same positions.
 *
 * The permutation is kept both ways so every output is written in the user's order, and
 * each slot knows the corpus-order index of its first token: random numbers are keyed on
 * that, so results do not depend on the layout. */
#ifndef LDA_LAYOUT_H
#define LDA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "corpus/corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDA_WARP 32u
#define LDA_NO_DOC UINT32_MAX

typedef struct {
    size_t num_docs;        /* real documents (the corpus's kept documents) */
    size_t num_slots;       /* num_docs rounded up to a multiple of LDA_WARP */
    size_t num_warps;       /* num_slots / LDA_WARP */
    size_t num_tokens;      /* real tokens */
    size_t num_positions;   /* interleaved positions, padding included */
    uint32_t vocab_size;
    uint32_t *slot_doc;     /* num_slots: corpus document in the slot, or LDA_NO_DOC */
    uint32_t *slot_len;     /* num_slots: tokens of the slot's document (0 for padding) */
    uint64_t *slot_token_base; /* num_slots: corpus-order index of the document's first token */
    uint32_t *doc_slot;     /* num_docs: slot of each corpus document */
    uint32_t *warp_len;     /* num_warps: longest document of the warp */
    size_t *warp_offset;    /* num_warps + 1: first position of each warp */
    uint32_t *words;        /* num_positions: interleaved word ids */
} lda_layout;

/* Builds the layout of a corpus; NULL on failure (out of memory, or a corpus too large for
 * 32-bit document and token counts per document). */
lda_layout *lda_layout_build(const corpus *c, lda_error *err);
void lda_layout_free(lda_layout *L);

/* A layout of corpus c whose documents take the slots their namesakes take in `like`:
 * document d of c sits where document d of like's corpus sits (c and like's corpus must
 * have the same number of documents; lengths may differ, empty documents are allowed).
 * Used to score the held-out halves of documents against θ estimated on their first halves. */
lda_layout *lda_layout_build_like(const corpus *c, const lda_layout *like, lda_error *err);

/* Position of token i of slot s. */
static inline size_t lda_layout_pos(const lda_layout *L, size_t slot, uint32_t i)
{
    return L->warp_offset[slot / LDA_WARP] + (size_t)i * LDA_WARP + slot % LDA_WARP;
}

/* Positions of real tokens grouped by word (CSR): the tokens of word w are
 * positions[offsets[w] .. offsets[w+1]) in increasing order. Used to count n[w,k] without
 * write conflicts between threads. */
typedef struct {
    size_t *offsets;     /* vocab_size + 1 */
    size_t *positions;   /* num_tokens */
} lda_word_index;

int lda_word_index_build(const lda_layout *L, lda_word_index *out, lda_error *err);
void lda_word_index_free(lda_word_index *wi);

#ifdef __cplusplus
}
#endif

#endif
