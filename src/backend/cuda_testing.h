/* cuda_testing.h — entry points into single GPU kernels, for the test suite (and any
 * harness that validates a kernel against its CPU reference). Only in CUDA builds
 * (LDA_HAVE_CUDA). Each allocates, runs once, copies back, and frees. */
#ifndef LDA_CUDA_TESTING_H
#define LDA_CUDA_TESTING_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "backend/sampler_cpu.h"
#include "core/error.h"
#include "core/params.h"
#include "core/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One z draw of every token on the GPU with the same inputs the CPU reference takes
 * (lda_zdraw): θ given, or θ collapsed with in->n_mk (then z holds the previous topics on
 * entry, and the counts as the draws leave them are copied back into in->n_mk). z at layout
 * positions; positions past a document's end are left as they were. split: butterfly
 * warps per document group (0: the default's kernel, θ of a group staged in shared memory,
 * where it fits; otherwise 32 warps). */
int lda_cuda_sample_z_given(const lda_layout *L, const lda_zdraw *in, lda_sampler sampler, uint32_t split,
                            uint32_t *z, lda_error *err);

/* Whether a CUDA run with these parameters draws z with the kernel that stages θ in shared
 * memory and keeps the counts (and, mean-for-mode, θ) current itself (zsample.cuh). */
int lda_cuda_z_kernel_fused(const lda_params *p, const lda_layout *L);

/* curand's Philox4x32-10 on the device for n counters under one seed. */
int lda_cuda_philox(uint64_t seed, const lda_u32x4 *counters, lda_u32x4 *out, size_t n, lda_error *err);

/* n log-Gamma(shape) variates from the device, as its θ/φ updates draw them (single
 * precision, gamma.h), variate i from stream (LDA_RNG_TEST, 0, i). */
int lda_cuda_log_gamma(double shape, uint64_t seed, size_t n, double *out, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
