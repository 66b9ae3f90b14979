/* sampler_sparse.c — the sparse z draw on the CPU; see sampler_sparse.h. The draw of a
 * document is core/sparse_draw.h's, which the GPU runs too; this file spreads documents over
 * threads (one task per warp of the layout, as the dense draw) and builds the word tables. */
#include "backend/sampler_sparse.h"

#include <stdlib.h>
#include <string.h>

#include "core/phi_mean.h"
#include "core/sparse_draw.h"

/* Words a task of the table build: enough work to amortize claiming it. */
#define TABLE_WORDS_A_TASK 64

typedef struct {
    const lda_zdraw *in;
    size_t V;
    void *table;
} table_ctx;

typedef struct {
    const lda_layout *layout;
    const lda_zdraw *in;
    uint32_t *z;
    size_t part_count;
    uint32_t *lists; /* K topics a worker: a document's list never has more */
    double *sums;    /* 2 K running sums a worker (doubles: room for either precision; sparse_draw.h) */
} sparse_ctx;

static size_t real_bytes(lda_precision precision)
{
    return precision == LDA_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
}

static void table_words(void *vctx, size_t task, int worker)
{
    (void)worker;
    const table_ctx *c = vctx;
    const uint32_t K = c->in->K, blocks = lda_sparse_blocks(K);
    const size_t w_end = (task + 1) * TABLE_WORDS_A_TASK < c->V ? (task + 1) * TABLE_WORDS_A_TASK : c->V;
    for (size_t w = task * TABLE_WORDS_A_TASK; w < w_end; w++) {
        if (c->in->precision == LDA_PRECISION_DOUBLE)
            lda_sparse_table_row_double(c->in->alpha, c->in->phi + w * K, K, (double *)c->table + w * blocks);
        else
            lda_sparse_table_row_float(c->in->alpha, c->in->phi + w * K, K, (float *)c->table + w * blocks);
    }
}

static void sample_warp(void *vctx, size_t q, int worker)
{
    const sparse_ctx *c = vctx;
    const lda_layout *L = c->layout;
    const lda_zdraw *in = c->in;
    q = q * c->part_count + in->part; /* the task's warp within this part */
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        const size_t s = q * LDA_WARP + r;
        const lda_sparse_doc d = {.words = L->words,
                                  .z = c->z,
                                  .base = lda_layout_pos(L, s, 0),
                                  .stride = LDA_WARP,
                                  .len = L->slot_len[s],
                                  .from_row = L->slot_len[s] < L->slot_doc_len[s] || L->slot_len[s] >= in->K,
                                  .token_base = L->slot_token_base[s],
                                  .n = in->n_mk + s * in->K,
                                  .topics = c->lists + (size_t)worker * in->K,
                                  .sums = c->sums + (size_t)worker * 2 * in->K,
                                  .phi = in->phi,
                                  .alpha = in->alpha,
                                  .table = in->word_prior,
                                  .K = in->K,
                                  .seed = in->seed,
                                  .iteration = in->iteration,
                                  .word_side = in->word_side};
        if (in->precision == LDA_PRECISION_DOUBLE)
            lda_sparse_draw_doc_double(&d);
        else
            lda_sparse_draw_doc_float(&d);
    }
}

static uint64_t list_capacity(const lda_layout *L, uint32_t K, size_t s)
{
    return lda_sparse_list_capacity(K, L->slot_len[s], L->slot_doc_len[s]);
}

void lda_sparse_list_offsets(const lda_layout *L, uint32_t K, uint64_t *offsets)
{
    offsets[0] = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        offsets[s + 1] = offsets[s] + list_capacity(L, K, s);
}

/* Each part rounded up to 256 bytes, the alignment of a cudaMalloc. */
static size_t aligned(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

void lda_sparse_word_tokens(const lda_layout *L, uint64_t *tokens)
{
    for (size_t w = 0; w < L->vocab_size; w++)
        tokens[w] = L->corpus_word_tokens ? L->corpus_word_tokens[w] : 0;
    if (L->corpus_word_tokens)
        return;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            tokens[L->words[lda_layout_pos(L, s, i)]]++;
}

void lda_sparse_word_list_offsets(const lda_layout *L, uint32_t K, lda_word_lists word_lists, uint32_t most,
                                  uint64_t *offsets)
{
    /* the tokens counted into offsets[1 ..], then summed in place */
    offsets[0] = 0;
    if (word_lists == LDA_WORD_LISTS_BY_TOKENS)
        lda_sparse_word_tokens(L, offsets + 1);
    const uint64_t by_tokens_most = most < K ? most : K;
    for (size_t w = 0; w < L->vocab_size; w++) {
        const uint64_t room = word_lists == LDA_WORD_LISTS_NONE        ? 0
                              : word_lists == LDA_WORD_LISTS_WHOLE_ROWS ? K
                              : offsets[w + 1] < by_tokens_most         ? offsets[w + 1]
                                                                        : by_tokens_most;
        offsets[w + 1] = offsets[w] + room;
    }
}

void lda_sparse_scratch_plan(const lda_layout *L, uint32_t K, lda_precision precision, lda_word_lists word_lists,
                             uint32_t word_most, lda_sparse_scratch *out)
{
    uint64_t entries = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        entries += list_capacity(L, K, s);
    out->table_bytes = lda_word_prior_prefix_bytes(L->vocab_size, K, precision);
    out->offsets_at = aligned(out->table_bytes);
    out->lists_at = out->offsets_at + aligned((L->num_slots + 1) * sizeof(uint64_t));
    out->counts_at = out->lists_at + aligned(entries * sizeof(uint32_t));
    out->lengths_at = out->counts_at + aligned(entries * sizeof(uint32_t));
    out->total_bytes = out->lengths_at + aligned(L->num_slots * sizeof(uint32_t));
    out->word_offsets_at = out->word_topics_at = out->word_counts_at = out->word_lengths_at = 0;
    if (word_lists == LDA_WORD_LISTS_NONE)
        return;
    uint64_t word_entries = 0;
    if (word_lists == LDA_WORD_LISTS_WHOLE_ROWS)
        word_entries = (uint64_t)L->vocab_size * K;
    else { /* Σ_w min(K, its tokens), without an array of V */
        uint64_t *offsets = malloc((L->vocab_size + 1) * sizeof *offsets);
        if (offsets) {
            lda_sparse_word_list_offsets(L, K, word_lists, word_most, offsets);
            word_entries = offsets[L->vocab_size];
        } else /* the most it can be */
            word_entries = L->num_tokens;
        free(offsets);
    }
    out->word_offsets_at = out->total_bytes;
    out->word_topics_at = out->word_offsets_at + aligned((L->vocab_size + 1) * sizeof(uint64_t));
    out->word_counts_at = out->word_topics_at + aligned(word_entries * sizeof(uint32_t));
    out->word_lengths_at = out->word_counts_at + aligned(word_entries * sizeof(uint32_t));
    out->total_bytes = out->word_lengths_at + aligned(L->vocab_size * sizeof(uint32_t));
}

size_t lda_word_prior_prefix_bytes(uint32_t V, uint32_t K, lda_precision precision)
{
    return (size_t)V * lda_sparse_blocks(K) * real_bytes(precision);
}

void lda_cpu_word_prior_prefix(lda_pool *pool, uint32_t V, const lda_zdraw *in, void *table)
{
    table_ctx c = {in, V, table};
    lda_pool_run(pool, (V + TABLE_WORDS_A_TASK - 1) / TABLE_WORDS_A_TASK, table_words, &c);
}

int lda_cpu_sample_z_sparse(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err)
{
    sparse_ctx c = {L, in, z, in->part_count ? in->part_count : 1, NULL, NULL};
    const size_t warps = lda_part_warps(L->num_warps, in->part, (uint32_t)c.part_count);
    if (warps == 0)
        return 0;
    if (!in->n_mk || !in->word_prior) {
        lda_error_fail(err, "internal error: the sparse draw needs θ-collapsed counts and the word tables");
        return -1;
    }
    const size_t room = (size_t)lda_pool_threads(pool) * in->K;
    if (!(c.lists = lda_malloc_array(room, sizeof(uint32_t), "the sparse draw's lists", err)) ||
        !(c.sums = lda_malloc_array(2 * room, sizeof(double), "the sparse draw's sums", err))) {
        free(c.lists);
        return -1;
    }
    lda_pool_run(pool, warps, sample_warp, &c);
    free(c.lists);
    free(c.sums);
    return 0;
}

int lda_cpu_word_side_create(const lda_layout *L, uint32_t K, uint32_t quarters, lda_cpu_word_side *ws,
                             lda_error *err)
{
    memset(ws, 0, sizeof *ws);
    if (!(ws->offset = lda_malloc_array((size_t)L->vocab_size + 1, sizeof *ws->offset, "the word side's lists", err)))
        return -1;
    lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, K, ws->offset);
    if (!(ws->topics = lda_malloc_array(ws->offset[L->vocab_size] + 1, sizeof *ws->topics, "the word side's lists", err)) ||
        !(ws->len = lda_malloc_array((size_t)L->vocab_size + 1, sizeof *ws->len, "the word side's lists", err)) ||
        !(ws->excess = lda_malloc_array(ws->offset[L->vocab_size] + 1, sizeof *ws->excess, "the word side's lists", err)) ||
        !(ws->floor = lda_malloc_array(K, sizeof *ws->floor, "the word side's floor", err))) {
        lda_cpu_word_side_free(ws);
        return -1;
    }
    ws->view = (lda_sparse_word_side){ws->offset, ws->topics, ws->len, ws->excess, ws->floor, quarters};
    return 0;
}

typedef struct {
    size_t V;
    uint32_t K;
    const uint32_t *n_wk;
    const float *phi;
    lda_cpu_word_side *ws;
} word_side_ctx;

static void word_side_words(void *vctx, size_t task, int worker)
{
    (void)worker;
    const word_side_ctx *c = vctx;
    const size_t w_end = (task + 1) * TABLE_WORDS_A_TASK < c->V ? (task + 1) * TABLE_WORDS_A_TASK : c->V;
    for (size_t w = task * TABLE_WORDS_A_TASK; w < w_end; w++) {
        const uint32_t *n = c->n_wk + w * c->K;
        const float *ph = c->phi + w * c->K;
        uint32_t *topics = c->ws->topics + c->ws->offset[w];
        float *excess = c->ws->excess + c->ws->offset[w];
        const uint64_t room = c->ws->offset[w + 1] - c->ws->offset[w];
        uint32_t m = 0;
        for (uint32_t k = 0; k < c->K; k++)
            if (n[k]) {
                if (m < room) {
                    topics[m] = k;
                    excess[m] = lda_sparse_add_float(ph[k], -c->ws->floor[k]);
                }
                m++;
            }
        c->ws->len[w] = m <= room ? m : LDA_SPARSE_WORD_UNLISTED;
    }
}

void lda_cpu_word_side_build(lda_pool *pool, uint32_t V, uint32_t K, const uint32_t *n_wk, const uint32_t *n_k,
                             double beta, const float *phi, lda_cpu_word_side *ws)
{
    for (uint32_t k = 0; k < K; k++)
        ws->floor[k] = lda_phi_mean_value(0, (float)beta, lda_phi_mean_scale(n_k[k], V, beta));
    word_side_ctx c = {V, K, n_wk, phi, ws};
    lda_pool_run(pool, (V + TABLE_WORDS_A_TASK - 1) / TABLE_WORDS_A_TASK, word_side_words, &c);
}

void lda_cpu_word_side_free(lda_cpu_word_side *ws)
{
    free(ws->offset);
    free(ws->topics);
    free(ws->len);
    free(ws->excess);
    free(ws->floor);
    memset(ws, 0, sizeof *ws);
}
