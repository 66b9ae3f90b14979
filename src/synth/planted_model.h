/* planted_model.h — the topics and proportions a synthetic corpus is drawn from (LDA's own
 * generative model): φ_k ~ Dirichlet(β) over the V words for each of K topics, θ_d ~
 * Dirichlet(α) for each document and its tokens' topics z ~ θ_d. Every draw is keyed on (seed,
 * purpose, index): topic k on (LDA_RNG_GEN_PHI, k), token i of document d on
 * (LDA_RNG_GEN_TOKENS, d, block i), θ_d on (LDA_RNG_GEN_THETA, d), so the model is the same
 * for any thread count. Dirichlet variates are normalised Gamma variates drawn as logarithms
 * (core/gamma.h), as small priors underflow otherwise.
 *
 * A document's topics are drawn with θ_d integrated out (lda_planted_doc_topics): O(1) a
 * token, where drawing θ_d first costs K Gamma variates a document (at K = 10^4 as much as
 * the rest of a 300-token document, 30 times over). θ_d, where it is wanted, is then drawn
 * given the topics (lda_planted_theta_given); the pair has the law of θ_d first, then z. */
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

/* The topics z[length] of document doc's tokens, by the Pólya urn of a symmetric
 * Dirichlet(α): token i takes a new topic, uniform over the K, with probability Kα / (i + Kα),
 * and else the topic of one of the i tokens before it, uniformly. So P(z_i = k | z_<i) =
 * (n_k + α) / (i + Kα): the law of z when θ_d ~ Dirichlet(α) and z_i ~ θ_d. Each token's
 * Philox block (LDA_RNG_GEN_TOKENS, doc, i) gives word 0 to new-or-copied and word 1 to which
 * (the high part of the word times the count: uniform within i / 2^32 of a share, as an alias
 * table's draws are); words 2 and 3, the token's word draw, go to word_bits[i] (high, low). */
void lda_planted_doc_topics(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, uint32_t length,
                            uint32_t *z, uint64_t *word_bits);

/* θ of document doc (normalised, into theta_out[K]) given its topics z[length]: a draw of
 * Dirichlet(α + n_d), its posterior, keyed on (LDA_RNG_GEN_THETA, doc). counts (K, all zero;
 * left so) and theta (K doubles) are scratch. */
void lda_planted_theta_given(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, const uint32_t *z,
                             uint32_t length, uint32_t *counts, double *theta, float *theta_out);

#endif
