/* sample_start.h — a run's start from a sample of its documents (--sample-start).
 *
 * The classic start puts each token in a topic at random, and the first tens of iterations of
 * the whole corpus are spent finding topics at all. Topics found on a sample cost a tenth as
 * much a pass: so before its first iteration a run trains --sample-start N iterations on every
 * LDA_SAMPLE_START_STRIDE-th document (its own model, settings and seed, on the CPU), counts the
 * sample's word–topic counts n'[w,k] and n'[k], and draws each token's first topic document by
 * document, each token seeing its document's tokens drawn before it:
 *   p_k ∝ (c[m,k] + α_k) (n'[w,k] + β) / (n'[k] + Vβ),  c[m,k]: its document's tokens so far,
 * drawn as a document part (its topics so far), a word part (the word's sample topics, running
 * sums) and a smoothing part (every topic, running sums), from one Philox block keyed on the
 * token's corpus position (LDA_RNG_SAMPLE_START): the same start for any thread count. A piece
 * of a cut document (--piece-length) starts its counts anew.
 *
 * Measured on 2 cores at K = 100 and 1024 on wiki43k and wikimix (docs/samplers.md, "The start
 * from a sample"): at K = 1024, from 30 iterations on a tenth of the documents, about 32 iterations
 * of the whole corpus reach what the random start reaches in 50, and the later points (200, 400)
 * are no worse within the spread of four seeds; at K = 100 it saves about what it costs. */
#ifndef LDA_SAMPLE_START_H
#define LDA_SAMPLE_START_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"
#include "core/priors.h"
#include "corpus/corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sample's word–topic counts, as the start's draw reads them. */
typedef struct {
    uint32_t V, K;
    uint64_t *offset;   /* V + 1: word w's topics at [offset[w], offset[w + 1]) */
    uint32_t *topic;    /* each word's topics with a count in the sample, increasing */
    uint32_t *count;    /* ... and their n'[w,k] */
    double *word_sum;   /* ... and the running sums of α_k n'[w,k] / (n'[k] + Vβ) over them */
    double *inv;        /* K: 1 / (n'[k] + Vβ) */
    double *smooth_sum; /* K: the running sums of α_k β / (n'[k] + Vβ) */
    double beta;
} lda_sample_counts;

/* The counts of the tokens of L whose topics are z_pos (L's positions), V words (L's vocabulary),
 * with the priors' α and β. -1 with err when out of memory. */
int lda_sample_counts_build(const lda_layout *L, const uint32_t *z_pos, const lda_priors *priors,
                            lda_sample_counts *c, lda_error *err);
void lda_sample_counts_free(lda_sample_counts *c);

/* Every token's first topic, into z_pos (L's positions), drawn from c with the priors' α, keyed
 * on `seed`, over `threads` workers (0: one per core). */
int lda_sample_start_draw(const lda_layout *L, const lda_sample_counts *c, const lda_priors *priors, uint64_t seed,
                          int threads, uint32_t *z_pos, lda_error *err);

/* What the start did, for the run's messages. */
typedef struct {
    size_t sample_docs;
    uint64_t sample_tokens;
    double seconds; /* the sample's set-up and training, and the draw */
} lda_sample_start_report;

/* The whole start of a run on the documents c laid out as L with the backend's params and
 * priors: the sample's training (`iterations` of them, on the CPU) and the draw into z_pos. */
int lda_sample_start(const corpus *c, const lda_layout *L, const lda_params *params, const lda_priors *priors,
                     uint32_t iterations, uint32_t *z_pos, lda_sample_start_report *report, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
