/* cuda_testing.h — entry points into single GPU kernels, for the test suite (and any
 * harness that validates a kernel against its CPU reference). Only in CUDA builds
 * (LDA_HAVE_CUDA). Each allocates, runs once, copies back, and frees. */
#ifndef LDA_CUDA_TESTING_H
#define LDA_CUDA_TESTING_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "backend/sampler_cpu.h"
#include "backend/zplan.h"
#include "core/error.h"
#include "core/params.h"
#include "core/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One z draw of every token on the GPU with the same inputs the CPU reference takes
 * (lda_zdraw): θ given, or θ collapsed with in->n_mk (then z holds the previous topics on
 * entry, and the counts as the draws leave them are copied back into in->n_mk). z at layout
 * positions; positions past a document's end are left as they were. split: as --split
 * (LDA_SPLIT_STAGED: the staged kernel; N: N warps a group; auto: the plan's choice). The
 * kernel run is the one lda_zplan_make names, drawing only (lda_zplan_draw_only); with
 * --sampler sparse it builds its own word tables (in->word_prior is not read). */
int lda_cuda_sample_z_given(const lda_layout *L, const lda_zdraw *in, lda_sampler sampler, uint32_t split,
                            uint32_t *z, lda_error *err);

/* The sparse draw (θ collapsed, in->n_mk) as lda_cuda_sample_z_given draws it, in the given
 * compilation of the kernel (zplan.h, sparse_long_lists): 0 the short lists', 1 the long
 * lists', whatever the plan would choose. */
int lda_cuda_sample_z_sparse_lists(const lda_layout *L, const lda_zdraw *in, int long_lists, uint32_t *z,
                                   lda_error *err);

/* The same sparse draw (θ collapsed, in->n_mk) with φ formed from the counts n_wk (V × K) and
 * n_k (K) with beta as it reads them (core/phi_mean.h), as the collapsed model's draw does;
 * in->phi is not read. long_lists as lda_cuda_sample_z_sparse_lists (-1: the plan's). In the
 * long lists' compilation, word_lists (zplan.h, sparse_word_lists): -1 as a training run's plan
 * (each word's list with room for its tokens' topics: a word whose non-zero n_wk are more is
 * gathered), 0 none, 1 every word's list with room for K topics, read at every run's first
 * token. */
int lda_cuda_sample_z_sparse_from_counts(const lda_layout *L, const lda_zdraw *in, const uint32_t *n_wk,
                                         const uint32_t *n_k, double beta, int long_lists, int word_lists,
                                         uint32_t *z, lda_error *err);

/* The word lists (cuda/word_lists.cuh) that the word tables' kernel writes from n_wk (V × K):
 * word w's room is room[w] entries; topics and counts (Σ room entries each) get each list at
 * the offsets the rooms make, len (V) each length, or UINT32_MAX where the word's non-zero
 * counts outnumber its room. */
int lda_cuda_word_lists(uint32_t V, uint32_t K, const uint32_t *n_wk, const uint32_t *n_k, const uint32_t *room,
                        uint32_t *topics, uint32_t *counts, uint32_t *len, lda_error *err);

/* The sparse draw's word tables (cuda/sparse_table.cuh) of V words at K topics, `table`
 * holding V × lda_sparse_blocks(K) reals of `precision` (NULL: none built). n_wk NULL: from phi
 * (V × K) and alpha (K), as the draw's launch builds them. n_wk set: phi (written) is the mean
 * of the counts n_wk (V × K) and n_k (K) with beta, as the mean's kernel writes it, and the
 * tables are formed from the counts, as the collapsed model's draw forms them. */
int lda_cuda_sparse_tables(uint32_t V, uint32_t K, lda_precision precision, const float *alpha, const uint32_t *n_wk,
                           const uint32_t *n_k, double beta, float *phi, void *table, lda_error *err);

/* The z plan (zplan.h) a CUDA run with these parameters makes on this device. */
int lda_cuda_zplan(const lda_params *p, const lda_layout *L, lda_zplan *plan, lda_error *err);

/* The current device's total memory in bytes. */
size_t lda_cuda_memory_bytes(void);

/* curand's Philox4x32-10 on the device for n counters under one seed. */
int lda_cuda_philox(uint64_t seed, const lda_u32x4 *counters, lda_u32x4 *out, size_t n, lda_error *err);

/* n log-Gamma(shape) variates from the device, as its θ/φ updates draw them (single
 * precision, gamma.h), variate i from stream (LDA_RNG_TEST, 0, i). */
int lda_cuda_log_gamma(double shape, uint64_t seed, size_t n, double *out, lda_error *err);

/* The device all-reduce (allreduce.h) of `ranks` arrays of `count` integers, rank g's copied
 * from in[g] to CUDA device devices[g] (a stream of its own), summed in place there, and copied
 * back to out[g]. *used_nccl: whether NCCL summed them (else the peer copies). */
int lda_cuda_allreduce(uint32_t ranks, const int *devices, const uint32_t *const *in, uint32_t *const *out,
                       size_t count, int *used_nccl, lda_error *err);

/* The topic totals' check (cuda/topic_totals.cu) put to the test on b, a started CUDA backend of
 * one GPU: topic k is given 2^32 tokens more than it holds, spread over its n[w,k] (V >= 4, so
 * that no n[w,k] wraps), as if that many more had been counted; its 32-bit n[k] wraps back to
 * what it was, as a topic's total past 2^32 - 1 wraps. The check is set up where the run has none
 * (its tokens in device memory, fewer than 2^32). The next iterate fails (a run failure), naming
 * topic k. */
int lda_cuda_test_overfill_topic(lda_backend *b, uint32_t k, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
