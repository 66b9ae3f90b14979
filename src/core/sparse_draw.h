/* sparse_draw.h — the sparse z draw of one document (--sampler sparse): the CPU's
 * (backend/sampler_sparse.c), and the definition the GPU's kernels follow: its word tables
 * (cuda/sparse_table.cuh) are lda_sparse_table_row's additions in the same order, to the bit;
 * its draws (cuda/zsample_sparse.cuh, a warp a document) are these wherever the sums are exact
 * (integer weights). (Run a document a thread on the GPU, this
 * code took 22.9 ms an iteration on wiki43k at K = 1024 on the H100; the warp kernel 3.4.)
 *
 * With θ collapsed a token of word w in document m has weights (n[m,k] + α_k) φ[w,k], which
 * split into a document-sparse part s_k = n[m,k] φ[w,k], non-zero only for the document's
 * topics, and a dense part q_k = α_k φ[w,k] that depends on the word alone. With S = Σ s_k
 * and Q = Σ q_k, the token's uniform u gives the target t = u (S + Q) (clamped below the
 * total, search.h); t < S picks the first listed topic, in the lanes' order below, whose
 * running sum exceeds t, otherwise t − S is searched in the word's prefix sums of q. Same
 * distribution as the dense draw, with work per token growing with the document's topics,
 * not with K (but for the O(log K) search).
 *
 * The lanes' order: list entry j belongs to lane j mod LDA_SPARSE_LANES, and the running sums
 * go lane by lane, each lane's entries in list order (for lists of up to 32 topics, the list's
 * own order). It is the GPU's order: each lane of a warp adds its own entries with no
 * exchange between lanes, and one prefix sum over the 32 lanes' totals finds the lane to
 * search (a document of thousands of tokens lists hundreds of topics, and a prefix sum over
 * the warp for every 32 of them cost wikimix most of its time).
 *
 * The word's prefix sums are kept only at the end of each block of LDA_SPARSE_BLOCK topics
 * (a table 1/16 of φ's size, built once per φ): the search finds the block, then forms the
 * block's sums again from the end of the one before by the same additions, so the topic is
 * the one a search of the full prefix sums finds.
 *
 * The document's topics are a sorted list beside its row of n[m,k]: those with a count when
 * its draw begins, plus each topic drawn that was not listed. A topic whose count falls to
 * zero stays listed until the document is done: its weight is exactly zero, so it is never
 * drawn. The list of a document holds at most min(K, its tokens + its document's tokens)
 * topics (lda_sparse_list_capacity). (The GPU keeps no row: its list carries each topic's
 * count, and is compacted when the document is done, which makes it this list at the next
 * draw; cuda/count_lists.cuh.)
 *
 * Products and sums are rounded separately (no fused multiply-add on the GPU), in REAL. */
#ifndef LDA_SPARSE_DRAW_H
#define LDA_SPARSE_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"
#include "core/rng.h"
#include "core/search.h"

#define LDA_SPARSE_BLOCK 16u
#define LDA_SPARSE_LANES 32u /* the GPU's warp: the order of the document part's running sums */

/* A token of the same word as the one before it in its slot (a bag-of-words corpus lists a
 * document's tokens word by word: half of wikimix's long documents' tokens) finds the entries'
 * weights and the lanes' totals standing but for the previous token's new topic and its own
 * old one: on lists longer than this they are carried, those two entries changed, rather than
 * formed again (a search for each entry against a pass over the list). The totals are then
 * associated otherwise; exact where the weights are integers. The GPU's long lists'
 * compilation does the same (cuda/zsample_sparse.cuh). */
#define LDA_SPARSE_REUSE_AFTER 64u

/* The word side (the CPU's draw of the collapsed model, whose φ is the mean of the counts,
 * core/phi_mean.h): φ[w,k] = f_k + e[w,k], with f_k the φ of a zero count (the floor) and
 * e[w,k] = φ[w,k] − f_k non-zero only on the word's topics (those with n[w,k] > 0). The
 * document part then splits into E = Σ over the word's topics of n[m,k] e[w,k], and
 * F = Σ over the document's of n[m,k] f_k, which depends on the document alone and is kept as
 * its counts move (f of the old topic taken off, of the new one added). A token whose word
 * lists few topics beside its document's (lda_sparse_word_side_applies) sums E over the word's
 * list, reading e from it and n[m,k] from the document's row, instead of gathering φ[w,k] for
 * every topic of the document's list (cache misses on φ's rows were most of the CPU's time):
 * in wikimix's long documents most words are rare, and at K = 1024 the first tokens of runs
 * take 8 times fewer passes of 32 entries (a count over a trained model's z). Along a run of
 * the word E's weights are carried, the two topics that moved changed. The target then falls
 * in E (the word's topic, in the lanes' order over its list), in F (the document's topic, by a
 * pass over its list with weights n[m,k] f_k), or in the word's part; a target where no entry
 * has a weight (a residue of rounding) draws from the word's part from zero. Same
 * distribution; the sums are associated otherwise, so the topics are its plain restatement's
 * where the sums are exact (tests/test_sampler_sparse.c). The GPU's warp does not take it:
 * there it was slower (backend/zplan.h). */
typedef struct lda_sparse_word_side {
    const uint64_t *offset; /* V + 1: word w's topics at topics[offset[w] ..] */
    const uint32_t *topics; /* each word's topics with n[w,k] > 0, increasing */
    const uint32_t *len;    /* V: how many; LDA_SPARSE_WORD_UNLISTED where not listed */
    const float *excess;    /* beside topics: e[w,k] = φ[w,k] − f_k (lda_sparse_add_float) */
    const float *floor;     /* K: f_k */
    uint32_t quarters;      /* lda_sparse_word_side_applies */
} lda_sparse_word_side;

#define LDA_SPARSE_WORD_UNLISTED UINT32_MAX

/* Whether a token of a word listing wlen topics, in a document listing m, is drawn by the word
 * side: its word listed, with at most quarters / 4 times the document's topics (0: never). */
LDA_HD int lda_sparse_word_side_applies(uint32_t wlen, uint32_t quarters, uint32_t m)
{
    return wlen != LDA_SPARSE_WORD_UNLISTED && (uint64_t)wlen * 4 <= (uint64_t)m * quarters;
}

LDA_HD uint32_t lda_sparse_blocks(uint32_t K)
{
    return (K + LDA_SPARSE_BLOCK - 1) / LDA_SPARSE_BLOCK;
}

/* Topics a document's list may need: every topic it starts with has a count (at most its
 * document's tokens), and each of its own tokens may add one. */
LDA_HD uint64_t lda_sparse_list_capacity(uint32_t K, uint32_t len, uint32_t doc_len)
{
    const uint64_t most = (uint64_t)len + doc_len;
    return most < K ? most : K;
}

/* Rounded products and sums, never contracted into a fused multiply-add (which the CPU
 * does not have), so the GPU's sums are the CPU's. */
LDA_HD float lda_sparse_mul_float(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
LDA_HD float lda_sparse_add_float(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
LDA_HD double lda_sparse_mul_double(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
LDA_HD double lda_sparse_add_double(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/* One document's draw: its tokens are at positions base + i * stride (layout.h). */
typedef struct {
    const uint32_t *words;
    uint32_t *z;           /* the previous topics on entry, the new ones on return */
    size_t base, stride;
    uint32_t len;          /* this slot's tokens */
    uint32_t from_row;     /* list the topics from n's row (a piece, whose row holds its whole
                              document's counts, or len >= K), else from the slot's z */
    uint64_t token_base;   /* corpus-order index of its first token: the uniforms' key */
    uint32_t *n;           /* its row of n[m,k], updated token by token */
    uint32_t *topics;      /* room for its list (lda_sparse_list_capacity) */
    void *sums;            /* room for K REALs (2 K with a word side): the list's running sums, or its
                              weights (over 32); the word side's, then its floor pass's */
    const float *phi;      /* V × K */
    const float *alpha;    /* K */
    const void *table;     /* V × lda_sparse_blocks(K) REALs: the word tables */
    uint32_t K;
    uint64_t seed;
    uint32_t iteration;
    const lda_sparse_word_side *word_side; /* NULL: none */
} lda_sparse_doc;

/* Where topic stands in the sorted list of m topics: the first entry not below it. */
LDA_HD uint32_t lda_sparse_list_find(const uint32_t *topics, uint32_t m, uint32_t topic)
{
    uint32_t lo = 0, hi = m;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (topics[mid] < topic)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts topic into the sorted list of m topics unless it is there; returns the length. */
LDA_HD uint32_t lda_sparse_list_insert(uint32_t *topics, uint32_t m, uint32_t topic)
{
    const uint32_t lo = lda_sparse_list_find(topics, m, topic);
    if (lo < m && topics[lo] == topic)
        return m;
    for (uint32_t j = m; j > lo; j--)
        topics[j] = topics[j - 1];
    topics[lo] = topic;
    return m + 1;
}

/* The same for a drawn topic: one with a count is always listed; one without may be (a count
 * fallen to zero). */
LDA_HD uint32_t lda_sparse_list_add(uint32_t *topics, uint32_t m, const uint32_t *n, uint32_t topic)
{
    return n[topic] ? m : lda_sparse_list_insert(topics, m, topic);
}

/* The document's topics when its draw begins, increasing; returns how many. */
LDA_HD uint32_t lda_sparse_list_build(const lda_sparse_doc *d)
{
    uint32_t m = 0;
    if (d->from_row) {
        for (uint32_t k = 0; k < d->K; k++)
            if (d->n[k])
                d->topics[m++] = k;
        return m;
    }
    /* the row is the tally of the slot's own z: its topics are the z's */
    for (uint32_t i = 0; i < d->len; i++)
        m = lda_sparse_list_insert(d->topics, m, d->z[d->base + (size_t)i * d->stride]);
    return m;
}

/* The next token's reads begun while this one is drawn (the CPU's draw; a hint, so the draws
 * are the same): a token of a new word reads its table's last block end and, on the document's
 * path, φ[w,k] for every topic of the list, or, on the word side, the word's list. These rows
 * are spread over V × K floats and missed the cache at most tokens, one miss after another;
 * begun a token early they arrive while the token before is drawn. */
LDA_HD void lda_sparse_prefetch_word(const lda_sparse_doc *d, uint32_t w, const uint32_t *topics, uint32_t m,
                                     size_t real_size)
{
#ifndef __CUDA_ARCH__
    const uint32_t blocks = lda_sparse_blocks(d->K);
    __builtin_prefetch((const char *)d->table + ((size_t)w * blocks + blocks - 1) * real_size);
    const lda_sparse_word_side *ws = d->word_side;
    if (ws && lda_sparse_word_side_applies(ws->len[w], ws->quarters, m)) {
        const uint64_t at = ws->offset[w];
        for (uint32_t j = 0; j < ws->len[w]; j += 16) { /* a 64-byte line of each */
            __builtin_prefetch(ws->topics + at + j);
            __builtin_prefetch(ws->excess + at + j);
        }
        return;
    }
    const float *ph = d->phi + (size_t)w * d->K;
    for (uint32_t j = 0; j < m; j++)
        __builtin_prefetch(ph + topics[j]);
#else
    (void)d, (void)w, (void)topics, (void)m, (void)real_size;
#endif
}

#define LDA_DEFINE_SPARSE_DRAW(REAL, SUFFIX)                                                               \
    /* The block ends of one word's prefix sums of α_k φ[k], left to right. */                              \
    LDA_HD void lda_sparse_table_row_##SUFFIX(const float *alpha, const float *ph, uint32_t K, REAL *out)   \
    {                                                                                                     \
        REAL sum = 0;                                                                                     \
        for (uint32_t k = 0; k < K; k++) {                                                                \
            sum = lda_sparse_add_##SUFFIX(sum, lda_sparse_mul_##SUFFIX((REAL)alpha[k], (REAL)ph[k]));       \
            if (k % LDA_SPARSE_BLOCK == LDA_SPARSE_BLOCK - 1 || k == K - 1)                                 \
                out[k / LDA_SPARSE_BLOCK] = sum;                                                          \
        }                                                                                                 \
    }                                                                                                     \
                                                                                                          \
    /* The smallest k with target < Σ_{j<=k} α_j φ[j], for 0 <= target < the total. */                     \
    LDA_HD uint32_t lda_sparse_search_prior_##SUFFIX(const REAL *block_end, const float *alpha,             \
                                                     const float *ph, uint32_t K, REAL target)            \
    {                                                                                                     \
        const uint32_t b = (uint32_t)lda_binary_search_##SUFFIX(block_end, (int)lda_sparse_blocks(K), target); \
        const uint32_t k0 = b * LDA_SPARSE_BLOCK;                                                         \
        const uint32_t k1 = k0 + LDA_SPARSE_BLOCK < K ? k0 + LDA_SPARSE_BLOCK : K;                         \
        REAL sum = b ? block_end[b - 1] : (REAL)0;                                                        \
        for (uint32_t k = k0; k + 1 < k1; k++) {                                                          \
            sum = lda_sparse_add_##SUFFIX(sum, lda_sparse_mul_##SUFFIX((REAL)alpha[k], (REAL)ph[k]));       \
            if (target < sum)                                                                             \
                return k;                                                                                 \
        }                                                                                                 \
        return k1 - 1;                                                                                    \
    }                                                                                                     \
                                                                                                          \
    /* The entry the target falls in, in the lanes' order: the first lane whose running total   \
     * passes it, then that lane's entries (j ≡ lane mod 32) from the total before it; where     \
     * rounding leaves them short of the target, its last entry with a weight. */               \
    LDA_HD uint32_t lda_sparse_pick_##SUFFIX(const uint32_t *topics, uint32_t m, const REAL *weight,       \
                                             const REAL *lane_total, REAL target)                          \
    {                                                                                                     \
        uint32_t lane = 0;                                                                                \
        while (lane + 1 < LDA_SPARSE_LANES && !(target < lane_total[lane]))                               \
            lane++;                                                                                       \
        REAL run = lane ? lane_total[lane - 1] : (REAL)0;                                                 \
        uint32_t last = topics[lane];                                                                     \
        for (uint32_t j = lane; j < m; j += LDA_SPARSE_LANES) {                                           \
            if (!(weight[j] > 0))                                                                         \
                continue;                                                                                 \
            run = lda_sparse_add_##SUFFIX(run, weight[j]);                                                \
            last = topics[j];                                                                             \
            if (target < run)                                                                             \
                return topics[j];                                                                         \
        }                                                                                                 \
        return last;                                                                                      \
    }                                                                                                     \
                                                                                                          \
    /* A listed topic's count changed (n[topic] is the new one): its entry's weight and its     \
     * lane's total, the old weight taken off and the new added, each rounded. */                 \
    LDA_HD void lda_sparse_moved_##SUFFIX(const uint32_t *topics, uint32_t m, REAL *weight, REAL *lane_sum,   \
                                          const uint32_t *n, const float *ph, uint32_t topic)          \
    {                                                                                                     \
        const uint32_t j = lda_sparse_list_find(topics, m, topic);                                       \
        const REAL now = lda_sparse_mul_##SUFFIX((REAL)n[topic], (REAL)ph[topic]);                        \
        REAL *sum = &lane_sum[j % LDA_SPARSE_LANES];                                                      \
        *sum = lda_sparse_add_##SUFFIX(lda_sparse_add_##SUFFIX(*sum, -weight[j]), now);                   \
        weight[j] = now;                                                                                  \
    }                                                                                                     \
                                                                                                          \
                                                                                                               \
    /* Each lane's total over its entries j ≡ lane (mod 32) of weight[0 .. n), in order, and the               \
     * running totals over the lanes; returns the whole. */                                                    \
    LDA_HD REAL lda_sparse_lanes_##SUFFIX(const REAL *weight, uint32_t n, REAL *lane_sum, REAL *lane_total)    \
    {                                                                                                          \
        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                                        \
            lane_sum[l] = 0;                                                                                   \
        for (uint32_t j = 0; j < n; j++)                                                                       \
            lane_sum[j % LDA_SPARSE_LANES] = lda_sparse_add_##SUFFIX(lane_sum[j % LDA_SPARSE_LANES], weight[j]); \
        REAL total = 0;                                                                                        \
        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                                        \
            lane_total[l] = total = lda_sparse_add_##SUFFIX(total, lane_sum[l]);                               \
        return total;                                                                                          \
    }                                                                                                          \
                                                                                                               \
    /* The entry the target falls in as the GPU's warp finds it: the first lane with a weight                  \
     * whose running total passes the target, else the last lane with a weight; then that                      \
     * lane's entries from the total before it, else its last entry with a weight. Some entry                  \
     * must have one. */                                                                                       \
    LDA_HD uint32_t lda_sparse_pick_weighted_##SUFFIX(const uint32_t *topics, uint32_t n, const REAL *weight,  \
                                                      const REAL *lane_sum, const REAL *lane_total, REAL target) \
    {                                                                                                          \
        uint32_t lane = LDA_SPARSE_LANES, last = 0;                                                            \
        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                                        \
            if (lane_sum[l] > 0) {                                                                             \
                last = l;                                                                                      \
                if (lane == LDA_SPARSE_LANES && target < lane_total[l])                                        \
                    lane = l;                                                                                  \
            }                                                                                                  \
        if (lane == LDA_SPARSE_LANES)                                                                          \
            lane = last;                                                                                       \
        REAL run = lane ? lane_total[lane - 1] : (REAL)0;                                                      \
        uint32_t found = UINT32_MAX;                                                                           \
        for (uint32_t j = lane; j < n; j += LDA_SPARSE_LANES) {                                                \
            if (!(weight[j] > 0))                                                                              \
                continue;                                                                                      \
            run = lda_sparse_add_##SUFFIX(run, weight[j]);                                                     \
            found = j;                                                                                         \
            if (target < run)                                                                                  \
                break;                                                                                         \
        }                                                                                                      \
        return found != UINT32_MAX ? topics[found] : UINT32_MAX;                                               \
    }                                                                                                          \
                                                                                                               \
    /* E's weights n[m,k] e[w,k] over the word's list wt, we (sums[0 .. wlen)), and each lane's                \
     * total (lane_sum). */                                                                                    \
    LDA_HD void lda_sparse_word_weights_##SUFFIX(const uint32_t *wt, const float *we, uint32_t wlen, const uint32_t *n, \
                                                 REAL *sums, REAL *lane_sum)                                   \
    {                                                                                                          \
        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                                        \
            lane_sum[l] = 0;                                                                                   \
        for (uint32_t j = 0; j < wlen; j++) {                                                                  \
            sums[j] = lda_sparse_mul_##SUFFIX((REAL)n[wt[j]], (REAL)we[j]);                                    \
            lane_sum[j % LDA_SPARSE_LANES] = lda_sparse_add_##SUFFIX(lane_sum[j % LDA_SPARSE_LANES], sums[j]); \
        }                                                                                                      \
    }                                                                                                          \
                                                                                                               \
    /* A topic's count moved (n[topic] is the new one): its entry in the word's list, if it has                \
     * one, and its lane's total, as lda_sparse_moved does for the document's list. */                         \
    LDA_HD void lda_sparse_word_moved_##SUFFIX(const uint32_t *wt, const float *we, uint32_t wlen, const uint32_t *n, \
                                               REAL *sums, REAL *lane_sum, uint32_t topic)                     \
    {                                                                                                          \
        const uint32_t j = lda_sparse_list_find(wt, wlen, topic);                                              \
        if (j == wlen || wt[j] != topic)                                                                       \
            return;                                                                                            \
        const REAL now = lda_sparse_mul_##SUFFIX((REAL)n[topic], (REAL)we[j]);                                 \
        REAL *sum = &lane_sum[j % LDA_SPARSE_LANES];                                                           \
        *sum = lda_sparse_add_##SUFFIX(lda_sparse_add_##SUFFIX(*sum, -sums[j]), now);                          \
        sums[j] = now;                                                                                         \
    }                                                                                                          \
                                                                                                               \
    /* A token's draw by the word side (lda_sparse_word_side), E's weights sums[0 .. wlen) and                 \
     * lanes' totals lane_sum standing for n[m,k] with the token taken off; F floor_sum; bits                  \
     * its uniform's; scratch room for m REALs (the floor's pass). A target where no entry has                 \
     * a weight (a residue of rounding) draws from the word's part from zero. */                               \
    LDA_HD uint32_t lda_sparse_word_side_draw_##SUFFIX(const uint32_t *wt, uint32_t wlen, const REAL *sums,    \
                                                       const REAL *lane_sum, const float *floor, const uint32_t *n, \
                                                       const float *ph, const uint32_t *topics, uint32_t m,    \
                                                       REAL floor_sum, const REAL *block_end, const float *alpha, \
                                                       uint32_t K, REAL *scratch, uint32_t bits)               \
    {                                                                                                          \
        REAL lane_total[LDA_SPARSE_LANES], word = 0;                                                           \
        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                                        \
            lane_total[l] = word = lda_sparse_add_##SUFFIX(word, lane_sum[l]);                                 \
        const REAL doc = lda_sparse_add_##SUFFIX(word, floor_sum > 0 ? floor_sum : (REAL)0);                   \
        const REAL dense = block_end[lda_sparse_blocks(K) - 1];                                                \
        const REAL target = lda_scaled_target_##SUFFIX(lda_sparse_add_##SUFFIX(doc, dense), lda_uniform_##SUFFIX(bits)); \
        uint32_t topic = UINT32_MAX;                                                                           \
        REAL t = 0;                                                                                            \
        if (target < word) {                                                                                   \
            topic = lda_sparse_pick_weighted_##SUFFIX(wt, wlen, sums, lane_sum, lane_total, target);           \
        } else if (target < doc) {                                                                             \
            REAL floor_lane[LDA_SPARSE_LANES], floor_total[LDA_SPARSE_LANES];                                  \
            for (uint32_t j = 0; j < m; j++)                                                                   \
                scratch[j] = lda_sparse_mul_##SUFFIX((REAL)n[topics[j]], (REAL)floor[topics[j]]);              \
            if (lda_sparse_lanes_##SUFFIX(scratch, m, floor_lane, floor_total) > 0)                            \
                topic = lda_sparse_pick_weighted_##SUFFIX(topics, m, scratch, floor_lane, floor_total, target - word); \
        } else {                                                                                               \
            t = target - doc; /* kept strictly below Q: rounding may reach it */                               \
            if (!(t < dense))                                                                                  \
                t = lda_below_##SUFFIX(dense);                                                                 \
        }                                                                                                      \
        return topic != UINT32_MAX ? topic : lda_sparse_search_prior_##SUFFIX(block_end, alpha, ph, K, t);     \
    }                                                                                                          \
                                                                                                               \
    /* F of the document's list (lda_sparse_word_side), in the lanes' order. */                                \
    LDA_HD REAL lda_sparse_floor_sum_##SUFFIX(const float *floor, const uint32_t *topics, uint32_t m, const uint32_t *n, \
                                              REAL *scratch)                                                   \
    {                                                                                                          \
        REAL lane_sum[LDA_SPARSE_LANES], lane_total[LDA_SPARSE_LANES];                                         \
        for (uint32_t j = 0; j < m; j++)                                                                       \
            scratch[j] = lda_sparse_mul_##SUFFIX((REAL)n[topics[j]], (REAL)floor[topics[j]]);                  \
        return lda_sparse_lanes_##SUFFIX(scratch, m, lane_sum, lane_total);                                    \
    }                                                                                                          \
                                                                                                          \
    /* Draws every token of the document in order. The fields are read into locals once:                       \
     * the counts are written through a uint32_t pointer, which C lets alias the struct's                      \
     * integers, so the compiler would reload them after every write. */                                       \
    LDA_HD void lda_sparse_draw_doc_##SUFFIX(const lda_sparse_doc *d)                                          \
    {                                                                                                          \
        const uint32_t K = d->K, blocks = lda_sparse_blocks(K), len = d->len, iteration = d->iteration;        \
        const uint32_t *const words = d->words;                                                                \
        uint32_t *const z = d->z, *const n = d->n, *const topics = d->topics;                                  \
        const float *const phi = d->phi, *const alpha = d->alpha;                                              \
        const REAL *const table = (const REAL *)d->table;                                                      \
        REAL *const sums = (REAL *)d->sums;                                                                    \
        const size_t base = d->base, stride = d->stride;                                                       \
        const uint64_t seed = d->seed, token_base = d->token_base;                                             \
        uint32_t m = lda_sparse_list_build(d);                                                                 \
        REAL lane_sum[LDA_SPARSE_LANES];  /* each lane's total over its entries, for word summed */            \
        uint32_t summed = UINT32_MAX;     /* the word sums[] and lane_sum[] stand for (none: UINT32_MAX) */    \
        const lda_sparse_word_side *const ws = d->word_side;                                                   \
        REAL *const scratch = sums + K; /* the word side's floor pass */                                       \
        REAL floor_sum = ws ? lda_sparse_floor_sum_##SUFFIX(ws->floor, topics, m, n, scratch) : (REAL)0; /* F */ \
        REAL word_lane_sum[LDA_SPARSE_LANES]; /* the word side's lanes' totals, for word word_summed */        \
        uint32_t word_summed = UINT32_MAX;                                                                     \
        for (uint32_t i = 0; i < len; i++) {                                                                   \
            const size_t pos = base + (size_t)i * stride;                                                      \
            const uint32_t w = words[pos], old = z[pos];                                                       \
            const float *ph = phi + (size_t)w * K;                                                             \
            const REAL *block_end = table + (size_t)w * blocks;                                                \
            n[old]--;                                                                                          \
            if (ws)                                                                                            \
                floor_sum = lda_sparse_add_##SUFFIX(floor_sum, -(REAL)ws->floor[old]);                         \
            if (i + 1 < len && words[pos + stride] != w) /* the next token's rows (a new word) */          \
                lda_sparse_prefetch_word(d, words[pos + stride], topics, m, sizeof(REAL));                     \
            const uint32_t bits = lda_rng_once(seed, LDA_RNG_Z, iteration, token_base + i);                    \
            uint32_t topic = 0;                                                                                \
            const uint32_t *const wt = ws ? ws->topics + ws->offset[w] : NULL;                                 \
            const float *const we = ws ? ws->excess + ws->offset[w] : NULL;                                    \
            const uint32_t wlen = ws ? ws->len[w] : 0;                                                         \
            if (ws && lda_sparse_word_side_applies(wlen, ws->quarters, m)) {                                      \
                /* sums[] are the word side's now; along a run of its word only the two topics that            \
                 * moved change E's weights (the old one here, the new one below) */                           \
                summed = UINT32_MAX;                                                                           \
                if (word_summed == w)                                                                          \
                    lda_sparse_word_moved_##SUFFIX(wt, we, wlen, n, sums, word_lane_sum, old);                 \
                else                                                                                           \
                    lda_sparse_word_weights_##SUFFIX(wt, we, wlen, n, sums, word_lane_sum);                    \
                word_summed = w;                                                                               \
                topic = lda_sparse_word_side_draw_##SUFFIX(wt, wlen, sums, word_lane_sum, ws->floor, n, ph, topics, m, \
                                                           floor_sum, block_end, alpha, K, scratch, bits);     \
            } else {                                                                                           \
                word_summed = UINT32_MAX;                                                                      \
                /* Up to 32 topics the lanes' order is the list's: running sums, searched. Beyond,             \
                 * each entry's weight and each lane's total in one pass, then the lanes' totals;              \
                 * along a run of one word, only the old topic's entry changed (REUSE_AFTER). */               \
                REAL sparse = 0, lane_total[LDA_SPARSE_LANES];                                                 \
                if (m <= LDA_SPARSE_LANES) {                                                                   \
                    summed = UINT32_MAX;                                                                       \
                    for (uint32_t j = 0; j < m; j++) {                                                         \
                        const uint32_t k = topics[j];                                                          \
                        sparse = lda_sparse_add_##SUFFIX(sparse, lda_sparse_mul_##SUFFIX((REAL)n[k], (REAL)ph[k])); \
                        sums[j] = sparse;                                                                      \
                    }                                                                                          \
                } else {                                                                                       \
                    if (w == summed && m > LDA_SPARSE_REUSE_AFTER) {                                           \
                        lda_sparse_moved_##SUFFIX(topics, m, sums, lane_sum, n, ph, old);                      \
                    } else {                                                                                   \
                        summed = w;                                                                            \
                        for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                        \
                            lane_sum[l] = 0;                                                                   \
                        for (uint32_t j0 = 0; j0 < m; j0 += LDA_SPARSE_LANES)                                  \
                            for (uint32_t j = j0, l = 0; l < LDA_SPARSE_LANES && j < m; j++, l++) {            \
                                const uint32_t k = topics[j];                                                  \
                                sums[j] = lda_sparse_mul_##SUFFIX((REAL)n[k], (REAL)ph[k]);                    \
                                lane_sum[l] = lda_sparse_add_##SUFFIX(lane_sum[l], sums[j]);                   \
                            }                                                                                  \
                    }                                                                                          \
                    for (uint32_t l = 0; l < LDA_SPARSE_LANES; l++)                                            \
                        lane_total[l] = sparse = lda_sparse_add_##SUFFIX(sparse, lane_sum[l]);                 \
                }                                                                                              \
                const REAL dense = block_end[blocks - 1];                                                      \
                const REAL target = lda_scaled_target_##SUFFIX(lda_sparse_add_##SUFFIX(sparse, dense),         \
                                                               lda_uniform_##SUFFIX(bits));                    \
                if (target < sparse) { /* the first running sum beyond the target */                           \
                    topic = m <= LDA_SPARSE_LANES                                                              \
                                ? topics[lda_binary_search_##SUFFIX(sums, (int)m, target)]                     \
                                : lda_sparse_pick_##SUFFIX(topics, m, sums, lane_total, target);               \
                } else {                                                                                       \
                    REAL t = target - sparse; /* kept strictly below Q: rounding may reach it */               \
                    if (!(t < dense))                                                                          \
                        t = lda_below_##SUFFIX(dense);                                                         \
                    topic = lda_sparse_search_prior_##SUFFIX(block_end, alpha, ph, K, t);                      \
                }                                                                                              \
            }                                                                                                  \
            z[pos] = topic;                                                                                    \
            const uint32_t listed = m;                                                                         \
            m = lda_sparse_list_add(topics, m, n, topic);                                                      \
            n[topic]++;                                                                                        \
            if (ws)                                                                                            \
                floor_sum = lda_sparse_add_##SUFFIX(floor_sum, (REAL)ws->floor[topic]);                        \
            if (word_summed == w)                                                                              \
                lda_sparse_word_moved_##SUFFIX(wt, we, wlen, n, sums, word_lane_sum, topic);                   \
            if (m != listed) /* inserted: the entries after it moved to the next lane */                       \
                summed = UINT32_MAX;                                                                           \
            else if (summed == w && m > LDA_SPARSE_REUSE_AFTER)                                                \
                lda_sparse_moved_##SUFFIX(topics, m, sums, lane_sum, n, ph, topic);                            \
        }                                                                                                      \
    }

LDA_DEFINE_SPARSE_DRAW(float, float)
LDA_DEFINE_SPARSE_DRAW(double, double)

#endif
