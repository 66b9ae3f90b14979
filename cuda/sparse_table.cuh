// sparse_table.cuh — the sparse draw's word tables (core/sparse_draw.h) on the GPU: for every
// word w the prefix sums of α_k φ[w,k] at the end of each block of LDA_SPARSE_BLOCK topics,
// to the bit the CPU's (lda_sparse_table_row_*, backend/sampler_sparse.c).
//
// The CPU adds left to right, one rounded product and one rounded sum a topic, so every block
// end depends on every topic before it: no two topics' additions may be reassociated, and a
// warp scan over a word's topics cannot give the same bits. What can be parallel is the reading:
// a warp takes 32 words, reads a tile of 32 topics of each (its lanes over the topics: one
// 128-byte line a word, coalesced), puts the tile through shared memory, and each lane then
// runs its own word's additions over the tile in order. (One thread a word reading its own row
// took φ's lines 32 apart.) Measured on the H100 against that kernel, in one run: wiki43k at
// K = 10,000, collapsed, 9.52 ms an iteration against 9.66 (z with the tables: 5.29 against
// 5.41 ms); at K = 1024, 3.12 against 3.23 ms. A two-level table (the CPU's too: the blocks'
// sums formed side by side, then added in order; a warp a word) was tried and measured no
// faster: 7.46 ms an iteration against 7.31 at K = 10,000, 3.29 against 3.14 at 1024.
#ifndef LDA_SPARSE_TABLE_CUH
#define LDA_SPARSE_TABLE_CUH

#include <stdint.h>

#include "check.cuh"
#include "core/phi_mean.h"
#include "core/sparse_draw.h"
#include "warp.cuh"
#include "zsample.cuh"

#define SPARSE_TABLE_WARPS 4u // warps a block: 17 KiB of tiles

__device__ __forceinline__ float sparse_mul(float a, float b)
{
    return lda_sparse_mul_float(a, b);
}
__device__ __forceinline__ double sparse_mul(double a, double b)
{
    return lda_sparse_mul_double(a, b);
}
__device__ __forceinline__ float sparse_add(float a, float b)
{
    return lda_sparse_add_float(a, b);
}
__device__ __forceinline__ double sparse_add(double a, double b)
{
    return lda_sparse_add_double(a, b);
}

// φ[w,k] for the sparse draw: read, or formed from the counts (FROM_COUNTS: t.n_wk's, with the
// scale s_k given), the same bits as the φ the mean's kernel writes.
template <bool FROM_COUNTS> struct phi_source {
    const float *__restrict__ phi;
    const uint32_t *__restrict__ n_wk;
    const float *__restrict__ scale;
    float beta;
    __device__ __forceinline__ float row_at(size_t row, uint32_t k, float scale_k) const
    {
        return FROM_COUNTS ? lda_phi_mean_value(n_wk[row + k], beta, scale_k) : phi[row + k];
    }
    __device__ __forceinline__ float scale_of(uint32_t k) const
    {
        return FROM_COUNTS ? scale[k] : 0.0f;
    }
    __device__ __forceinline__ float at(size_t row, uint32_t k) const
    {
        return row_at(row, k, scale_of(k));
    }
};

// Warp g builds the tables of words 32g .. 32g + 31; lane i's word is 32g + i.
template <typename REAL, bool FROM_COUNTS>
__global__ void __launch_bounds__(SPARSE_TABLE_WARPS *LDA_WARP)
    sparse_table_kernel(const phi_source<FROM_COUNTS> phi, const float *__restrict__ alpha, uint32_t V, uint32_t K,
                        REAL *__restrict__ table)
{
    __shared__ float tiles[SPARSE_TABLE_WARPS][LDA_WARP][LDA_WARP + 1]; // +1: a lane's row, conflict-free
    __shared__ float alphas[SPARSE_TABLE_WARPS][LDA_WARP];
    const uint32_t lane = threadIdx.x % LDA_WARP, wib = threadIdx.x / LDA_WARP;
    const size_t w0 = ((size_t)blockIdx.x * SPARSE_TABLE_WARPS + wib) * LDA_WARP;
    if (w0 >= V)
        return; // the whole warp: the kernel synchronises warps only
    float(*tile)[LDA_WARP + 1] = tiles[wib];
    float *alpha_tile = alphas[wib];
    const uint32_t blocks = lda_sparse_blocks(K);
    const bool mine = w0 + lane < V;
    REAL *out = table + (w0 + lane) * blocks;
    REAL sum = 0;
    for (uint32_t k0 = 0; k0 < K; k0 += LDA_WARP) {
        const uint32_t k = k0 + lane;
        if (k < K) { // lanes over the topics: row i of the tile is one line of word w0 + i
            alpha_tile[lane] = alpha[k];
            const float scale_k = phi.scale_of(k);
#pragma unroll
            for (uint32_t i = 0; i < LDA_WARP; i++)
                if (w0 + i < V)
                    tile[i][lane] = phi.row_at((w0 + i) * K, k, scale_k);
        }
        __syncwarp();
        if (mine) { // lane over its word: the CPU's additions, in its order
#pragma unroll
            for (uint32_t j = 0; j < LDA_WARP; j++) {
                const uint32_t kj = k0 + j;
                if (kj < K) {
                    sum = sparse_add(sum, sparse_mul((REAL)alpha_tile[j], (REAL)tile[lane][j]));
                    if (kj % LDA_SPARSE_BLOCK == LDA_SPARSE_BLOCK - 1 || kj == K - 1)
                        out[kj / LDA_SPARSE_BLOCK] = sum;
                }
            }
        }
        __syncwarp(); // the tile is read before the next is written
    }
}

template <bool FROM_COUNTS>
static inline void sparse_tables_launch(const zsample_sparse_tables &t, const phi_source<FROM_COUNTS> &phi,
                                        const float *alpha, uint32_t K, unsigned blocks, cudaStream_t stream)
{
    if (t.precision == LDA_PRECISION_DOUBLE)
        sparse_table_kernel<double, FROM_COUNTS>
            <<<blocks, SPARSE_TABLE_WARPS * LDA_WARP, 0, stream>>>(phi, alpha, t.V, K, (double *)t.table);
    else
        sparse_table_kernel<float, FROM_COUNTS>
            <<<blocks, SPARSE_TABLE_WARPS * LDA_WARP, 0, stream>>>(phi, alpha, t.V, K, (float *)t.table);
}

// Every word's table into t.table (its precision), from α and φ (read, or formed from t.n_wk);
// -1 with err on a launch failure.
static inline int sparse_tables_build(const zsample_sparse_tables &t, const float *phi, const float *alpha, uint32_t K,
                                      cudaStream_t stream, lda_error *err)
{
    const size_t warps = ((size_t)t.V + LDA_WARP - 1) / LDA_WARP;
    const unsigned blocks = (unsigned)((warps + SPARSE_TABLE_WARPS - 1) / SPARSE_TABLE_WARPS);
    if (blocks == 0)
        return 0;
    if (t.n_wk)
        sparse_tables_launch(t, phi_source<true>{NULL, t.n_wk, t.phi_scale, t.beta}, alpha, K, blocks, stream);
    else
        sparse_tables_launch(t, phi_source<false>{phi, NULL, NULL, 0.0f}, alpha, K, blocks, stream);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

#endif
