/* layout.h — documents sorted by length and grouped into warps of W = 32.
 *
 * Both backends sample from this layout (Steele & Tristan, section 5): documents are sorted
 * by decreasing length (ties by input order) so the 32 documents sharing a warp have similar
 * lengths, and padded with empty documents to a multiple of W. Document "slot" s = q*W + r
 * is lane r of warp q.
 *
 * Pieces. Real collections are heavy-tailed (a few documents of 10^4-10^6 tokens among
 * many short ones); a warp's work is its longest document, so one long document would hold
 * up the whole iteration and pad its warp's 31 shorter lanes. A document longer than
 * piece_length tokens is therefore cut into ceil(len / piece_length) pieces of near-equal
 * length, each a slot of its own, sorted with the rest; its tokens keep their corpus-order
 * indices, so every random number is the one the whole document would draw. Each piece
 * keeps in its row of n[m,k] the counts of its whole document (the backends bring the rows
 * of a cut document together after every z pass: lda_layout_join_cut_counts), and θ is drawn per
 * document (keyed on the document), so every piece of a document has the same θ row. With
 * θ given (uncollapsed, mean-for-mode) this changes nothing on the CPU: the draws, counts, θ
 * and φ are those of the uncut layout (on the GPU the butterfly search rounds by the lane a
 * document sits in, so a draw within a few ulps of a boundary may differ: a handful in 10^6;
 * exactly the same on integer weights). With θ collapsed a piece sees the counts of its document's
 * other pieces as they were when the pass began (the AD-LDA approximation, within a
 * document); documents of at most piece_length tokens are drawn exactly as before.
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
    size_t num_pieces;      /* real slots: num_docs plus the extra pieces of cut documents */
    size_t num_slots;       /* num_pieces rounded up to a multiple of LDA_WARP */
    size_t num_warps;       /* num_slots / LDA_WARP */
    size_t first_warp;      /* the whole layout's index of warp 0: 0, but in a shard's layout (shards.h) */
    size_t num_tokens;      /* real tokens */
    size_t num_positions;   /* interleaved positions, padding included */
    uint32_t vocab_size;
    uint32_t piece_length;  /* documents longer than this were cut into pieces; 0: none were */
    uint32_t *slot_doc;     /* num_slots: corpus document in the slot, or LDA_NO_DOC */
    uint32_t *slot_len;     /* num_slots: tokens of the slot's piece (0 for padding) */
    uint32_t *slot_doc_len; /* num_slots: tokens of the slot's whole document (0 for padding) */
    uint32_t *slot_piece;   /* num_slots: which piece of its document (0: the first, which stands
                               for the document wherever documents are counted once) */
    uint64_t *slot_token_base; /* num_slots: index of the piece's first token in the layout's
                                  order of the corpus (token_shift), which also keys its random
                                  numbers */
    int32_t *token_shift;   /* num_tokens, or NULL for none: the layout's order of a document's
                               tokens is by word (stable), so that a word's repeats follow one
                               another (the sparse draw carries its sums along such a run); its
                               token r is the corpus's token r + token_shift[r]. NULL where every
                               document lists its tokens by word already (bag-of-words files,
                               `generate`), and in a shard's layout (z is mapped on the whole one) */
    uint32_t *doc_slot;     /* num_docs: slot of each corpus document's first piece (NULL in a shard's
                               layout, whose documents keep the whole corpus's ids) */
    size_t num_cut_docs;    /* documents cut into two or more pieces */
    size_t *cut_offsets;    /* num_cut_docs + 1: cut document c has slots cut_slots[cut_offsets[c] ..] */
    uint32_t *cut_slots;    /* the slots of the cut documents' pieces, first piece first */
    size_t num_shared_docs; /* a shard's layout (shards.h): cut documents with pieces in other shards too */
    size_t *shared_offsets; /* num_shared_docs + 1: shared document j has slots shared_slots[shared_offsets[j] ..] */
    uint32_t *shared_slots; /* this shard's pieces of them */
    uint32_t *shared_row;   /* num_shared_docs: the row of each in the shards' exchange of their counts */
    const uint64_t *corpus_word_tokens; /* a shard's layout: each word's tokens in the whole layout (the
                               sparse draw's word lists have room by them, so a word is listed, and
                               drawn by the word side, in every shard as on one GPU), owned by
                               the sharded backend; NULL: the layout's own */
    uint32_t *warp_len;     /* num_warps: longest document of the warp */
    size_t *warp_offset;    /* num_warps + 1: first position of each warp */
    uint32_t *words;        /* num_positions: interleaved word ids */
} lda_layout;

/* Builds the layout of a corpus, cutting documents longer than piece_length tokens (0:
 * none); NULL on failure (out of memory, or a corpus too large for 32-bit document and token
 * counts per document). */
lda_layout *lda_layout_build(const corpus *c, uint32_t piece_length, lda_error *err);
void lda_layout_free(lda_layout *L);

/* A layout of corpus c whose documents take the slots their namesakes take in `like`:
 * document d of c sits where the first piece of document d of like's corpus sits, whole
 * (its other pieces' slots stay empty; c and like's corpus must have the same number of
 * documents; lengths may differ, empty documents are allowed). Used to score the held-out
 * halves of documents against θ estimated on their first halves: every piece of a document
 * has the same θ row. */
lda_layout *lda_layout_build_like(const corpus *c, const lda_layout *like, lda_error *err);

/* The counts of every cut document brought together in its pieces' rows of n (num_slots × K):
 * each row of a piece of cut document c becomes Σ over its pieces p of (n_p − base_c) + base_c,
 * the counts of the document's tokens, and base_c (num_cut_docs × K, may be NULL) becomes
 * that too. With base NULL (or all zero) each piece's row must hold the counts of its own
 * tokens (a recount); otherwise the rows are the base moved by each piece's own changes (a
 * z pass). Integer arithmetic modulo 2^32, so the order of the additions does not matter. */
void lda_layout_join_cut_counts(const lda_layout *L, uint32_t K, uint32_t *n, uint32_t *base);

/* Rows of n (num_slots × K) over groups of slots, group j being slots[offsets[j] ..
 * offsets[j + 1]) (a document's pieces): lda_layout_add_rows adds each group's rows into row
 * rows[j] of `to`; lda_layout_give_rows sets each group's rows to row rows[j] of `from`. Integer
 * arithmetic modulo 2^32. (A shard's shared documents, shards.h; a streamed chunk's cut
 * documents, stream_plan.h.) */
void lda_layout_add_rows(uint32_t K, const uint32_t *n, size_t groups, const uint32_t *rows, const size_t *offsets,
                         const uint32_t *slots, uint32_t *to);
void lda_layout_give_rows(uint32_t K, uint32_t *n, size_t groups, const uint32_t *rows, const size_t *offsets,
                          const uint32_t *slots, const uint32_t *from);

/* "D documents (C cut into P pieces of at most N tokens), G groups of 32, the longest R
 * rows, padding X%": the shape that decides how evenly the work spreads. */
const char *lda_layout_describe(const lda_layout *L, char *buf, size_t size);

/* The corpus's index of the layout's token r (slot_token_base[s] + i is token i of slot s). */
static inline size_t lda_layout_corpus_token(const lda_layout *L, size_t r)
{
    return L->token_shift ? (size_t)((int64_t)r + L->token_shift[r]) : r;
}

/* z at layout positions into corpus order (z[i] for the corpus's token i), and back. */
void lda_layout_z_to_corpus_order(const lda_layout *L, const uint32_t *z_positions, uint32_t *z);
void lda_layout_z_to_positions(const lda_layout *L, const uint32_t *z, uint32_t *z_positions);

/* --refresh: part `part` of `parts` is the warps q of the WHOLE layout with q mod parts = part
 * (params.h). In a shard's layout, whose warp 0 is the whole layout's first_warp, those are
 * its own warps q with q mod parts = the part this returns: the backends draw it, so a shard
 * draws exactly the tokens the one-device run draws in that part. */
static inline uint32_t lda_layout_local_part(const lda_layout *L, uint32_t part, uint32_t parts)
{
    return parts ? (uint32_t)((part + parts - L->first_warp % parts) % parts) : part;
}

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

/* n[w,k] is 32-bit: -1 with err (bad input) when a word of offsets[V + 1] (word w's tokens are
 * offsets[w] .. offsets[w + 1]) has more than 2^32 - 1 tokens. lda_word_index_build checks. */
int lda_word_tokens_check(const size_t *offsets, uint32_t vocab_size, lda_error *err);
void lda_word_index_free(lda_word_index *wi);

#ifdef __cplusplus
}
#endif

#endif
