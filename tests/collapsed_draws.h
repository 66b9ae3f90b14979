/* collapsed_draws.h — what the tests of the collapsed model's CPU draws share
 * (test_sampler_sparselda.c, test_sampler_alias.c, test_sampler_mh.c). */
#ifndef LDA_TEST_COLLAPSED_DRAWS_H
#define LDA_TEST_COLLAPSED_DRAWS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "backend/sampler_alias.h"
#include "backend/sampler_cpu.h"
#include "core/rng.h"
#include "corpus/corpus.h"

/* n[m,k] (a cut document's joined), n[w,k] and n[k] from z. */
void collapsed_count_all(const lda_layout *L, uint32_t K, const uint32_t *z, uint32_t *n_mk, uint32_t *n_wk,
                         uint32_t *n_k);

/* The collapsed conditional of a token, its own topic off the counts: p[k] ∝ (α_k + nm[k])
 * (β + nw[k]) / (nk[k] + Vβ), normalised. */
void collapsed_conditional(const uint32_t *nm, const uint32_t *nw, const uint32_t *nk, const float *alpha, double beta,
                           uint32_t V, uint32_t K, double *p);

/* The chi-squared tests' state: 32 documents of two tokens over 3 words; slot 0's are both of
 * word 1, at topics (3, 6), at positions p0 and p1; the others' words and topics fixed at random,
 * so n[w,k] and n[k] are uneven. Real α_k = 0.05 + 0.3 (k mod 4) and β = 0.2. */
#define PAIR_K 10u
#define PAIR_V 3u
typedef struct {
    corpus *c;
    lda_layout *L;
    float alpha[PAIR_K];
    double beta;
    uint32_t *z0, *n0; /* the state's z and n[m,k] */
    uint32_t n_wk[PAIR_V * PAIR_K], n_k[PAIR_K];
    size_t p0, p1;
} pair_state;

void pair_state_make(pair_state *ps);
void pair_state_free(pair_state *ps);

/* `samples` passes from the state, each with its own iteration's uniforms, drawn by
 * lda_cpu_sample_z with `in` (its n_mk is set here); asserts a chi-squared test of the pair's
 * topics against prob (PAIR_K² cells, x × PAIR_K + y) at significance 0.001. */
void pair_chi_squared(const pair_state *ps, lda_pool *pool, lda_zdraw *in, const double *prob, uint32_t samples);

/* One token T of a rare word in a state of real weights: 32 documents over 3 words, T the first
 * token of slot 0 (word 0, three more tokens in other documents; its document four tokens), so
 * T is the first of its block's first run of one word; z at random but z[T] = 0; the counts of z
 * (T in them) and α_k = 0.05 + 0.3 (k mod 4), β = 0.2. p is T's exact conditional with T off
 * every count; p_word_with_T the same with n[w,k] and n[k] holding T (only n[m,k] without it). */
#define RARE_K 10u
#define RARE_V 3u
typedef struct {
    corpus *c;
    lda_layout *L;
    size_t pT;
    float alpha[RARE_K];
    double beta;
    uint32_t *z, *n; /* n[m,k] */
    uint32_t n_wk[RARE_V * RARE_K], n_k[RARE_K];
    double p[RARE_K], p_word_with_T[RARE_K];
} rare_state;

void rare_state_make(rare_state *rs);
void rare_state_free(rare_state *rs);

/* A small integer-weight state: 150 documents of 1 to 120 tokens over 37 words (a third of the
 * tokens repeating the word before them), integer α_k in 1..3, β = INT_BETA and fixed integer
 * scales in 1..3 in place of 1 / (n[k] + Vβ), so every weight and sum is an exact integer;
 * random z, and its counts. */
#define INT_BETA 2.0
typedef struct {
    corpus *c;
    lda_layout *L;
    uint32_t K;
    float *alpha;
    double *scale;
    uint32_t *z, *n, *n_wk, *n_k;
} int_state;

void int_state_make(int_state *st, uint32_t K, uint32_t piece_length);
/* z drawn again so that each word's tokens have one of `topics` topics (from word w's w·5 on,
 * modulo K), and its counts: words of few topics in documents of many, where alias sums the
 * document part over the word's topics (lda_alias_word_side). */
void int_state_few_word_topics(int_state *st, uint32_t topics);
void int_state_free(int_state *st);

/* The K the exact tests run at: one, two, either side of a warp, and large. */
#define EXACT_KS {1, 2, 31, 32, 33, 100, 1024, 4096}

/* Same seed, 1, 2 and 3 threads: identical θ, φ and z after 5 iterations of the collapsed model
 * drawn by `sampler` on L at K, with --refresh 1 and 2; the plan's line must hold `plan`. */
void same_model_for_any_thread_count(const lda_layout *L, uint32_t K, lda_sampler sampler, const char *plan);

/* The alias draw restated plainly for a token of word w (the tests of alias and mh): target u ·
 * (D + the word's and the smoothing's totals), with D the document part whose running sums over
 * all K topics are cum; in D the linear search of cum, else the word's table or the smoothing's
 * drawn with the token's other two random words. *from_tables (may be NULL): which it was. */
uint32_t alias_draw_restated(const lda_alias_sampler *s, uint32_t w, const double *cum, double D, lda_u32x4 bits,
                             int *from_tables);

/* One token as alias's walk meets it, for a pass restated plainly (the tests of alias and mh). */
typedef struct {
    uint32_t w, old;    /* its word; its topic before the pass */
    const uint32_t *nw; /* the word's n[w,k] at the pass's start */
    uint32_t *row;      /* its slot's restated n[m,k], its own topic already taken off */
    lda_u32x4 bits;     /* its random words (block 0 of its stream) */
    uint64_t seed, token; /* its stream: the corpus-order index */
    uint32_t iteration;
    /* its slot's tokens, its document's, its document's topics with a count at the pass's start
     * and now, the token's included (what lda_alias_word_side_doc and lda_alias_word_side read) */
    uint32_t slot_tokens, doc_tokens, start_topics, doc_topics;
} alias_walk_token;

/* Part in->part of pass in->iteration drawn by the sampler on st (its counts made from st->z
 * first), and restated: alias's blocks in their order, for each run of one word run_begin(ctx, w),
 * then each of the run's tokens draw(ctx, t), whose topic goes into the restated counts en and
 * topics ez; the pass's z and n[m,k] must equal them. Returns the tokens whose topic changed. */
size_t alias_pass_restated(lda_pool *pool, int_state *st, lda_zdraw *in, const lda_alias_sampler *s, uint32_t *en,
                           uint32_t *ez, void (*run_begin)(void *ctx, uint32_t w),
                           uint32_t (*draw)(void *ctx, const alias_walk_token *t), void *ctx);

/* A pass's z and n[m,k] equal the restatement's (ez, en); `what` names the pass in a failure. */
void expect_same_pass(const lda_layout *L, uint32_t K, const uint32_t *z, const uint32_t *ez, const uint32_t *n,
                      const uint32_t *en, const char *what);

/* same_model_for_any_thread_count for alias's walk (alias, mh) over more than three blocks of
 * LDA_ZPLAN_MH_BLOCK_WARPS warps (mh's; alias's are shares of the tokens, more than three for
 * any thread count), with documents cut into pieces. */
void same_model_over_blocks(lda_sampler sampler, const char *plan);

/* A sampler of the collapsed model that runs on the CPU only (alias, mh, sparselda): the θ-collapsed model
 * and the GPU plan refuse it in one line naming it, documents are drawn whole, --device auto
 * resolves to the CPU; through the program, another model is refused (exit 2) and a run with
 * --holdout records the sampler in model.conf. */
/* *collapsed: its CPU plan for the collapsed model, for the caller's own checks. */
void cpu_only_sampler_refusals(lda_sampler sampler, lda_zplan *collapsed);

#endif
