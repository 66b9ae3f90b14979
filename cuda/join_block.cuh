// join_block.cuh — a cut document's counts joined by one block in shared memory: the lists that
// make its new list (its pieces' lists, and lists of the pass's start times a factor) added
// into a row of topic counts and a bitmap of the topics they touch, the new list read off the
// bitmap in increasing topic order, and only the touched entries cleared. Nothing of size K
// passes through global memory, and one launch joins every document.
//
// It replaced windows of dense K-wide rows in global memory (each row zeroed, added into and
// scanned whole, four launches a window of 32 MiB): at 10^9 tokens and K = 10,000 on the H100,
// 501,268 cut documents made 603 windows and 2,412 launches an iteration, and 80 KB of row
// traffic a document where its lists hold a few hundred bytes.
//
// A document's new list is staged in global memory (the block's part of the stage) before it is
// given out: with K wider than JOIN_BLOCK_SPAN the topics are joined a span at a time, and the
// list being read (a cut document's list of the pass's start) may be the one written.
#ifndef LDA_JOIN_BLOCK_CUH
#define LDA_JOIN_BLOCK_CUH

#include <stdint.h>

#include "check.cuh"
#include "count_lists.cuh"
#include "warp.cuh"

#define JOIN_BLOCK_WARPS 8u
// Topics a pass of the join holds in shared memory: their counts and a bit each (46.4 KB, under
// the 48 KB a block has without asking). K = 10,000 takes one pass.
#define JOIN_BLOCK_SPAN 11264u

__host__ __device__ inline size_t join_block_shared_bytes(uint32_t K)
{
    const uint32_t span = K < JOIN_BLOCK_SPAN ? K : JOIN_BLOCK_SPAN;
    return (size_t)span * sizeof(uint32_t) + (span + 31) / 32 * sizeof(uint32_t);
}

// The block's row and bitmap over topics lo .. lo + span - 1, all zero between documents.
struct join_row {
    uint32_t *count, *bits;
    uint32_t lo, hi;
};

// The warp adds `times` × list r's entries in [lo, hi) (modulo 2^32) into the row.
__device__ __forceinline__ void join_row_add(const join_row &row, const count_lists &l, size_t r, uint32_t times,
                                             uint32_t lane)
{
    const uint64_t at = l.offset[r];
    const uint32_t m = l.len[r];
    for (uint32_t j = lane; j < m; j += LDA_WARP) {
        const uint32_t k = l.topics[at + j];
        if (k >= row.lo && k < row.hi) {
            const uint32_t i = k - row.lo;
            atomicAdd(&row.count[i], times * l.counts[at + j]);
            atomicOr(&row.bits[i / 32], 1u << (i % 32));
        }
    }
}

// The warp appends the row's non-zero counts, in increasing topic order, to the stage from
// entry `out` on, and clears what the adds touched; returns the new length (every lane).
__device__ __forceinline__ uint32_t join_row_take(const join_row &row, uint32_t *stage_topics, uint32_t *stage_counts,
                                                  uint32_t out, uint32_t lane)
{
    const uint32_t words = (row.hi - row.lo + 31) / 32;
    for (uint32_t w0 = 0; w0 < words; w0 += LDA_WARP) {
        const uint32_t w = w0 + lane;
        const uint32_t bits = w < words ? row.bits[w] : 0u;
        uint32_t n = 0;
        for (uint32_t x = bits; x; x &= x - 1)
            n += row.count[w * 32 + __ffs(x) - 1] != 0;
        uint32_t upto = n; // inclusive prefix sum over the lanes
        for (uint32_t o = 1; o < LDA_WARP; o <<= 1) {
            const uint32_t u = __shfl_up_sync(LDA_FULL_WARP, upto, o);
            if (lane >= o)
                upto += u;
        }
        uint32_t at = out + upto - n;
        for (uint32_t x = bits; x; x &= x - 1) {
            const uint32_t i = w * 32 + __ffs(x) - 1, c = row.count[i];
            if (c) {
                stage_topics[at] = row.lo + i;
                stage_counts[at] = c;
                at++;
            }
            row.count[i] = 0;
        }
        if (w < words)
            row.bits[w] = 0;
        out += __shfl_sync(LDA_FULL_WARP, upto, LDA_WARP - 1);
    }
    return out;
}

// The warp copies the staged list of m entries into list d of `to` (whose room holds it).
__device__ __forceinline__ void join_give(const uint32_t *stage_topics, const uint32_t *stage_counts, uint32_t m,
                                          const count_lists &to, size_t d, uint32_t lane)
{
    const uint64_t at = to.offset[d];
    for (uint32_t j = lane; j < m; j += LDA_WARP) {
        to.topics[at + j] = stage_topics[j];
        to.counts[at + j] = stage_counts[j];
    }
    if (lane == 0)
        to.len[d] = m;
}

// The block's shared row, zeroed once (the joins leave it zero).
__device__ __forceinline__ join_row join_row_begin(uint32_t K)
{
    extern __shared__ uint32_t join_shared[];
    const uint32_t span = K < JOIN_BLOCK_SPAN ? K : JOIN_BLOCK_SPAN;
    join_row row = {join_shared, join_shared + span, 0, 0};
    for (uint32_t i = threadIdx.x; i < span + (span + 31) / 32; i += blockDim.x)
        join_shared[i] = 0;
    __syncthreads();
    return row;
}

// The block's join of one document: items 0 .. items - 1 each a list and its factor
// (item(i, &list, &r, &times) says which; false: none), added span by span, the new list
// staged; returns its length (every thread). The block's threads all call it.
template <typename ITEM>
__device__ __forceinline__ uint32_t join_block_list(join_row &row, uint32_t K, uint32_t items, const ITEM &item,
                                                    uint32_t *stage_topics, uint32_t *stage_counts)
{
    __shared__ uint32_t staged;
    const uint32_t warp = threadIdx.x / LDA_WARP, lane = threadIdx.x % LDA_WARP;
    uint32_t out = 0;
    for (row.lo = 0; row.lo < K; row.lo += JOIN_BLOCK_SPAN) {
        row.hi = K - row.lo < JOIN_BLOCK_SPAN ? K : row.lo + JOIN_BLOCK_SPAN;
        for (uint32_t i = warp; i < items; i += blockDim.x / LDA_WARP) {
            count_lists l;
            size_t r;
            uint32_t times;
            if (item(i, &l, &r, &times))
                join_row_add(row, l, r, times, lane);
        }
        __syncthreads(); // every add before the take
        if (warp == 0)
            out = join_row_take(row, stage_topics, stage_counts, out, lane);
        __syncthreads(); // the row cleared before the next span's adds
    }
    if (threadIdx.x == 0)
        staged = out;
    __syncthreads();
    const uint32_t m = staged;
    __syncthreads(); // read before the next document's join sets it
    return m;
}

// The launch of a join kernel: a block a document up to what runs at once and what the stage
// holds (stage_words words of it: 2K a block).
template <typename KERNEL>
int join_block_grid(KERNEL kernel, uint32_t K, size_t docs, size_t stage_words, unsigned *grid, lda_error *err)
{
    int device = 0, sms = 0, per_sm = 0;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, JOIN_BLOCK_WARPS * LDA_WARP,
                                                           join_block_shared_bytes(K)));
    {
        size_t n = (size_t)sms * (size_t)per_sm;
        if (n > stage_words / (2 * (size_t)K))
            n = stage_words / (2 * (size_t)K);
        if (n > docs)
            n = docs;
        if (n == 0) {
            lda_error_fail(err, "internal error: no room to join the cut documents' counts at K = %u", K);
            return -1;
        }
        *grid = (unsigned)n;
    }
    return 0;
fail:
    return -1;
}

#endif
