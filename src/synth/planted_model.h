/* planted_model.h — the topics and proportions a synthetic corpus is drawn from (LDA's own
 * generative model): φ_k ~ Dirichlet(β) over the V words for each of K topics, θ_d ~
 * Dirichlet(α) for each document. Every draw is keyed on (seed, purpose, index): topic k on
 * (LDA_RNG_GEN_PHI, k), document d on (LDA_RNG_GEN_THETA, d), so the model is the same for
 * any thread count. Dirichlet variates are normalised Gamma variates drawn as logarithms
 * (core/gamma.h), as small priors underflow otherwise. */
#ifndef LDA_PLANTED_MODEL_H
#define LDA_PLANTED_MODEL_H

#include <stdint.h>

#include "core/alias.h"
#include "core/error.h"
#include "util/threadpool.h"

typedef struct {
    uint32_t num_topics, vocab_size;
    float *phi;             /* K × V: row k is φ_k (as a model's phi.npy) */
    lda_alias_entry *alias; /* K × V: row k draws a word of topic k */
} lda_planted_topics;

/* Draws the K topics, in parallel over the pool; -1 with err when out of memory. */
int lda_planted_topics_draw(lda_planted_topics *t, uint32_t num_topics, uint32_t vocab_size, double beta,
                            uint64_t seed, lda_pool *pool, lda_error *err);
void lda_planted_topics_free(lda_planted_topics *t);

/* θ of document doc into theta[K], normalised. */
void lda_planted_theta(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, double *theta);

#endif
