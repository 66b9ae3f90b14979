// warp.cuh — whole-warp reductions, and the one full-warp mask every shuffle uses: every
// kernel here keeps all 32 lanes of a warp active through its shuffles (a finished lane
// repeats its last word; algorithm-notes errata 6), which is what makes the full mask legal.
#ifndef LDA_WARP_CUH
#define LDA_WARP_CUH

#define LDA_FULL_WARP 0xffffffffu

// The sum of v over the warp, in every lane (a butterfly of xor-shuffles: the same order of
// additions in every run).
template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(LDA_FULL_WARP, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(LDA_FULL_WARP, v, o));
    return v;
}

#endif
