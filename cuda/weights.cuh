// weights.cuh — the document weight of a topic, as every z-sampler reads it: θ[m,k], or
// n[m,k] + α when θ is collapsed (zsample.cuh). Both are formed in REAL exactly as the CPU
// reference forms them, so integer inputs give exact, identical partial sums.
#ifndef LDA_WEIGHTS_CUH
#define LDA_WEIGHTS_CUH

#include "zsample.cuh"

template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL doc_weight(const zsample_args &a, size_t index)
{
    if (COLLAPSED)
        return (REAL)a.n_mk[index] + (REAL)a.alpha;
    return (REAL)a.theta[index];
}

#endif
