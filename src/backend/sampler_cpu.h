/* sampler_cpu.h — the CPU reference z draw (Algorithm 1 with the binary search of
 * Algorithm 3 of 000_e24edcbece0b8c44.txt).
 *
 * For every token (m, i) with word w: a[k] = w(m,k)·φ[w,k], p = left-to-right prefix sums
 * of a in the chosen precision, u = the token's uniform, z = the smallest j with
 * u·p[K-1] < p[j]. The document weight w(m,k) is θ[m,k], or, with θ collapsed,
 * n[m,k] + α_k over the document's other tokens: the token's current topic is removed from
 * n[m,·] before its draw and the new one added after, tokens in document order. This is the
 * definition every GPU sampler is tested against. */
#ifndef LDA_SAMPLER_CPU_H
#define LDA_SAMPLER_CPU_H

#include <stdint.h>

#include "backend/layout.h"
#include "core/params.h"
#include "util/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lda_sparse_word_side;
struct lda_sparselda_in;
struct lda_alias_in;

typedef struct {
    const float *theta; /* θ given: num_slots × K in slot order */
    uint32_t *n_mk;     /* θ collapsed (when not NULL): num_slots × K counts, updated in place */
    const float *alpha; /* θ collapsed: K, the prior of each topic, added to its count */
    const float *phi;   /* V × K */
    /* --sampler sparse (θ collapsed): V × K reals of the precision, each word's prefix sums of
     * α_k φ[w,k] (sampler_sparse.h); NULL: the dense draw. */
    const void *word_prior;
    /* ... and where φ is the mean of counts, the word side of its draw (core/sparse_draw.h);
     * NULL: none. */
    const struct lda_sparse_word_side *word_side;
    /* --sampler sparselda (the collapsed model): its counts and state (sampler_sparselda.h);
     * NULL: another draw. */
    const struct lda_sparselda_in *sparselda;
    /* --sampler alias (the collapsed model): its counts and state (sampler_alias.h); NULL: another
     * draw. */
    const struct lda_alias_in *alias;
    uint32_t K;
    lda_precision precision;
    uint64_t seed;
    uint32_t iteration;
    /* --refresh: only the warps q with q mod part_count = part are drawn (0 parts: all). */
    uint32_t part, part_count;
} lda_zdraw;

/* Writes z at every real token position (with θ collapsed z must hold the previous topics);
 * with in->word_prior set, by the sparse split of sampler_sparse.h (same distribution).
 * The uniform of the token with corpus-order index t is lda_rng_once(seed, LDA_RNG_Z,
 * iteration, t), converted with lda_uniform_float/double for the precision. */
int lda_cpu_sample_z(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
