// shard_counts.cu — the counts of the documents a shard shares with other shards (shards.h),
// in two halves around the all-reduce, as lda_shard_doc_sums and lda_shard_doc_spread do on
// the CPU.
//
// The CPU sums its pieces' rows of n[m,k] after a recount. On the GPU the rows are kept
// incrementally (a piece's row is its document's total, moved by the piece's own draws), so
// the shard's part is counted again from z instead: the same integers, and exact however the
// rows were kept. Shared documents are the few cut documents whose pieces straddle a shard
// boundary, so this touches a handful of pieces.
#include <cuda_runtime.h>

#include "check.cuh"
#include "device_state.cuh"

// A block a shared piece; its threads over the piece's tokens.
__global__ void shard_doc_sums_kernel(const uint32_t *shared_slot, const uint32_t *shared_row, size_t pieces,
                                      const size_t *warp_offset, const uint32_t *slot_len, const uint32_t *z,
                                      uint32_t K, uint32_t *own_docs)
{
    for (size_t i = blockIdx.x; i < pieces; i += gridDim.x) {
        const size_t s = shared_slot[i], q = s / 32, lane = s % 32;
        uint32_t *row = own_docs + (size_t)shared_row[i] * K;
        for (uint32_t t = threadIdx.x; t < slot_len[s]; t += blockDim.x)
            atomicAdd(&row[z[warp_offset[q] + (size_t)t * 32 + lane]], 1u);
    }
}

// A block a shared piece; its threads over the topics.
__global__ void shard_doc_spread_kernel(const uint32_t *shared_slot, const uint32_t *shared_row, size_t pieces,
                                        uint32_t K, const uint32_t *total_docs, uint32_t *n_mk)
{
    for (size_t i = blockIdx.x; i < pieces; i += gridDim.x)
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            n_mk[(size_t)shared_slot[i] * K + k] = total_docs[(size_t)shared_row[i] * K + k];
}

// The same into the pieces' lists (the sparse draw's n[m,k], count_lists.cuh): a warp a piece.
__global__ void shard_doc_spread_lists_kernel(const uint32_t *shared_slot, const uint32_t *shared_row, size_t pieces,
                                              uint32_t K, const uint32_t *total_docs, count_lists lists)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i < pieces)
        count_list_from_row(total_docs + (size_t)shared_row[i] * K, K, lists, shared_slot[i], threadIdx.x % LDA_WARP);
}

static unsigned pieces_grid(size_t pieces)
{
    return (unsigned)(pieces < 1024 ? pieces : 1024);
}

int cuda_shard_doc_sums(const device_state &s, lda_error *err)
{
    if (s.doc_rows == 0)
        return 0;
    CUDA_TRY(cudaMemsetAsync(s.own_docs, 0, s.doc_rows * s.K * sizeof(uint32_t), s.stream));
    if (s.num_shared_pieces) {
        shard_doc_sums_kernel<<<pieces_grid(s.num_shared_pieces), 256, 0, s.stream>>>(
            s.shared_slot, s.shared_row, s.num_shared_pieces, s.warp_offset, s.slot_len, s.z, s.K, s.own_docs);
        LAUNCH_TRY();
    }
    return 0;
fail:
    return -1;
}

int cuda_shard_doc_spread(const device_state &s, lda_error *err)
{
    if (s.num_shared_pieces == 0)
        return 0;
    if (counts_are_lists(s)) {
        shard_doc_spread_lists_kernel<<<(unsigned)((s.num_shared_pieces + 7) / 8), 8 * LDA_WARP, 0, s.stream>>>(
            s.shared_slot, s.shared_row, s.num_shared_pieces, s.K, s.total_docs, sparse_count_lists(s.sparse));
        LAUNCH_TRY();
        return 0;
    }
    shard_doc_spread_kernel<<<pieces_grid(s.num_shared_pieces), 256, 0, s.stream>>>(
        s.shared_slot, s.shared_row, s.num_shared_pieces, s.K, s.total_docs, s.n_mk);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}
