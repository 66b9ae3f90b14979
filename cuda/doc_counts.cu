// doc_counts.cu — the sparse draw's document–topic counts, kept as lists (count_lists.cuh)
// instead of a dense n[m,k]: counted from z, joined across a cut document's pieces after a
// pass, and formed into windows of dense rows for those who read rows (θ, the joint
// log-likelihood, the priors' histograms, fetch). Each works a window of rows at a time, so
// no D × K array is ever held; a warp a row.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "check.cuh"
#include "device_state.cuh"
#include "join_block.cuh"

#define DOC_WARPS 8u // warps a block

static unsigned rows_grid(size_t rows)
{
    return (unsigned)((rows + DOC_WARPS - 1) / DOC_WARPS);
}

__global__ void lists_from_rows_kernel(const uint32_t *rows, size_t first, size_t count, uint32_t K, count_lists l)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i < count) // the whole warp
        count_list_from_row(rows + i * K, K, l, first + i, threadIdx.x % LDA_WARP);
}

__global__ void rows_from_lists_kernel(count_lists l, size_t first, size_t count, uint32_t K, uint32_t *rows)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i < count)
        count_list_to_row(l, first + i, K, rows + i * K, threadIdx.x % LDA_WARP);
}

int cuda_lists_from_rows(const count_lists &l, const uint32_t *rows, size_t first, size_t count, uint32_t K,
                         cudaStream_t stream, lda_error *err)
{
    if (count == 0)
        return 0;
    lists_from_rows_kernel<<<rows_grid(count), DOC_WARPS * LDA_WARP, 0, stream>>>(rows, first, count, K, l);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int cuda_rows_from_lists(const count_lists &l, size_t first, size_t count, uint32_t K, uint32_t *rows,
                         cudaStream_t stream, lda_error *err)
{
    if (count == 0)
        return 0;
    rows_from_lists_kernel<<<rows_grid(count), DOC_WARPS * LDA_WARP, 0, stream>>>(l, first, count, K, rows);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

size_t cuda_doc_rows_at_once(const device_state &s)
{
    return counts_are_lists(s) ? s.doc_window_slots : s.num_slots;
}

int cuda_doc_rows(const device_state &s, size_t first, size_t count, const uint32_t **rows, lda_error *err)
{
    if (!counts_are_lists(s)) {
        *rows = s.n_mk + first * s.K;
        return 0;
    }
    if (count > s.doc_window_slots) {
        lda_error_fail(err, "internal error: %zu rows of n[m,k] asked for at once, room for %zu", count,
                       s.doc_window_slots);
        return -1;
    }
    *rows = s.doc_window;
    return cuda_rows_from_lists(sparse_count_lists(s.sparse), first, count, s.K, s.doc_window, s.stream, err);
}

// The tally of z over slots first .. first + count - 1 into their (zeroed) rows: a warp a
// slot, its lanes over the tokens.
__global__ void tally_slots_kernel(const uint32_t *z, const size_t *warp_offset, const uint32_t *slot_len,
                                   size_t first, size_t count, uint32_t K, uint32_t *rows)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i >= count)
        return;
    const size_t s = first + i, q = s / LDA_WARP, r = s % LDA_WARP;
    const uint32_t len = slot_len[s];
    for (uint32_t t = threadIdx.x % LDA_WARP; t < len; t += LDA_WARP)
        atomicAdd(&rows[i * K + z[warp_offset[q] + (size_t)t * LDA_WARP + r]], 1u);
}

int cuda_count_doc_lists(const device_state &s, lda_error *err)
{
    const size_t step = s.doc_window_slots;
    for (size_t first = 0; first < s.num_slots; first += step) {
        const size_t n = s.num_slots - first < step ? s.num_slots - first : step;
        CUDA_TRY(cudaMemsetAsync(s.doc_window, 0, n * s.K * sizeof *s.doc_window, s.stream));
        tally_slots_kernel<<<rows_grid(n), DOC_WARPS * LDA_WARP, 0, s.stream>>>(s.z, s.warp_offset, s.slot_len,
                                                                              first, n, s.K, s.doc_window);
        LAUNCH_TRY();
        if (cuda_lists_from_rows(sparse_count_lists(s.sparse), s.doc_window, first, n, s.K, s.stream, err))
            return -1;
    }
    return 0;
fail:
    return -1;
}

// Joining the cut documents' pieces (lda_layout_join_cut_counts is the CPU's reference): a
// document's new list is Σ over its P pieces' lists − (P − 1) × its list when the pass began
// (modulo 2^32; from_scratch: the pieces' lists hold their own tokens, and that list is not
// read), which becomes its list and every piece's. A block a document (join_block.cuh), block b
// taking documents b, b + grid, ...; each block stages its new lists in its 2K words of the window
// of rows, which nothing else reads meanwhile.
struct cut_join_items {
    const size_t *cut_offsets;
    const uint32_t *cut_slots;
    size_t c, first;
    uint32_t pieces;
    bool from_scratch;
    count_lists slots, cut;
    __device__ bool operator()(uint32_t i, count_lists *l, size_t *r, uint32_t *times) const
    {
        if (i < pieces) {
            *l = slots;
            *r = cut_slots[first + i];
            *times = 1u;
            return true;
        }
        *l = cut;
        *r = c;
        *times = 1u - pieces; // modulo 2^32
        return !from_scratch;
    }
};

__global__ void __launch_bounds__(JOIN_BLOCK_WARPS * LDA_WARP)
    join_cut_kernel(const size_t *cut_offsets, const uint32_t *cut_slots, size_t docs, uint32_t K, bool from_scratch,
                    count_lists slots, count_lists cut, uint32_t *stage)
{
    join_row row = join_row_begin(K);
    const uint32_t warp = threadIdx.x / LDA_WARP, lane = threadIdx.x % LDA_WARP;
    uint32_t *stage_topics = stage + (size_t)blockIdx.x * 2 * K, *stage_counts = stage_topics + K;
    for (size_t c = blockIdx.x; c < docs; c += gridDim.x) {
        const size_t first = cut_offsets[c];
        const uint32_t pieces = (uint32_t)(cut_offsets[c + 1] - first);
        const cut_join_items items = {cut_offsets, cut_slots, c, first, pieces, from_scratch, slots, cut};
        const uint32_t m = join_block_list(row, K, pieces + 1, items, stage_topics, stage_counts);
        for (uint32_t i = warp; i <= pieces; i += JOIN_BLOCK_WARPS) // the list to every piece, and kept
            join_give(stage_topics, stage_counts, m, i < pieces ? slots : cut, i < pieces ? cut_slots[first + i] : c,
                      lane);
        __syncthreads(); // the stage given before the next document's is written
    }
}

int cuda_join_cut_lists(const device_state &s, bool from_scratch, lda_error *err)
{
    unsigned grid = 0;
    if (s.num_cut_docs == 0)
        return 0;
    if (join_block_grid(join_cut_kernel, s.K, s.num_cut_docs, s.doc_window_slots * s.K, &grid, err))
        return -1;
    join_cut_kernel<<<grid, JOIN_BLOCK_WARPS * LDA_WARP, join_block_shared_bytes(s.K), s.stream>>>(
        s.cut_offsets, s.cut_slots, s.num_cut_docs, s.K, from_scratch, sparse_count_lists(s.sparse), s.cut_lists,
        s.doc_window);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}
