// theta_cache.cuh — Algorithm 5 of Steele & Tristan: caching θ per thread in θ_local with
// transposed, coalesced loads, for the samplers that follow the paper's per-thread tables
// (butterfly-stored, transpose). For a block of topics j..j+31 lane r fetches
// θ[doc k of the warp, topic j+r] for k = 0..31 (32 lanes read one θ row contiguously) and
// keeps it at θ_local[j+k]; the remnant (the first K mod 32 topics) is cached untransposed.
// θ_local lives in global scratch interleaved by thread, as local memory is laid out:
// entry k of thread m is at [k * T + m], T = num_slots.
#ifndef LDA_THETA_CACHE_CUH
#define LDA_THETA_CACHE_CUH

#include "butterfly.cuh"
#include "zsample.cuh"

// Algorithm 5: cache θ into θ_local (transposed loads for the blocks).
__device__ __forceinline__ void cache_theta_transposed(const zsample_args &a, size_t q, uint32_t r,
                                                      float *theta_local, size_t T)
{
    const uint32_t K = a.K, R = K % BFLY_W;
    const size_t m = q * BFLY_W + r;
    for (uint32_t j = 0; j < R; j++)
        theta_local[j * T] = a.theta[m * K + j];
    for (uint32_t j = R; j < K; j += BFLY_W)
#pragma unroll 8
        for (uint32_t k = 0; k < BFLY_W; k++)
            theta_local[(size_t)(j + k) * T] = a.theta[(q * BFLY_W + k) * K + j + r];
}

#endif
