// zsample_naive.cuh — Algorithm 1 with the binary search of Algorithm 3 (Steele & Tristan):
// the baseline. One thread per document, tokens in order; each thread reads its own φ row
// (no coalescing across the warp) and writes a full prefix-sum table to its own scratch
// row, then searches it with the same lda_binary_search_* the CPU reference uses.
// With θ collapsed the thread removes the token's old topic from its document's counts
// before the draw and adds the new one after (zsample.cuh).
#ifndef LDA_ZSAMPLE_NAIVE_CUH
#define LDA_ZSAMPLE_NAIVE_CUH

#include "real.cuh"
#include "weights.cuh"
#include "zsample.cuh"

template <typename REAL, bool COLLAPSED>
__global__ void __launch_bounds__(128) zsample_naive_kernel(zsample_args a)
{
    const size_t m = blockIdx.x * (size_t)blockDim.x + threadIdx.x; // document slot
    if (m >= a.num_slots)
        return;
    const uint32_t K = a.K;
    const uint32_t len = a.slot_len[m];
    const size_t q = m / 32, r = m % 32;
    const uint32_t *wq = a.words + a.warp_offset[q];
    uint32_t *zq = a.z + a.warp_offset[q];
    REAL *p = static_cast<REAL *>(a.scratch) + m * K;
    for (uint32_t i = 0; i < len; i++) {
        const size_t pos = (size_t)i * 32 + r;
        if (COLLAPSED)
            a.n_mk[m * K + zq[pos]]--;
        const float *ph = a.phi + (size_t)wq[pos] * K;
        REAL sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            sum += doc_weight<REAL, COLLAPSED>(a, m * K + k, k) * (REAL)ph[k];
            p[k] = sum;
        }
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, a.slot_token_base[m] + i);
        const REAL target = scaled_target(sum, uniform_from_bits<REAL>(bits));
        const uint32_t topic = (uint32_t)binary_search(p, (int)K, target);
        zq[pos] = topic;
        if (COLLAPSED)
            a.n_mk[m * K + topic]++;
    }
}

#endif
