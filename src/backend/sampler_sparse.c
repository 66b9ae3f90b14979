/* sampler_sparse.c — the sparse z draw on the CPU; see sampler_sparse.h. One task per warp
 * of the layout, as the dense draw; each worker has its own list of a document's topics. */
#include "backend/sampler_sparse.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/search.h"
#include "core/sparse_draw.h"

/* Words a task of the table build: enough work to amortize claiming it. */
#define PREFIX_WORDS_A_TASK 64
/* Topics a block of the word table: the table keeps each block's last prefix sum (a W-ary
 * tree of two levels), so it is 1/PRIOR_BLOCK of φ's size and mostly stays in cache; a
 * block of float weights is one cache line of φ. Any block size draws the same topics. */
#define PRIOR_BLOCK 16u

static uint32_t prior_blocks(uint32_t K)
{
    return (K + PRIOR_BLOCK - 1) / PRIOR_BLOCK;
}

typedef struct {
    const lda_zdraw *in;
    size_t V;
    void *table;
} prefix_ctx;

typedef struct {
    const lda_layout *layout;
    const lda_zdraw *in;
    uint32_t *z;
    size_t part_count;
    unsigned char *scratch; /* per worker: K reals, K topics, K flags */
    size_t scratch_stride;
} sparse_ctx;

typedef struct {
    uint32_t *topics;       /* the document's topics, increasing */
    void *cum;              /* running sums of the sparse part, one per listed topic */
    unsigned char *listed;  /* K flags: the topic is in `topics` (all zero between documents) */
} doc_scratch;

static size_t real_bytes(lda_precision precision)
{
    return precision == LDA_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
}

static doc_scratch worker_scratch(const sparse_ctx *c, int worker)
{
    const size_t K = c->in->K;
    unsigned char *base = c->scratch + (size_t)worker * c->scratch_stride;
    const size_t reals = K * real_bytes(c->in->precision); /* first: aligned as the scratch is */
    doc_scratch d = {(uint32_t *)(base + reals), base, base + reals + K * sizeof(uint32_t)};
    return d;
}

/* Lists the topics with a count in slot s's row, increasing; returns how many. A whole
 * document's row is the tally of its own z, so its topics come from its tokens (O(length),
 * not O(K)); a piece's row holds its whole document's counts, so it is scanned. */
static uint32_t document_topics(const sparse_ctx *c, size_t s, const doc_scratch *d)
{
    const lda_layout *L = c->layout;
    const uint32_t K = c->in->K, len = L->slot_len[s];
    const uint32_t *n = c->in->n_mk + s * K;
    uint32_t m = 0;
    if (len < L->slot_doc_len[s] || len >= K) {
        for (uint32_t k = 0; k < K; k++)
            if (n[k]) {
                d->topics[m++] = k;
                d->listed[k] = 1;
            }
        return m;
    }
    for (uint32_t i = 0; i < len; i++) {
        const uint32_t k = c->z[lda_layout_pos(L, s, i)];
        if (!d->listed[k]) {
            d->listed[k] = 1;
            d->topics[m++] = k;
        }
    }
    for (uint32_t j = 1; j < m; j++) { /* insertion sort: m <= length, usually small */
        const uint32_t k = d->topics[j];
        uint32_t i = j;
        for (; i > 0 && d->topics[i - 1] > k; i--)
            d->topics[i] = d->topics[i - 1];
        d->topics[i] = k;
    }
    return m;
}

#define REAL float
#define SUFFIX float
#include "backend/sampler_sparse_impl.h"
#undef REAL
#undef SUFFIX

#define REAL double
#define SUFFIX double
#include "backend/sampler_sparse_impl.h"
#undef REAL
#undef SUFFIX

size_t lda_word_prior_prefix_bytes(uint32_t V, uint32_t K, lda_precision precision)
{
    return (size_t)V * prior_blocks(K) * real_bytes(precision);
}

void lda_cpu_word_prior_prefix(lda_pool *pool, uint32_t V, const lda_zdraw *in, void *table)
{
    prefix_ctx c = {in, V, table};
    lda_pool_run(pool, (V + PREFIX_WORDS_A_TASK - 1) / PREFIX_WORDS_A_TASK,
                 in->precision == LDA_PRECISION_DOUBLE ? word_prior_blocks_double : word_prior_blocks_float, &c);
}

int lda_cpu_sample_z_sparse(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err)
{
    const int dbl = in->precision == LDA_PRECISION_DOUBLE;
    const size_t K = in->K;
    sparse_ctx c = {L, in, z, in->part_count ? in->part_count : 1, NULL,
                    (K * (real_bytes(in->precision) + sizeof(uint32_t) + 1) + 63) & ~(size_t)63};
    const size_t warps = lda_part_warps(L->num_warps, in->part, (uint32_t)c.part_count);
    if (warps == 0)
        return 0;
    if (!in->n_mk || !in->word_prior) {
        lda_error_fail(err, "internal error: the sparse draw needs θ-collapsed counts and the word prior table");
        return -1;
    }
    if (!(c.scratch = lda_calloc((size_t)lda_pool_threads(pool), c.scratch_stride, "sparse draw lists", err)))
        return -1;
    lda_pool_run(pool, warps, dbl ? sample_warp_sparse_double : sample_warp_sparse_float, &c);
    free(c.scratch);
    return 0;
}
