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
#include "word_lists.cuh"
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
// scale s_k given), the same bits as the φ the mean's kernel writes. AROUND_L1: the gathers are
// cached in L2 only (ld.global.cg), leaving L1 to the document's list, which the long lists'
// draw reads again at every run start. Measured on the H100 in one run (ms an iteration, wikimix):
// collapsed K = 1024 2.13 against 2.23, θ-collapsed K = 4096 7.75 against 8.42, 10,000 13.12
// against 13.66; the short lists' draw was slower with it (wiki43k K = 256 1.35 against 1.10), so
// only the long one takes it (results/sparse/ab-session12-h100.txt).
template <bool FROM_COUNTS, bool AROUND_L1 = false> struct phi_source {
    const float *__restrict__ phi;
    const uint32_t *__restrict__ n_wk;
    const float *__restrict__ scale;
    float beta;
    __device__ __forceinline__ float row_at(size_t row, uint32_t k, float scale_k) const
    {
        if (AROUND_L1)
            return FROM_COUNTS ? lda_phi_mean_value(__ldcg(n_wk + row + k), beta, scale_k) : __ldcg(phi + row + k);
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
    // φ[w,k] of the count n[w,k] = n (FROM_COUNTS): what at() forms from the count it reads.
    __device__ __forceinline__ float of_count(uint32_t n, uint32_t k) const
    {
        return lda_phi_mean_value(n, beta, scale[k]);
    }
};

// Warp g builds the tables of words 32g .. 32g + 31; lane i's word is 32g + i. LISTING (from the
// counts, where the plan has word lists): each lane also writes its word's list
// (word_lists.cuh) from a tile of the counts, as it adds up its word's topics in order, so the
// lists cost no other pass over V × K. The tile's loads are issued first, then one ballot a
// word of the tile, whose lane keeps it and later writes its word's entries from its set
// bits. Measured on the H100 (wikimix, K = 10,000, ms an iteration over the release's 6.10):
// a ballot and three shuffles a word, the entries written by the warp, +1.7 ms (the loads no
// longer ran ahead); each lane testing its word's 32 counts of the tile, +0.46 ms; the lists
// unread in both (results/sparse/ab-session10-h100.txt).
// Topic k's values of words w0 .. w0 + 31 (0 past V or K): their counts n[w,k], or φ[w,k]'s
// bits. Read-only in the kernel (__ldg): the loads may run ahead of the lists' stores.
template <bool FROM_COUNTS>
__device__ __forceinline__ void table_tile_load(const phi_source<FROM_COUNTS> &phi, uint32_t V, uint32_t K, size_t w0,
                                                uint32_t k, uint32_t (&out)[LDA_WARP])
{
#pragma unroll
    for (uint32_t i = 0; i < LDA_WARP; i++)
        out[i] = k < K && w0 + i < V ? (FROM_COUNTS ? __ldg(phi.n_wk + (w0 + i) * K + k)
                                                    : __float_as_uint(__ldg(phi.phi + (w0 + i) * K + k)))
                                     : 0u;
}

template <typename REAL, bool FROM_COUNTS, bool LISTING>
__global__ void __launch_bounds__(SPARSE_TABLE_WARPS *LDA_WARP)
    sparse_table_kernel(const phi_source<FROM_COUNTS> phi, const float *__restrict__ alpha, uint32_t V, uint32_t K,
                        REAL *__restrict__ table, const word_lists lists)
{
    __shared__ float tiles[SPARSE_TABLE_WARPS][LDA_WARP][LDA_WARP + 1]; // +1: a lane's row, conflict-free
    __shared__ uint32_t count_tiles[LISTING ? SPARSE_TABLE_WARPS : 1][LDA_WARP][LDA_WARP + 1];
    __shared__ float alphas[SPARSE_TABLE_WARPS][LDA_WARP];
    const uint32_t lane = threadIdx.x % LDA_WARP, wib = threadIdx.x / LDA_WARP;
    const size_t w0 = ((size_t)blockIdx.x * SPARSE_TABLE_WARPS + wib) * LDA_WARP;
    if (w0 >= V)
        return; // the whole warp: the kernel synchronises warps only
    float(*tile)[LDA_WARP + 1] = tiles[wib];
    uint32_t(*count_tile)[LDA_WARP + 1] = count_tiles[LISTING ? wib : 0];
    float *alpha_tile = alphas[wib];
    const uint32_t blocks = lda_sparse_blocks(K);
    const bool mine = w0 + lane < V;
    REAL *out = table + (w0 + lane) * blocks;
    REAL sum = 0;
    uint64_t list_at = 0; // LISTING: this lane's word's list, where it starts, its room, its length so far
    uint32_t room = 0, listed = 0;
    if (LISTING && mine) {
        list_at = lists.offset[w0 + lane];
        room = (uint32_t)(lists.offset[w0 + lane + 1] - list_at);
    }
    // The tile's 32 values (counts, or φ's bits), α_k and φ's scale s_k are loaded a tile ahead:
    // the next tile's loads are in flight while this one is added up. Measured on the H100 in
    // one run (collapsed, ms an iteration at K = 1024 / 4096 / 10,000): loaded as used, wiki43k
    // 1.70 / 3.01 / 4.48, wikimix 2.54 / 3.92 / 4.96; the values a tile ahead 1.57 / 2.51 / 3.07
    // and 2.40 / 3.65 / 4.30 (the kernel at K = 4096 on wikimix: 814 -> 557 us); two tiles ahead,
    // in two sets of registers taken in turn, no faster (577 us). What bounds it now is the grid:
    // V / 32 warps, 9.4 an SM for wikimix's 39,781 words (Nsight Compute: 14.7% occupancy, 44%
    // of DRAM bandwidth); α and s_k a tile ahead too took 557 to 536 us
    // (results/sparse/ab-session10-h100.txt).
    uint32_t next[LDA_WARP];
    table_tile_load(phi, V, K, w0, lane, next);
    float next_alpha = lane < K ? alpha[lane] : 0.0f, next_scale = lane < K ? phi.scale_of(lane) : 0.0f;
    for (uint32_t k0 = 0; k0 < K; k0 += LDA_WARP) {
        const uint32_t k = k0 + lane;
        uint32_t nonzero = 0; // LISTING: which topics of the tile this lane's word has a count of
        const float scale_k = next_scale;
        alpha_tile[lane] = next_alpha;
#pragma unroll
        for (uint32_t i = 0; i < LDA_WARP; i++) { // row i of the tile is one line of word w0 + i
            if (k < K && w0 + i < V) {
                if (LISTING)
                    count_tile[i][lane] = next[i];
                tile[i][lane] = FROM_COUNTS ? lda_phi_mean_value(next[i], phi.beta, scale_k) : __uint_as_float(next[i]);
            }
            if (LISTING) { // one ballot a word of the tile, kept by that word's lane
                const uint32_t has = __ballot_sync(LDA_FULL_WARP, next[i] != 0u);
                if (lane == i)
                    nonzero = has;
            }
        }
        if (k0 + LDA_WARP < K) { // the whole warp: past K a lane's values are zeros, not the last tile's
            table_tile_load(phi, V, K, w0, k + LDA_WARP, next);
            next_alpha = k + LDA_WARP < K ? alpha[k + LDA_WARP] : 0.0f;
            next_scale = k + LDA_WARP < K ? phi.scale_of(k + LDA_WARP) : 0.0f;
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
            for (; LISTING && nonzero; nonzero &= nonzero - 1u, listed++) { // its word's counts in the tile
                const uint32_t j = (uint32_t)__ffs(nonzero) - 1u;
                if (listed < room) {
                    lists.topics[list_at + listed] = k0 + j;
                    lists.counts[list_at + listed] = count_tile[lane][j];
                }
            }
        }
        __syncwarp(); // the tile is read before the next is written
    }
    if (LISTING && mine)
        lists.len[w0 + lane] = listed <= room ? listed : WORD_LIST_OVERFLOW;
}

template <typename REAL, bool FROM_COUNTS>
static inline void sparse_table_launch(const zsample_sparse_tables &t, const phi_source<FROM_COUNTS> &phi,
                                       const float *alpha, uint32_t K, unsigned blocks, cudaStream_t stream)
{
    if (FROM_COUNTS && t.words.len)
        sparse_table_kernel<REAL, FROM_COUNTS, true>
            <<<blocks, SPARSE_TABLE_WARPS * LDA_WARP, 0, stream>>>(phi, alpha, t.V, K, (REAL *)t.table, t.words);
    else
        sparse_table_kernel<REAL, FROM_COUNTS, false>
            <<<blocks, SPARSE_TABLE_WARPS * LDA_WARP, 0, stream>>>(phi, alpha, t.V, K, (REAL *)t.table, t.words);
}

template <bool FROM_COUNTS>
static inline void sparse_tables_launch(const zsample_sparse_tables &t, const phi_source<FROM_COUNTS> &phi,
                                        const float *alpha, uint32_t K, unsigned blocks, cudaStream_t stream)
{
    if (t.precision == LDA_PRECISION_DOUBLE)
        sparse_table_launch<double, FROM_COUNTS>(t, phi, alpha, K, blocks, stream);
    else
        sparse_table_launch<float, FROM_COUNTS>(t, phi, alpha, K, blocks, stream);
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
