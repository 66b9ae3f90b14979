// zsample_naive.cuh — Algorithm 1 with the binary search of Algorithm 3 (Steele & Tristan):
// the baseline. One thread per document, tokens in order; each thread reads its own φ row
// (no coalescing across the warp) and writes a full prefix-sum table to its own scratch
// row, then searches it with the same lda_binary_search_* the CPU reference uses.
#ifndef LDA_ZSAMPLE_NAIVE_CUH
#define LDA_ZSAMPLE_NAIVE_CUH

#include "real.cuh"
#include "zsample.cuh"

template <typename REAL>
__global__ void __launch_bounds__(128) zsample_naive_kernel(zsample_args a)
{
    const size_t m = blockIdx.x * (size_t)blockDim.x + threadIdx.x; // document slot
    if (m >= a.num_slots)
        return;
    const uint32_t K = a.K;
    const uint32_t len = a.slot_len[m];
    const size_t q = m / 32, r = m % 32;
    const uint32_t *wq = a.words + a.warp_offset[q];
    const float *th = a.theta + m * K;
    REAL *p = static_cast<REAL *>(a.scratch) + m * K;
    for (uint32_t i = 0; i < len; i++) {
        const float *ph = a.phi + (size_t)wq[(size_t)i * 32 + r] * K;
        REAL sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            sum += (REAL)th[k] * (REAL)ph[k];
            p[k] = sum;
        }
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, a.slot_token_base[m] + i);
        const REAL target = scaled_target(sum, uniform_from_bits<REAL>(bits));
        a.z[a.warp_offset[q] + (size_t)i * 32 + r] = (uint32_t)binary_search(p, (int)K, target);
    }
}

#endif
