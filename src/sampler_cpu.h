/* sampler_cpu.h — the CPU reference z draw (Algorithm 1 with the binary search of
 * Algorithm 3 of 000_e24edcbece0b8c44.txt).
 *
 * For every token (m, i) with word w: a[k] = θ[m,k]·φ[w,k], p = left-to-right prefix sums
 * of a in the chosen precision, u = the token's uniform, z = the smallest j with
 * u·p[K-1] < p[j]. This is the definition every GPU sampler is tested against. */
#ifndef LDA_SAMPLER_CPU_H
#define LDA_SAMPLER_CPU_H

#include <stdint.h>

#include "layout.h"
#include "params.h"
#include "threadpool.h"

/* θ: num_slots × K in slot order; φ: V × K. Writes z at every real token position.
 * The uniform of the token with corpus-order index t is lda_rng_once(seed, LDA_RNG_Z,
 * iteration, t), converted with lda_uniform_float/double for the precision. */
int lda_cpu_sample_z(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                     uint32_t K, lda_precision precision, uint64_t seed, uint32_t iteration,
                     uint32_t *z, lda_error *err);

#endif
