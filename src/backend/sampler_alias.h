/* sampler_alias.h — --sampler alias: the collapsed model's draw on the CPU, word by word, with
 * the word side in alias tables.
 *
 * In the collapsed model the word–topic counts n[w,k] and n[k] are those of the pass's start,
 * fixed for the whole pass (docs/samplers.md); only a document's own counts move token by
 * token. A token of word w in document m whose topic is s has its own topic taken off every
 * count: n[m,k] as it moves, n[w,s] and n[s] of the pass's start less one. Its weights are
 *   (n[m,k] + α_k) f_k,  f_k = (n[w,k] + β) / (n[k] + Vβ) but f_s = (n[w,s] - 1 + β) / (n[s] - 1 + Vβ),
 * drawn as d_k + a_k + s_k:
 *   d_k = n[m,k] f_k                          (document: its topics, summed a token, f_s included)
 *   a_k = α_k n[w,k] / (n[k] + Vβ)            (word: an alias table over the word's topics)
 *   s_k = α_k β / (n[k] + Vβ)                 (smoothing: one alias table over every topic)
 * The two tables are built once a pass (core/alias.h's lda_alias_cells, exact on integer
 * weights), so a token costs a pass over its document's topics and O(1) for the rest. The CPU
 * backend has them built from z (tables_from_z): each word's topics counted from a copy of z
 * ordered by word, which the draw writes beside z, so n[w,k] is not counted a pass. The
 * token's uniform u (the one every CPU draw uses) picks the bucket, and a topic of d by the
 * running sums of the document's list; two more words of the same Philox block pick a cell and
 * its coin. Sums in double, whatever --precision.
 * The tables hold the token at s, so their α part of s is α_s (n[w,s] + β) / (n[s] + Vβ), more
 * than its α_s f_s (n[w,s] ≤ n[s] and β < Vβ): a table's draw of s is kept with probability
 * f_s / ((n[w,s] + β) / (n[s] + Vβ)), decided by the block's fourth word, and otherwise the
 * whole draw is made again from the next Philox block of the token (block 1, 2, ...):
 * rejection sampling, so the topic drawn has exactly the weights above. The expected draws are
 * 1 / (1 - e / Z), e = α_s ((n[w,s] + β) / (n[s] + Vβ) - f_s) ≤ α_s / (n[s] - 1 + Vβ) against
 * the token's total Z: 0.04-0.06% of tokens were drawn again on wikimix at K = 1024. With one
 * topic (K = 1) the draw keeps it without the test.
 *
 * Since nothing but its own counts changes within a pass, a document's draw depends on no other
 * document's: the documents are drawn in blocks of a share of the tokens a worker
 * (LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER; of a --refresh part, and of at most LDA_ZPLAN_ALIAS_BLOCK_WARPS
 * warps of the layout; which does not change the model), each block's tokens
 * word by word (sorted by word, then by slot and position: the order is made once a run). While
 * a word's tokens of the block are drawn, its factors (n[w,k] + β) / (n[k] + Vβ) are in a K-long
 * row of the worker's (in L1; β / (n[k] + Vβ) at the topics it has no count of, so a run writes
 * and puts back only its own), which the document pass reads instead of gathering n[w,k] from
 * the V × K counts; the block's documents' lists (topic and count) are read in turn. Within a
 * document the tokens are drawn in that fixed order, each seeing every earlier move of its
 * document: exact collapsed Gibbs for the document side, the same model for any number of threads.
 *
 * --sampler mh is the same walk with the word side moving as the tokens do: within a block the
 * word–topic counts n[w,k] and n[k] are those of the pass's start plus every earlier move of the
 * block (and without the token's own topic), as Mallet's threads see theirs (AD-LDA with the
 * blocks as its parts: fixed by the layout, so the same model for any number of threads). The
 * exact conditional with those live counts,
 *   p_k = (n[m,k] + α_k) f_k,  f_k = (n[w,k] + β) / (n[k] + Vβ)  (live),
 * is reached by one Metropolis–Hastings step a token (AliasLDA: Li, Ahmed, Ravi & Smola 2014):
 * the proposal is the alias draw above with the document part summed with the live factors,
 *   q_k = n[m,k] f_k + α_k f⁰_k,  f⁰_k = (n⁰[w,k] + β) / (n⁰[k] + Vβ)  (the pass's start),
 * and a proposed t ≠ s (the token's topic) is taken with probability
 * min(1, p_t q_t(s) Z_s / (p_s q_s(t) Z_t)), decided by the token's fourth random word; else the
 * token keeps s. The pass's tables hold the token at s, so the proposal depends on the state:
 * q_t and its total Z_t are the tables' with the token moved to t (different at s and t only,
 * mh_token in sampler_alias.c). With that the step is reversible with respect to p, the chain's
 * stationary distribution; one step a token is the approximation. q and p differ only in the α
 * part, so nearly every proposal is taken. The live counts are the worker's: K-long rows of the
 * run's word (its counts at the pass's start and now, and f_k) and the block's n[k] and
 * 1 / (n[k] + Vβ). */
#ifndef LDA_SAMPLER_ALIAS_H
#define LDA_SAMPLER_ALIAS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/sampler_cpu.h"
#include "backend/zplan.h"
#include "core/alias.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A token of a block, in the block's order: its slot within the block and its index there. */
typedef struct {
    uint32_t slot, i;
} lda_alias_token;

typedef struct lda_alias_worker lda_alias_worker;

/* What the draw keeps for a run: the pass's tables, and the blocks' orders (made once). */
typedef struct lda_alias_sampler {
    uint32_t V, K, parts, block_warps; /* parts: --refresh */
    int mh;                            /* --sampler mh: the word side live, one Metropolis–Hastings step */
    /* the pass's tables */
    uint64_t *offset;      /* V + 1: word w's cells at [offset[w], offset[w] + len[w]), room min(K, its tokens) */
    uint32_t *len;         /* V */
    double *word_total;    /* V: Σ a_k */
    lda_alias_cell *cells; /* the words' tables */
    uint32_t *word_topic;  /* beside them: each word's topics with a count, increasing, */
    double *word_factor;   /* ... and their (n[w,k] + β) / (n[k] + Vβ) */
    uint32_t *word_count;  /* ... and their n[w,k] */
    uint32_t *n_k;         /* K: n[k] at the pass's start */
    uint64_t *topic_partial; /* workers × K: their shares of n[k], counted from z */
    double *base;          /* K: β / (n[k] + Vβ), the factor of a topic without a count */
    lda_alias_cell *smooth; /* K */
    double smooth_total;
    uint32_t pass;         /* tables built so far (wraps): which a worker's row of β / (n[k] + Vβ) is of */
    double *inv;           /* K: 1 / (n[k] + Vβ), or the fixed scale */
    double *inv_own;       /* K: 1 / (n[k] - 1 + Vβ), or the fixed scale: a token's own topic */
    double beta;           /* the pass's β */
    double *weights;       /* K a worker: the tables' build */
    uint32_t *ids, *work;  /* K a worker (ids: the smoothing's topics) */
    /* the blocks: block b covers warps (block_j0[b] .. block_end[b] - 1) × parts + part of its part,
     * at most block_warps of them (form_blocks in sampler_alias.c) */
    size_t num_blocks;
    size_t *part_block;    /* parts + 1: part c's blocks are [part_block[c], part_block[c + 1]) */
    size_t *block_j0;      /* num_blocks */
    size_t *block_end;     /* num_blocks */
    uint64_t *block_token; /* num_blocks + 1: a block's tokens in `tokens` */
    uint64_t *block_run;   /* num_blocks + 1: its runs of one word in run_word / run_len */
    lda_alias_token *tokens;
    /* z by word (tables_from_z): each word's tokens at [word_zw[w], word_zw[w + 1]), run r's at
     * run_zw[r] in its order; the draws write it beside z, current once lda_alias_z_set gave it */
    uint32_t *zw;
    uint64_t *word_zw, *run_zw;
    int zw_current;
    uint32_t *run_word, *run_len;
    uint64_t list_room;    /* the most list entries a block's documents need */
    int workers;
    lda_alias_worker *worker;
} lda_alias_sampler;

/* What a pass reads beside lda_zdraw (sampler_cpu.h). */
typedef struct lda_alias_in {
    lda_alias_sampler *state;
    const uint32_t *n_wk; /* V × K at the pass's start (every token's: a shard's totals) */
    const uint32_t *n_k;  /* K */
    double beta;
    /* NULL: 1 / (n[k] + Vβ). Else K fixed reals in its place (and in 1 / (n[k] - 1 + Vβ)'s): the
     * tests' integer weights. */
    const double *fixed_scale;
    /* Where set, the tables are made from z instead, each word's tokens' topics counted (n_wk and
     * n_k not read), so that the CPU backend need not count n[w,k] a pass (backend_cpu.c): from
     * z's copy by word, given by lda_alias_z_set and kept by the draws since. */
    int tables_from_z;
} lda_alias_in;

/* Where a token's document part is summed over its word's topics instead of its document's
 * (alias, not mh). Its part n[m,k] f_k is then split as
 *   n[m,k] n[w,k] / (n[k] + Vβ)   over the word's topics, the document's counts read from its row,
 *   β n[m,k] / (n[k] + Vβ)        over the document's, whose total is kept as its counts move,
 * (the token off its own topic in both, as above), searched in that order: on wikimix at K = 100
 * a token's word had 15 topics and its document 52 (token-weighted means after 200 iterations).
 * The document's row of n[m,k] is then kept as its list moves, two writes a move, which cost
 * more than they saved where few tokens take the word side (docs/samplers.md): so a document
 * keeps it (lda_alias_word_side_doc) at K ≤ LDA_ALIAS_WORD_SIDE_MAX_K (at K = 1024, where a row
 * is 4 KiB, wikimix took 3-4% longer an iteration with it), whole (not a piece), of at least
 * LDA_ALIAS_WORD_SIDE_TOKENS tokens and listing at least LDA_ALIAS_WORD_SIDE_TOPICS topics at its
 * block's start; and a token of such a document takes the word side (lda_alias_word_side) where
 * its document lists more than twice as many topics as its word has in the tables. */
#define LDA_ALIAS_WORD_SIDE_MAX_K 256u
#define LDA_ALIAS_WORD_SIDE_TOKENS 64u
#define LDA_ALIAS_WORD_SIDE_TOPICS 32u
static inline int lda_alias_word_side_doc(uint32_t K, uint32_t slot_tokens, uint32_t doc_tokens, uint32_t start_topics)
{
    return K <= LDA_ALIAS_WORD_SIDE_MAX_K && slot_tokens == doc_tokens && slot_tokens >= LDA_ALIAS_WORD_SIDE_TOKENS &&
           start_topics >= LDA_ALIAS_WORD_SIDE_TOPICS;
}
static inline int lda_alias_word_side(uint32_t doc_topics, uint32_t word_topics)
{
    return 2 * (uint64_t)word_topics < doc_topics;
}

/* z, of every --refresh part, as it is now (a start, a resume): the copy by word the tables
 * read where tables_from_z. */
void lda_alias_z_set(lda_alias_sampler *s, const lda_layout *L, const uint32_t *z);

/* The state for L at K, its blocks made for `parts` --refresh parts, one worker's scratch for each
 * of `threads`, drawing as --sampler mh where `mh`; -1 with err when out of memory. */
int lda_alias_create(const lda_layout *L, uint32_t K, uint32_t parts, int threads, int mh, lda_alias_sampler *s,
                     lda_error *err);
void lda_alias_free(lda_alias_sampler *s);

/* Bytes lda_alias_create allocates (the run's memory plan). */
uint64_t lda_alias_bytes(const lda_layout *L, uint32_t K, int threads);

/* The pass's tables from in's counts or z (lda_cpu_sample_z_alias builds them first; the tests
 * read them). -1 with err where a word has more topics than its room (counts not its corpus's). */
int lda_alias_tables(lda_pool *pool, const lda_zdraw *in, lda_error *err);

/* The z draw of lda_cpu_sample_z with in->alias set (the collapsed model): z and the rows
 * n[m,k] updated in place; n[w,k] and n[k] are read, not written (the caller counts again). */
int lda_cpu_sample_z_alias(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
