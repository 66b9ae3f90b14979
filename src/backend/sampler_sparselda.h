/* sampler_sparselda.h — --sampler sparselda: the collapsed model's draw built for the CPU's
 * caches (SparseLDA: Yao, Mimno & McCallum 2009, as Mallet draws), exact collapsed Gibbs
 * within each of a fixed number of parts of the documents.
 *
 * A token of word w in document m, its own topic taken off every count, has the weights
 *   (α_k + n[m,k]) (β + n[w,k]) / (n[k] + Vβ)  =  s_k + r_k + q_k,
 *   s_k = α_k β / (n[k] + Vβ)              (smoothing: every topic; the sum S kept as n[k] moves)
 *   r_k = n[m,k] β / (n[k] + Vβ)           (document: its topics; R kept as they move)
 *   q_k = (α_k + n[m,k]) n[w,k] / (n[k] + Vβ)  (word: its topics; Q summed a token)
 * q_k reads the coefficient (α_k + n[m,k]) / (n[k] + Vβ) from a K-long array kept as the
 * counts move (in L1 at K = 1024: 8 KiB), and n[w,k] from the word's list of (count, topic),
 * kept sorted by count (largest first, ties by topic), so the word part's walk usually ends at
 * its first entries. The draw's target u (Q + R + S) is searched in Q (the word's list, in its
 * order), then R (the document's list, increasing topics), then S (topics 0 .. K-1). Sums in
 * double, whatever --precision.
 *
 * Unlike --sampler sparse, which draws every token against the word–topic counts of the
 * iteration's start (the collapsed model's approximation, the GPU's), the word–topic counts
 * n[w,k] and n[k] here move with every token: a part's tokens are drawn in order, each seeing
 * every earlier move of its part. The parts are the layout's warps of the --refresh part, the
 * i-th in part i mod parts (a fixed number, zplan.h; not the threads), each from the counts
 * of the pass's start: with one part it is the sequential collapsed Gibbs sampler; with several
 * a part does not see the others' moves of the same pass (AD-LDA, as Mallet's threads). The
 * model is the same for any number of threads. The uniform of each token is the one the other
 * draws use (sampler_cpu.h). */
#ifndef LDA_SAMPLER_SPARSELDA_H
#define LDA_SAMPLER_SPARSELDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend/sampler_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One worker's view of the counts while it draws a part (sampler_sparselda.c). */
typedef struct lda_sparselda_worker lda_sparselda_worker;

/* What the draw keeps between passes: each word's sorted list at the pass's start (built from
 * n[w,k]), and each worker's copies. Made once a run. */
typedef struct lda_sparselda {
    uint32_t V, K, parts;
    uint64_t *offset;      /* V + 1: word w's room at [offset[w], offset[w + 1]): min(K, its tokens) */
    uint64_t *entries;     /* (count << 32) | (UINT32_MAX − topic): sorted decreasing = count, then topic */
    uint32_t *len;         /* V */
    int workers;
    lda_sparselda_worker *worker;
} lda_sparselda;

/* What a pass reads beside lda_zdraw (sampler_cpu.h). */
typedef struct lda_sparselda_in {
    lda_sparselda *state;
    const uint32_t *n_wk; /* V × K at the pass's start (every token's, a shard's totals) */
    const uint32_t *n_k;  /* K */
    double beta;
    /* NULL: the denominators 1 / (n[k] + Vβ), moving with n[k]. Else K fixed reals in their
     * place: the tests' integer weights, where every sum is exact. */
    const double *fixed_scale;
} lda_sparselda_in;

/* Room for L's words at K, drawn in `parts` parts by a pool of `threads` threads (<= 0: as
 * many as parts): a copy of the lists for each part that may run at once. -1 with err when out
 * of memory. */
int lda_sparselda_create(const lda_layout *L, uint32_t K, uint32_t parts, int threads, lda_sparselda *s,
                         lda_error *err);
void lda_sparselda_free(lda_sparselda *s);

/* The copies: min(threads, parts). */
int lda_sparselda_workers(int threads, uint32_t parts);

/* Bytes lda_sparselda_create allocates (the run's memory plan). */
uint64_t lda_sparselda_bytes(const lda_layout *L, uint32_t K, uint32_t parts, int threads);

/* The z draw of lda_cpu_sample_z with in->sparselda set (the collapsed model): z and the rows
 * n[m,k] updated in place; n[w,k] and n[k] are read, not written (the caller counts again). */
int lda_cpu_sample_z_sparselda(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
