// weights.cuh — the document weight of a topic, as every z-sampler reads it: θ[m,k], or
// n[m,k] + α_k when θ is collapsed (zsample.cuh). Both are formed in REAL exactly as the CPU
// reference forms them, so integer inputs give exact, identical partial sums.
#ifndef LDA_WEIGHTS_CUH
#define LDA_WEIGHTS_CUH

#include "zsample.cuh"

// From explicit arrays: `theta` and `n_mk` may point into a document group's rows (global
// memory or a copy in shared memory), `index` is then relative to them; `topic` is the
// topic of that entry (α is per topic).
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL doc_weight_at(const float *theta, const uint32_t *n_mk, const float *alpha,
                                              size_t index, uint32_t topic)
{
    if (COLLAPSED)
        return (REAL)n_mk[index] + (REAL)alpha[topic];
    return (REAL)theta[index];
}

template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL doc_weight(const zsample_args &a, size_t index, uint32_t topic)
{
    return COLLAPSED ? doc_weight_at<REAL, true>(NULL, a.n_mk, a.alpha, index, topic)
                     : doc_weight_at<REAL, false>(a.theta, NULL, NULL, index, topic);
}

#endif
