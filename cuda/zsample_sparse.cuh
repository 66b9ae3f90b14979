// zsample_sparse.cuh — the sparse z draw (--sampler sparse, θ collapsed): one document a
// thread, each running core/sparse_draw.h's draw, the one the CPU runs
// (backend/sampler_sparse.c), so the two agree to the bit. Before it, a kernel builds every
// word's table of block-end prefix sums of α_k φ[w,k] (a thread a word, the CPU's additions).
//
// A thread's document keeps its list of topics in global memory (zsample_sparse_tables: a
// slot's capacity, lda_sparse_list_capacity, is bounded by its tokens, so the lists grow
// with the corpus, not with D × K) beside its row of n[m,k], which it alone writes.
#ifndef LDA_ZSAMPLE_SPARSE_CUH
#define LDA_ZSAMPLE_SPARSE_CUH

#include "core/sparse_draw.h"
#include "zsample.cuh"

__device__ __forceinline__ void sparse_table_row(const float *alpha, const float *ph, uint32_t K, float *out)
{
    lda_sparse_table_row_float(alpha, ph, K, out);
}
__device__ __forceinline__ void sparse_table_row(const float *alpha, const float *ph, uint32_t K, double *out)
{
    lda_sparse_table_row_double(alpha, ph, K, out);
}
__device__ __forceinline__ void sparse_draw_doc(const lda_sparse_doc *d, float)
{
    lda_sparse_draw_doc_float(d);
}
__device__ __forceinline__ void sparse_draw_doc(const lda_sparse_doc *d, double)
{
    lda_sparse_draw_doc_double(d);
}

template <typename REAL>
__global__ void sparse_table_kernel(const float *__restrict__ phi, const float *__restrict__ alpha, uint32_t V,
                                    uint32_t K, REAL *__restrict__ table)
{
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < V)
        sparse_table_row(alpha, phi + w * K, K, table + w * lda_sparse_blocks(K));
}

// Thread t of a launch draws lane t % 32 of the part's (t / 32)-th document group.
template <typename REAL> __global__ void zsample_sparse_kernel(const zsample_args a, const zsample_sparse_tables t)
{
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t q = (thread / LDA_WARP) * a.part_count + a.part;
    if (q >= a.num_warps)
        return;
    const uint32_t r = (uint32_t)(thread % LDA_WARP);
    const size_t s = q * LDA_WARP + r;
    const uint32_t len = a.slot_len[s];
    if (len == 0)
        return;
    lda_sparse_doc d;
    d.words = a.words;
    d.z = a.z;
    d.base = a.warp_offset[q] + r;
    d.stride = LDA_WARP;
    d.len = len;
    d.from_row = len < t.slot_doc_len[s] || len >= a.K;
    d.token_base = a.slot_token_base[s];
    d.n = a.n_mk + s * a.K;
    d.topics = t.lists + t.list_offset[s];
    d.sums = NULL; // formed again when needed: fewer stores
    d.phi = a.phi;
    d.alpha = a.alpha;
    d.table = t.table;
    d.K = a.K;
    d.seed = a.seed;
    d.iteration = a.iteration;
    sparse_draw_doc(&d, REAL(0));
}

#endif
