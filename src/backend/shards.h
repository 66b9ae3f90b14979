/* shards.h — the documents of one layout split over several devices (--gpus N).
 *
 * The layout is built once, for the whole corpus (layout.h), and shard g takes a contiguous
 * range of its warps. Whole warps of the one global layout, not a layout of each shard's
 * sub-corpus, because then every slot keeps what makes its random numbers and its scan order
 * those of the one-device run: its corpus-order token base, its document id, and its warp's
 * place in the --refresh parts (warps q with q mod R = c of the WHOLE layout; a contiguous
 * range starting at warp f sees them as its own warps q' with (f + q') mod R = c, which is a
 * rotation of the part index: lda_layout_local_part). Contiguous ranges also keep θ, n[m,k]
 * and z of the whole layout a concatenation of the shards' (fetching needs no permutation).
 *
 * A cut document's pieces may fall into different shards: they are sorted with everything else
 * (a document of 1,025 tokens cut at 512 has pieces of 342 and 341 tokens, between which other
 * documents' pieces of 342 and 341 sort), and documents of near-equal lengths chain such spans
 * over the whole cut region, so keeping every document in one shard would leave the shards
 * unbalanced (measured: 2000 documents cut at 40 tokens split 265,276 / 6,923). Such a
 * document's rows of n[m,k] are joined through the all-reduce instead: each shard adds up its
 * pieces' rows (mod 2^32, as lda_layout_join_cut_counts), the sums are summed over the shards,
 * and every piece takes the total (the shard's layout lists them: shared_*).
 *
 * Balance: the boundaries are the warp boundaries nearest to the token targets T·g/N (ties: the
 * earlier), so each shard holds T/N tokens within ± B + 1, B being the tokens of the largest
 * warp. N larger than the warps leaves shards empty (no warps). */
#ifndef LDA_SHARDS_H
#define LDA_SHARDS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t first_warp, end_warp; /* warps first_warp .. end_warp - 1 of the whole layout */
    uint64_t tokens;             /* real tokens in them */
} lda_shard;

/* Splits L's warps into `count` contiguous shards (above), in order: out[0] starts at warp 0,
 * out[count - 1] ends at L->num_warps. */
int lda_shard_plan(const lda_layout *L, uint32_t count, lda_shard *out, lda_error *err);

/* The layout of warps first .. end - 1 of L, a layout of its own (lda_layout_free): its slots,
 * positions and cut documents numbered from 0, every slot's document id, token base and
 * lengths those of L, first_warp = L->first_warp + first, num_docs the documents whose first
 * piece it holds, doc_slot NULL. Its cut_* lists the cut documents wholly inside; shared_*
 * those with pieces inside and outside, shared_row[j] being L's number of the cut document
 * (which the caller may renumber: the row of its counts in the shards' exchange). */
lda_layout *lda_layout_warps(const lda_layout *L, size_t first, size_t end, lda_error *err);

/* The join of the shared documents, in two halves around the all-reduce: a shard's sums of its
 * pieces' rows of n (num_slots × K: each its own tokens' counts) into sums (rows × K, the
 * exchange; rows not its documents' are zero), and the totals back into every piece's row. */
void lda_shard_doc_sums(const lda_layout *S, uint32_t K, const uint32_t *n, size_t rows, uint32_t *sums);
void lda_shard_doc_spread(const lda_layout *S, uint32_t K, uint32_t *n, const uint32_t *totals);

/* Per device: with the documents split over N devices, each holds one shard's backend. The
 * fewest shards, from `from` up to LDA_MAX_SHARDS, whose every shard needs at most per_device
 * bytes by bytes_of (one device's backend for a shard's layout: the CUDA backend's plan), and
 * the largest shard's bytes then (largest_bytes may be NULL); *needed 0 when not even
 * LDA_MAX_SHARDS do. So a run too large for N devices is refused naming how many would hold it. */
typedef uint64_t (*lda_device_bytes_fn)(const lda_layout *shard, const lda_params *p);
int lda_shards_needed(const lda_layout *L, const lda_params *p, uint32_t from, uint64_t per_device,
                      lda_device_bytes_fn bytes_of, uint32_t *needed, uint64_t *largest_bytes, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
