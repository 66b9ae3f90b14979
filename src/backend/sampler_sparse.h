/* sampler_sparse.h — the sparse z draw (--sampler sparse) on the CPU: θ collapsed, work per
 * token growing with the topics of its document, not with K (SaberLDA, seed 003). The draw
 * of a document, and the word tables it searches, are core/sparse_draw.h's, shared with the
 * GPU's kernel (cuda/zsample_sparse.cuh), which is checked against this. */
#ifndef LDA_SAMPLER_SPARSE_H
#define LDA_SAMPLER_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/sampler_cpu.h"
#include "core/sparse_draw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the dense part's table (V × ceil(K/16) reals of the draw's precision). */
size_t lda_word_prior_prefix_bytes(uint32_t V, uint32_t K, lda_precision precision);

/* For every word w < V, the prefix sums Σ_{j<=k} α_j φ[w,j] (left to right in the precision
 * of `in`, from in->alpha and in->phi) at the last topic k of each block of 16: the draw
 * searches the blocks, then forms the block's sums again by the same additions. */
void lda_cpu_word_prior_prefix(lda_pool *pool, uint32_t V, const lda_zdraw *in, void *table);

/* The z draw of lda_cpu_sample_z (θ collapsed: in->n_mk set) with the split; in->word_prior
 * must hold lda_cpu_word_prior_prefix of the same φ and α. */
int lda_cpu_sample_z_sparse(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err);

/* The word side of the collapsed model's draw on the CPU (core/sparse_draw.h,
 * lda_sparse_word_side): each word's topics with n[w,k] > 0, increasing, with room for
 * min(K, its tokens) (lda_sparse_word_list_offsets; a word with more is not listed and goes by
 * the document's list), and the floor f_k, formed as the φ of a zero count from the counts and
 * β φ's mean is formed from (core/phi_mean.h). */
typedef struct {
    lda_sparse_word_side view; /* what the draw reads (lda_zdraw.word_side) */
    uint64_t *offset;          /* V + 1 */
    uint32_t *topics, *len;
    float *excess;             /* beside topics: φ[w,k] − f_k */
    float *floor;              /* K */
} lda_cpu_word_side;

/* Room for L's words at K; quarters as lda_sparse_word_side's. -1 with err when out of memory. */
int lda_cpu_word_side_create(const lda_layout *L, uint32_t K, uint32_t quarters, lda_cpu_word_side *ws,
                             lda_error *err);

/* The lists, floor and excesses of φ (V × K), the mean of the counts n_wk (V × K) and n_k with
 * beta. */
void lda_cpu_word_side_build(lda_pool *pool, uint32_t V, uint32_t K, const uint32_t *n_wk, const uint32_t *n_k,
                             double beta, const float *phi, lda_cpu_word_side *ws);

void lda_cpu_word_side_free(lda_cpu_word_side *ws);

/* Where the GPU's sparse draw keeps its tables in the plan's scratch (zplan.h): the word
 * tables, then each slot's list offset (num_slots + 1 uint64), then the lists' topics and
 * their counts (uint32 each, at the same offsets), then each list's length (num_slots
 * uint32). The lists are the document–topic counts n[m,k] on the device: no D × K array.
 * With word lists (the collapsed model's long lists' draw, zplan.h), then each word's list
 * offset (V + 1 uint64), its topics and counts n[w,k] (uint32 each), and its length (V uint32):
 * the non-zero n[w,k] of each word, which the draw reads in step with a document's list
 * instead of gathering n[w,k] from the V × K counts (cuda/word_lists.cuh). */
typedef struct {
    size_t table_bytes;
    size_t offsets_at, lists_at, counts_at, lengths_at; /* byte offsets into the scratch */
    size_t word_offsets_at, word_topics_at, word_counts_at, word_lengths_at; /* word lists (0: none) */
    size_t total_bytes;
} lda_sparse_scratch;

/* The room of each word's list: none (no word lists), min(K, the word's tokens) (the
 * non-zero counts of a model whose counts are its corpus's), or K (any counts: the tests'). */
typedef enum { LDA_WORD_LISTS_NONE, LDA_WORD_LISTS_BY_TOKENS, LDA_WORD_LISTS_WHOLE_ROWS } lda_word_lists;

/* word_most: the most a word's list holds (lda_sparse_word_list_offsets). */
void lda_sparse_scratch_plan(const lda_layout *L, uint32_t K, lda_precision precision, lda_word_lists word_lists,
                             uint32_t word_most, lda_sparse_scratch *out);

/* Each word's tokens in L (every slot's, once), w < V; a shard's, the whole layout's
 * (layout.h, corpus_word_tokens). */
void lda_sparse_word_tokens(const lda_layout *L, uint64_t *tokens);

/* offsets[w] = Σ_{v<w} the room of word v's list (lda_word_lists), for w = 0 .. V: word w's
 * list is at offsets[w] .. offsets[w + 1]. By tokens, a list holds at most `most` topics (K: every
 * word's; the GPU's draw: the longest list it reads, zplan.h word_list_room): a word with more
 * non-zero counts is not listed, and goes by the document's list. */
void lda_sparse_word_list_offsets(const lda_layout *L, uint32_t K, lda_word_lists word_lists, uint32_t most,
                                  uint64_t *offsets);

/* offsets[s] = Σ_{t<s} lda_sparse_list_capacity of slot t (core/sparse_draw.h), for
 * s = 0 .. num_slots: slot s's list is lists[offsets[s] .. offsets[s+1]). */
void lda_sparse_list_offsets(const lda_layout *L, uint32_t K, uint64_t *offsets);

#ifdef __cplusplus
}
#endif

#endif
