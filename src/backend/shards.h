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
 * Balance, by tokens: the boundaries are the warp boundaries nearest to the token targets T·g/N
 * (ties: the earlier), so each shard holds T/N tokens within ± B + 1, B being the tokens of the
 * largest warp. N larger than the warps leaves shards empty (no warps). The work of a shard
 * follows its tokens, so this is the split wherever the shards fit their devices.
 *
 * Balance, by memory: the documents are sorted longest first, so the token split gives the first
 * shards few long documents and the last many short ones; where the device holds a row a
 * document (dense θ, dense n[m,k]) the last shard needs far more memory than the first (measured:
 * 103.7 GB against 52.6 GB). Where that makes a shard too large for its device, the boundaries are
 * chosen instead so that the largest shard's device bytes (device_bytes.c's sizing) are as small
 * as they can be: the sizing's part of each warp (lda_device_bytes_warps) and the rest every
 * shard holds, the smallest bound on a shard's bytes a greedy cut meets with N shards (a binary
 * search), then the same greedy cut, each shard as long as the bound allows but leaving a warp
 * for each shard after it. Either way the shards are contiguous ranges of whole warps, so the
 * model is the one-device model, byte for byte. lda_shard_choose decides which. */
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
    uint64_t bytes;              /* the device bytes of its backend (lda_shard_choose's sizing); 0: not sized */
} lda_shard;

/* Splits L's warps into `count` contiguous shards by tokens (above), in order: out[0] starts at
 * warp 0, out[count - 1] ends at L->num_warps. */
int lda_shard_plan(const lda_layout *L, uint32_t count, lda_shard *out, lda_error *err);

/* The same split by memory (above): a shard of warps f .. e - 1 weighs rest + per_warp[f] + ...
 * + per_warp[e - 1] (lda_device_bytes_warps), and the largest shard weighs as little as any
 * contiguous split of `count` can. Every shard has a warp where there are as many warps. */
int lda_shard_plan_bytes(const lda_layout *L, const uint64_t *per_warp, uint64_t rest, uint32_t count,
                         lda_shard *out, lda_error *err);

/* The device memory of the shards' backends: a shard's bytes by its layout (the CUDA backend's
 * plan, lda_cuda_state_bytes), and the part of them each warp of a layout brings with the rest
 * returned (lda_device_bytes_warps' contract); either UINT64_MAX where it cannot be known. */
typedef uint64_t (*lda_device_bytes_fn)(const lda_layout *shard, const lda_params *p);
typedef uint64_t (*lda_warp_bytes_fn)(const lda_layout *L, const lda_params *p, uint64_t *per_warp);
typedef struct {
    lda_device_bytes_fn bytes;
    lda_warp_bytes_fn warp_bytes;
    const lda_params *params; /* a shard's (shards > 1: its own counts apart) */
    uint64_t per_device;      /* what a device has for its shard; 0: memory binds, whatever the split */
} lda_shard_memory;

typedef enum { LDA_SHARDS_BY_TOKENS, LDA_SHARDS_BY_MEMORY } lda_shard_balance;

typedef struct {
    lda_shard_balance balance;
    uint64_t token_largest; /* the token split's largest shard, in bytes (0: not sized) */
} lda_shard_choice;

/* The split a run uses, decided here only: by tokens, where no memory is given (m NULL: the CPU,
 * whose shards are a test) or every shard of the token split fits m->per_device; else by memory,
 * where that makes the largest shard smaller. out[g].bytes is shard g's bytes by m (0 without). */
int lda_shard_choose(const lda_layout *L, uint32_t count, const lda_shard_memory *m, lda_shard *out,
                     lda_shard_choice *choice, lda_error *err);

/* "by memory (by tokens the largest shard would need 98.1 GiB, 79.0 GiB fit a GPU): 0: 1200 tokens,
 * 51.0 GiB; 1: ...": the split chosen, and each shard's tokens and (where sized) bytes. */
void lda_shard_describe(const lda_shard *shards, uint32_t count, const lda_shard_choice *choice, uint64_t per_device,
                        char *buf, size_t size);

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
 * fewest shards, from `from` up to LDA_MAX_SHARDS, whose every shard needs at most m->per_device
 * bytes, split as lda_shard_choose splits them (so by memory where memory binds), and the largest
 * shard's bytes then (largest_bytes may be NULL); *needed 0 when not even LDA_MAX_SHARDS do. So a
 * run too large for N devices is refused naming how many would hold it. */
int lda_shards_needed(const lda_layout *L, uint32_t from, const lda_shard_memory *m, uint32_t *needed,
                      uint64_t *largest_bytes, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
