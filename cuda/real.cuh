// real.cuh — the precision-dependent helpers the kernels are templated over: uniforms
// from random bits and the clamped search target, forwarding to the shared definitions in
// rng.h and search.h so the GPU draws exactly what the CPU reference draws.
#ifndef LDA_REAL_CUH
#define LDA_REAL_CUH

#include "core/rng.h"
#include "core/search.h"

template <typename REAL> __device__ __forceinline__ REAL uniform_from_bits(uint32_t bits);
template <> __device__ __forceinline__ float uniform_from_bits<float>(uint32_t bits)
{
    return lda_uniform_float(bits);
}
template <> __device__ __forceinline__ double uniform_from_bits<double>(uint32_t bits)
{
    return lda_uniform_double(bits);
}

__device__ __forceinline__ float scaled_target(float total, float u)
{
    return lda_scaled_target_float(total, u);
}
__device__ __forceinline__ double scaled_target(double total, double u)
{
    return lda_scaled_target_double(total, u);
}

__device__ __forceinline__ int binary_search(const float *p, int K, float target)
{
    return lda_binary_search_float(p, K, target);
}
__device__ __forceinline__ int binary_search(const double *p, int K, double target)
{
    return lda_binary_search_double(p, K, target);
}

#endif
