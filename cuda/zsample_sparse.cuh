// zsample_sparse.cuh — the sparse z draw (--sampler sparse, θ collapsed) on the GPU: the
// split of core/sparse_draw.h (the CPU's draw, its reference), one warp a document. It
// searches every word's table of block-end prefix sums of α_k φ[w,k], built before it
// (sparse_table.cuh: the CPU's additions, so the tables are the CPU's to the bit).
//
// A document keeps its list of topics in global memory (zsample_sparse_tables: a slot's
// capacity, lda_sparse_list_capacity, is bounded by its tokens, so the lists grow with the
// corpus, not with D × K) beside its row of n[m,k], which its warp alone writes.
#ifndef LDA_ZSAMPLE_SPARSE_CUH
#define LDA_ZSAMPLE_SPARSE_CUH

#include "core/sparse_draw.h"
#include "real.cuh"
#include "warp.cuh"
#include "zsample.cuh"

__device__ __forceinline__ float below_real(float x)
{
    return lda_below_float(x);
}
__device__ __forceinline__ double below_real(double x)
{
    return lda_below_double(x);
}

// The inclusive prefix sum of v over the warp's lanes (Hillis–Steele with up-shuffles: the
// same additions in every run).
template <typename REAL> __device__ __forceinline__ REAL warp_inclusive_sum(REAL v, uint32_t lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        const REAL u = __shfl_up_sync(LDA_FULL_WARP, v, o);
        if (lane >= (uint32_t)o)
            v += u;
    }
    return v;
}

// One warp a document: warp w of a launch draws slot (w % 32) of the part's (w / 32)-th
// document group, its lanes sharing the work of each token. Its list is the row's non-zero
// topics, increasing (the CPU's list: a whole document's row is the tally of its z); each
// token's document part is a warp prefix sum over the list, 32 topics at a time, and the
// word part a ballot over the block ends, then a prefix sum of the 16 topics of the block.
// The sums are associated differently from the CPU's left-to-right ones, so the topics are
// the CPU's exactly where the sums are exact (integer weights), as for the other kernels;
// lane 0 alone writes the counts, z and the list, each token's writes ordered before the
// next token's reads by __syncwarp.
template <typename REAL> __global__ void zsample_sparse_kernel(const zsample_args a, const zsample_sparse_tables t)
{
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / LDA_WARP;
    const uint32_t lane = threadIdx.x % LDA_WARP;
    const size_t q = (warp / LDA_WARP) * a.part_count + a.part;
    if (q >= a.num_warps)
        return;
    const uint32_t r = (uint32_t)(warp % LDA_WARP);
    const size_t s = q * LDA_WARP + r;
    const uint32_t len = a.slot_len[s], K = a.K, blocks = lda_sparse_blocks(K);
    if (len == 0)
        return;
    uint32_t *n = a.n_mk + s * K, *topics = t.lists + t.list_offset[s];
    const REAL *table = (const REAL *)t.table;
    const uint32_t below = (1u << lane) - 1u;
    uint32_t m = 0;
    for (uint32_t k0 = 0; k0 < K; k0 += LDA_WARP) {
        const uint32_t k = k0 + lane;
        const bool has = k < K && n[k] != 0;
        const uint32_t mask = __ballot_sync(LDA_FULL_WARP, has);
        if (has)
            topics[m + __popc(mask & below)] = k;
        m += __popc(mask);
    }
    __syncwarp();
    const size_t base = a.warp_offset[q] + r;
    for (uint32_t i = 0; i < len; i++) {
        const size_t pos = base + (size_t)i * LDA_WARP;
        const uint32_t w = a.words[pos];
        if (lane == 0)
            n[a.z[pos]]--;
        __syncwarp();
        const float *ph = a.phi + (size_t)w * K;
        const REAL *block_end = table + (size_t)w * blocks;
        REAL sparse = 0;
        for (uint32_t j0 = 0; j0 < m; j0 += LDA_WARP) {
            const uint32_t j = j0 + lane, k = j < m ? topics[j] : 0;
            const REAL v = warp_inclusive_sum(j < m ? (REAL)n[k] * (REAL)ph[k] : (REAL)0, lane);
            sparse += __shfl_sync(LDA_FULL_WARP, v, 31);
        }
        const REAL dense = block_end[blocks - 1];
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, a.slot_token_base[s] + i);
        const REAL target = scaled_target(sparse + dense, uniform_from_bits<REAL>(bits));
        uint32_t topic = 0;
        if (target < sparse) { // the same sums again, to the first beyond the target
            REAL carry = 0;
            for (uint32_t j0 = 0; j0 < m; j0 += LDA_WARP) {
                const uint32_t j = j0 + lane, k = j < m ? topics[j] : 0;
                const REAL v = carry + warp_inclusive_sum(j < m ? (REAL)n[k] * (REAL)ph[k] : (REAL)0, lane);
                const uint32_t hit = __ballot_sync(LDA_FULL_WARP, j < m && target < v);
                if (hit) {
                    topic = __shfl_sync(LDA_FULL_WARP, k, __ffs(hit) - 1);
                    break;
                }
                carry = __shfl_sync(LDA_FULL_WARP, v, 31);
            }
        } else {
            REAL tw = target - sparse; // kept strictly below Q: rounding may reach it
            if (!(tw < dense))
                tw = below_real(dense);
            uint32_t b = blocks - 1;
            for (uint32_t b0 = 0; b0 < blocks; b0 += LDA_WARP) {
                const uint32_t hit = __ballot_sync(LDA_FULL_WARP, b0 + lane < blocks && tw < block_end[b0 + lane]);
                if (hit) {
                    b = b0 + __ffs(hit) - 1;
                    break;
                }
            }
            const uint32_t k0 = b * LDA_SPARSE_BLOCK, k = k0 + lane;
            const bool in_block = lane < LDA_SPARSE_BLOCK && k < K;
            const REAL v = (b ? block_end[b - 1] : (REAL)0) +
                           warp_inclusive_sum(in_block ? (REAL)a.alpha[k] * (REAL)ph[k] : (REAL)0, lane);
            const uint32_t hit = __ballot_sync(LDA_FULL_WARP, in_block && tw < v);
            const uint32_t last = (K - k0 < LDA_SPARSE_BLOCK ? K - k0 : LDA_SPARSE_BLOCK) - 1;
            topic = k0 + (hit ? (uint32_t)__ffs(hit) - 1 : last);
        }
        if (lane == 0) {
            a.z[pos] = topic;
            m = lda_sparse_list_add(topics, m, n, topic);
            n[topic]++;
        }
        m = __shfl_sync(LDA_FULL_WARP, m, 0);
        __syncwarp();
    }
}

#endif
