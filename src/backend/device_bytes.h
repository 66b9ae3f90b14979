/* device_bytes.h — the device memory a CUDA run needs, array by array: the one function that
 * sizes the CUDA backend's state (cuda/backend_cuda.cu allocates what it lists and checks the
 * total against the GPU's free memory), in plain C so that the plan and its shares are known,
 * printed and tested without a GPU. `train` prints the shares on a GPU ("device memory: ..."). */
#ifndef LDA_DEVICE_BYTES_H
#define LDA_DEVICE_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "backend/zplan.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run of at most LDA_JOIN_CHUNK pieces of cut document `doc`: cut_slots[first .. first + count)
 * (the dense counts' join, cuda/updates.cu). */
#define LDA_JOIN_CHUNK 16u
struct cut_chunk {
    uint32_t doc, first, count;
};

#define LDA_DEVICE_BYTES_MAX_ROWS 32

typedef struct {
    const char *name; /* what the array holds: "words", "z", "lists of cut documents' pieces", ... */
    uint64_t bytes;
} lda_device_bytes_row;

/* The arrays of a run in the order they are sized; only those of more than 0 bytes. */
typedef struct {
    lda_device_bytes_row rows[LDA_DEVICE_BYTES_MAX_ROWS];
    size_t count;
    uint64_t total; /* the sum of the rows: what the run needs */
} lda_device_bytes;

/* The device memory a run of layout L with params p and the z plan needs, array by array. */
void lda_device_bytes_plan(const lda_layout *L, const lda_params *p, const lda_zplan *plan, lda_device_bytes *out);

/* The part of that plan each warp of L brings: per_warp[q] (num_warps entries) the bytes that grow
 * with warp q's slots, positions and pieces (θ and n[m,k] rows, words and z, lists; a cut
 * document's own arrays in its first piece's warp); returns the rest (the V × K arrays, windows,
 * rounding), so that the rest and the warps' parts add up to the plan's total exactly. A range
 * of warps then needs about the rest plus its warps' parts (shards.h splits by that). */
uint64_t lda_device_bytes_warps(const lda_layout *L, const lda_params *p, const lda_zplan *plan, uint64_t *per_warp);

/* "52.56 GiB, 56.4 B a token: lists of cut documents' pieces 20.10 GiB (21.6 B); ...": the
 * total, then at most `most` rows, largest first, each with its bytes a token; the others, and
 * rows under 0.5% of the total, are summed as "the rest". */
void lda_device_bytes_describe(const lda_device_bytes *b, uint64_t tokens, size_t most, char *buf, size_t size);

/* Rows of θ or of n[m,k] formed at a time where the run keeps no dense D × K array (about 32 MiB,
 * whole warps). */
size_t lda_device_window_slots(size_t num_slots, uint32_t K);

/* The room of the sparse draw's cut documents' lists (cut document c: min(K, its tokens)), as
 * offsets (num_cut_docs + 1, malloc'ed; NULL when out of memory), and their total. */
uint64_t *lda_cut_list_offsets(const lda_layout *L, uint32_t K);
uint64_t lda_cut_list_entries(const lda_layout *L, uint32_t K);

/* Blocks of partial sums the log-likelihood kernels need (cuda/eval.cu). */
size_t lda_eval_partials(size_t num_warps, size_t num_slots, uint32_t V);

#ifdef __cplusplus
}
#endif

#endif
