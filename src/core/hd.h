/* hd.h — one definition for host and device.
 *
 * Small numeric routines (the random-number generator, the prefix search, Gamma variates)
 * are needed by the CPU reference and by the CUDA kernels, and must agree exactly. Headers
 * that define them use LDA_HD, which makes them `static inline` for the C compiler and
 * `__host__ __device__` inline functions for nvcc. */
#ifndef LDA_HD_H
#define LDA_HD_H

#if defined(__CUDACC__)
#define LDA_HD static __host__ __device__ __forceinline__
#else
#define LDA_HD static inline
#endif

#endif
