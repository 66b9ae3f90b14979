// weights.cuh — the document weight of a topic, as every z-sampler reads it: θ[m,k], or
// n[m,k] + α when θ is collapsed (zsample.cuh). Both are formed in REAL exactly as the CPU
// reference forms them, so integer inputs give exact, identical partial sums.
#ifndef LDA_WEIGHTS_CUH
#define LDA_WEIGHTS_CUH

#include "zsample.cuh"

// From explicit arrays: `theta` and `n_mk` may point into a document group's rows (global
// memory or a copy in shared memory), `index` is then relative to them.
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL doc_weight_at(const float *theta, const uint32_t *n_mk, float alpha, size_t index)
{
    if (COLLAPSED)
        return (REAL)n_mk[index] + (REAL)alpha;
    return (REAL)theta[index];
}

template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL doc_weight(const zsample_args &a, size_t index)
{
    return doc_weight_at<REAL, COLLAPSED>(a.theta, a.n_mk, a.alpha, index);
}

#endif
