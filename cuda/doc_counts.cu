// doc_counts.cu — the sparse draw's document–topic counts, kept as lists (count_lists.cuh)
// instead of a dense n[m,k]: counted from z, joined across a cut document's pieces after a
// pass, and formed into windows of dense rows for those who read rows (θ, the joint
// log-likelihood, the priors' histograms, fetch). Each works a window of rows at a time, so
// no D × K array is ever held; a warp a row.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "check.cuh"
#include "device_state.cuh"

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
// document's row (a window row) becomes Σ over its P pieces of their lists − (P − 1) × its list
// when the pass began (modulo 2^32; from_scratch: the pieces' lists hold their own tokens, and
// that list is not read), which becomes its list and every piece's. In four steps, so that a
// document of a hundred pieces is not one warp's work: its row started (a warp a document),
// the pieces added (a warp a piece), the list formed (a warp a document), the pieces given it
// (a warp a piece). (One warp a document for all four took wikimix's updates from 0.18 to
// 2.0 ms an iteration at K = 1024 on the H100.)
__global__ void join_start_kernel(const size_t *cut_offsets, size_t first, size_t count, uint32_t K, bool from_scratch,
                                  count_lists cut, uint32_t *rows)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i >= count)
        return;
    const uint32_t lane = threadIdx.x % LDA_WARP;
    const size_t c = first + i;
    uint32_t *row = rows + i * K;
    for (uint32_t k = lane; k < K; k += LDA_WARP)
        row[k] = 0;
    if (from_scratch)
        return;
    __syncwarp(); // the zeros before the list's entries
    const uint32_t times = 1u - (uint32_t)(cut_offsets[c + 1] - cut_offsets[c]); // −(P − 1), modulo 2^32
    const uint64_t at = cut.offset[c];
    for (uint32_t j = lane; j < cut.len[c]; j += LDA_WARP)
        row[cut.topics[at + j]] = times * cut.counts[at + j];
}

// The cut document, of first .. first + count - 1, whose pieces include cut_slots[p].
__device__ __forceinline__ size_t cut_doc_of(const size_t *cut_offsets, size_t first, size_t count, size_t p)
{
    size_t lo = first, hi = first + count; // cut_offsets[lo] <= p < cut_offsets[hi]
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (cut_offsets[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__global__ void join_add_kernel(const size_t *cut_offsets, const uint32_t *cut_slots, size_t first, size_t count,
                                size_t p0, size_t pieces, uint32_t K, count_lists slots, uint32_t *rows)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i >= pieces)
        return;
    const size_t p = p0 + i, c = cut_doc_of(cut_offsets, first, count, p);
    const uint32_t s = cut_slots[p];
    const uint64_t at = slots.offset[s];
    uint32_t *row = rows + (c - first) * K;
    for (uint32_t j = threadIdx.x % LDA_WARP; j < slots.len[s]; j += LDA_WARP)
        atomicAdd(&row[slots.topics[at + j]], slots.counts[at + j]); // the document's other pieces add too
}

__global__ void join_list_kernel(size_t first, size_t count, uint32_t K, count_lists cut, const uint32_t *rows)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i < count)
        count_list_from_row(rows + i * K, K, cut, first + i, threadIdx.x % LDA_WARP);
}

__global__ void join_give_kernel(const size_t *cut_offsets, const uint32_t *cut_slots, size_t first, size_t count,
                                 size_t p0, size_t pieces, count_lists slots, count_lists cut)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i >= pieces)
        return;
    const size_t p = p0 + i;
    count_list_copy(cut, cut_doc_of(cut_offsets, first, count, p), slots, cut_slots[p], threadIdx.x % LDA_WARP);
}

int cuda_join_cut_lists(const device_state &s, bool from_scratch, lda_error *err)
{
    const size_t step = s.doc_window_slots;
    const count_lists slots = sparse_count_lists(s.sparse);
    const unsigned threads = DOC_WARPS * LDA_WARP;
    for (size_t first = 0; first < s.num_cut_docs; first += step) {
        const size_t n = s.num_cut_docs - first < step ? s.num_cut_docs - first : step;
        const size_t p0 = s.cut_offsets_host[first], pieces = s.cut_offsets_host[first + n] - p0;
        join_start_kernel<<<rows_grid(n), threads, 0, s.stream>>>(s.cut_offsets, first, n, s.K, from_scratch,
                                                                  s.cut_lists, s.doc_window);
        LAUNCH_TRY();
        join_add_kernel<<<rows_grid(pieces), threads, 0, s.stream>>>(s.cut_offsets, s.cut_slots, first, n, p0, pieces,
                                                                     s.K, slots, s.doc_window);
        LAUNCH_TRY();
        join_list_kernel<<<rows_grid(n), threads, 0, s.stream>>>(first, n, s.K, s.cut_lists, s.doc_window);
        LAUNCH_TRY();
        join_give_kernel<<<rows_grid(pieces), threads, 0, s.stream>>>(s.cut_offsets, s.cut_slots, first, n, p0,
                                                                      pieces, slots, s.cut_lists);
        LAUNCH_TRY();
    }
    return 0;
fail:
    return -1;
}
