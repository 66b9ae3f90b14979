/* cvb_start.h — a run's start from collapsed variational Bayes (--cvb-start).
 *
 * At K = 100 the collapsed Gibbs sampler spends hundreds of iterations reaching the held-out
 * fit its topics end with, and a faster draw was not found (docs/samplers.md). CVB0 (Asuncion,
 * Welling, Smyth & Teh 2009: collapsed variational Bayes to zero order) reaches it in far fewer
 * passes at about a Gibbs iteration's cost a pass: each token keeps a distribution γ over the
 * topics instead of one topic, and a pass sets every token's to
 *   γ_k ∝ (n[m,k]¬ + α_k) (n[w,k]¬ + β) / (n[k] + Vβ),
 * the counts the expected ones (sums of γ), ¬ without the token's own γ. The tokens of one word
 * in one document have the same γ, so it is kept once a (document, word) pair, in 1/65535ths
 * (two bytes a topic). Within a pass a document's counts move pair by pair (its tokens in the
 * order of their words) and the word–topic counts are those of the pass's start, summed again
 * word by word from every pair's γ after the pass, each word's in one fixed order: so the passes
 * give the same γ for any thread count. The denominator keeps the token in n[k] (n[k] is
 * thousands of tokens, so its own γ moves it by less than 0.1%).
 *
 * The pairs are kept in blocks of documents and by word within a block (lda_cvb_state), so a
 * pass reads a word's row once for its run of pairs in a block, not once a pair from memory.
 * After --cvb-start N passes each token's first topic is drawn from its pair's γ (Philox keyed
 * on the token's corpus position, LDA_RNG_CVB_START), and the Gibbs sampler goes on from there.
 * The start begins from one topic a pair, drawn at random. Measured on 2 cores at K = 100
 * (docs/samplers.md, "The start from collapsed variational Bayes"): the first held-out levels
 * sooner on wiki43k and wikimix, the later points those of the random start over three seeds;
 * so --cvb-start auto takes it there (lda_params_cvb_start). */
#ifndef LDA_CVB_START_H
#define LDA_CVB_START_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/priors.h"
#include "corpus/corpus.h"
#include "util/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDA_CVB_ONE 65535u /* γ's unit: a pair's γ_k is gamma[k] / LDA_CVB_ONE */

/* The pairs are kept in blocks of consecutive documents (a block's θ rows fit a core's L2), and
 * within a block by word, then document: a pass reads a word's row once for its run of pairs in
 * the block, from L1, where it read it once a pair, scattered. A document's pairs are still met
 * in increasing word order, so the γ a pass gives does not depend on the blocks. */
typedef struct {
    uint32_t K, V;
    size_t num_docs, num_pairs, num_blocks;
    size_t *block_doc;    /* num_blocks + 1: block b's documents are [block_doc[b], block_doc[b + 1]) */
    size_t *block_slot;   /* num_blocks + 1: and its pairs the slots [block_slot[b], block_slot[b + 1]) */
    size_t most_block_docs; /* the most documents a block holds: a pass's scratch rows */
    uint32_t *slot_word;  /* num_pairs: a slot's word (increasing within its block) */
    uint32_t *slot_doc;   /* num_pairs: its document less its block's first (increasing within a word) */
    uint32_t *slot_count; /* num_pairs: its tokens */
    uint32_t *slot_tokens; /* the corpus's tokens by slot: a block's at [its first token, its end), each
                            * slot's slot_count in turn, each token less its block's first */
    size_t *word_start;   /* V + 1: word w's slots at word_slots[word_start[w] .. word_start[w + 1]) */
    size_t *word_slots;   /* num_pairs: the slots, by word, then document */
    uint16_t *gamma;      /* num_pairs × K, a slot's γ at gamma + slot × K */
    float *theta;         /* num_docs × K: the expected document–topic counts, Σ count γ in slot order */
    float *n_wk;          /* V × K: the expected word–topic counts, Σ count γ */
    double *n_k;          /* K */
} lda_cvb_state;

/* The pairs of corpus c: (a bound on) the state's bytes for K topics, for the run's memory plan. */
uint64_t lda_cvb_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K);

/* The pairs of c and the first γ, with their counts. With z NULL, one topic a pair, keyed on `seed`
 * and the pair's first token; else z holds c's tokens' topics (corpus order, each < K) and a pair's
 * γ is its tokens' share in each topic (in whole units of 1/LDA_CVB_ONE, summing to one exactly).
 * The blocks hold at most a share of the tokens for `pool`'s workers; they change where a pair is
 * kept, not what a pass gives. -1 with err when out of memory. */
int lda_cvb_init(lda_cvb_state *s, const corpus *c, uint32_t K, uint64_t seed, const uint32_t *z, lda_pool *pool,
                 lda_error *err);
void lda_cvb_free(lda_cvb_state *s);

/* One pass over every document, then the counts summed again. -1 with err when out of memory. */
int lda_cvb_pass(lda_cvb_state *s, const lda_priors *priors, lda_pool *pool, lda_error *err);

/* The topics of the state's expected counts, (n[w,k] + β) / (n[k] + Vβ), word-major: phi_vk[w·K + k]. */
void lda_cvb_phi(const lda_cvb_state *s, const lda_priors *priors, float *phi_vk);

/* lda_cvb_init, then `passes` passes: the state in *s (lda_cvb_free it) unless -1 with err. */
int lda_cvb_run(lda_cvb_state *s, const corpus *c, const lda_priors *priors, uint32_t K, uint64_t seed,
                const uint32_t *from, uint32_t passes, lda_pool *pool, lda_error *err);

/* The topic a 32-bit uniform u picks from K integer weights q (their total > 0): the first k
 * whose running sum exceeds (u × total) / 2^32, so each k's share of the 2^32 values of u is
 * q[k] / total to within one value. */
uint32_t lda_cvb_pick(const uint16_t *q, uint32_t K, uint32_t u);

/* Every token's topic drawn from its pair's γ, in corpus order (c's tokens), keyed on `seed`. */
void lda_cvb_draw(const lda_cvb_state *s, const corpus *c, uint64_t seed, lda_pool *pool, uint32_t *z);

/* What the start did, for the run's messages. */
typedef struct {
    size_t pairs;
    double seconds; /* the set-up, the passes and the draw */
} lda_cvb_start_report;

/* The whole start: `passes` passes on c and the draw into z (c's tokens, corpus order), with
 * `threads` workers (0: one a core). */
int lda_cvb_start(const corpus *c, const lda_priors *priors, uint32_t K, uint64_t seed, int threads, uint32_t passes,
                  uint32_t *z, lda_cvb_start_report *report, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
