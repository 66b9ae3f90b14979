/* sampler_alias.c — --sampler alias on the CPU; see sampler_alias.h. A run orders each block's
 * tokens by word once; a pass builds the alias tables from n[w,k] and n[k], then draws the blocks
 * of its --refresh part, one task a block, each block's documents' lists (topic, count) made
 * from their rows at its start and written back at its end. */
#include "backend/sampler_alias.h"

#include <stdlib.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "backend/updates_cpu.h"
#include "core/rng.h"
#include "core/search.h"

/* Words a task of the tables' build: enough work to amortize claiming it. */
#define TABLE_WORDS_A_TASK 64

typedef struct {
    uint32_t topic, count;
} doc_entry;

struct lda_alias_worker {
    doc_entry *entries; /* list_room: the block's documents' lists */
    uint64_t *list_at;  /* a block's slots + 1 */
    uint32_t *list_len; /* a block's slots */
    double *cum;        /* K: the document part's running sums over the list */
    double *word_row;   /* K: (n[w,k] + β) / (n[k] + Vβ) of the run's word: β / (n[k] + Vβ) but at its topics */
    uint32_t *count_row; /* K: n[w,k] of the run's word at its topics (others stale) */
    uint32_t row_pass;  /* the pass word_row's β part is of (lda_alias_sampler.pass) */
    uint32_t *count;    /* K, zero between uses: a list's counts while it is counted from z */
    uint64_t *listed;   /* K / 64 bits, zero between uses: ... and its topics */
    uint32_t *topics;   /* K: ... in order */
    /* a block's slots: whether its tokens may sum the word side (lda_alias_word_side_doc; its
     * row of n[m,k] then kept as its list moves), and Σ_k n[m,k] / (n[k] + Vβ) of its list */
    unsigned char *word_side;
    double *doc_inv_sum;
    int broken;         /* a token's topic missing from its document's list, or its word's live counts */
    /* --sampler mh: the live counts of the block (n[k], 1 / (n[k] + Vβ)) and of the run's word
     * (its counts at the pass's start and now, and f_k); zero and β / (n[k] + Vβ) off its topics */
    uint32_t *nk, *nw0, *nw, *touched; /* touched: the run's topics with a count, each once */
    unsigned char *is_touched;         /* K */
    double *inv, *live_row;
    uint32_t num_touched;
    char apart[64]; /* the next worker's fields start a cache line away from what this one writes */
};

/* A document's list: its topics with a count (at most min(K, its tokens)), and for a moment
 * one more, the drawn topic added before the old one leaves. */
static uint32_t list_room(uint32_t K, uint32_t doc_len)
{
    return doc_len < K ? doc_len + 1 : K;
}

/* The 64-bit words of a bitmap of K topics. */
static size_t listed_words(uint32_t K)
{
    return ((size_t)K + 63) / 64;
}

/* A topic counted into a list being made: its count, and its bit. */
static void list_count(uint32_t *count, uint64_t *listed, uint32_t k)
{
    listed[k / 64] |= (uint64_t)1 << (k % 64);
    count[k]++;
}

/* The topics of the list counted (list_count), increasing, into topic; listed left zero (their
 * counts are the caller's to read and zero). Returns their number. It costs K / 64 words and the
 * list, where sorting a short document's topics cost 5% of an iteration at K = 1024. */
static uint32_t list_topics(uint64_t *listed, uint32_t K, uint32_t *topic)
{
    uint32_t m = 0;
    for (size_t q = 0; q < listed_words(K); q++) {
        for (uint64_t bits = listed[q]; bits; bits &= bits - 1)
            topic[m++] = (uint32_t)(q * 64) + (uint32_t)__builtin_ctzll(bits);
        listed[q] = 0;
    }
    return m;
}

/* The slot of block b's l-th slot (of --refresh part `part`); SIZE_MAX where the block has no such warp. */
static size_t block_slot(const lda_alias_sampler *s, size_t b, uint32_t part, uint32_t l)
{
    const size_t j = s->block_j0[b] + l / LDA_WARP;
    return j < s->block_end[b] ? (j * s->parts + part) * LDA_WARP + l % LDA_WARP : SIZE_MAX;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* A block's tokens sorted by word (stable: then by slot and position), and its runs of one word.
 * `start` (V, zero) and `words` (the block's tokens) are scratch; start is zero again on return. */
static void order_block(const lda_layout *L, lda_alias_sampler *s, size_t b, uint32_t part, uint64_t *start,
                        uint32_t *words, uint64_t *runs)
{
    const uint32_t slots = s->block_warps * LDA_WARP;
    uint32_t distinct = 0;
    for (uint32_t l = 0; l < slots; l++) {
        const size_t sl = block_slot(s, b, part, l);
        if (sl == SIZE_MAX)
            break;
        for (uint32_t i = 0; i < L->slot_len[sl]; i++) {
            const uint32_t w = L->words[lda_layout_pos(L, sl, i)];
            if (start[w]++ == 0)
                words[distinct++] = w;
        }
    }
    qsort(words, distinct, sizeof *words, cmp_u32);
    uint64_t at = s->block_token[b];
    for (uint32_t r = 0; r < distinct; r++) { /* counts to the runs, then to where each run begins */
        const uint32_t w = words[r];
        s->run_word[*runs + r] = w;
        s->run_len[*runs + r] = (uint32_t)start[w];
        const uint64_t n = start[w];
        start[w] = at;
        at += n;
    }
    for (uint32_t l = 0; l < slots; l++) {
        const size_t sl = block_slot(s, b, part, l);
        if (sl == SIZE_MAX)
            break;
        for (uint32_t i = 0; i < L->slot_len[sl]; i++)
            s->tokens[start[L->words[lda_layout_pos(L, sl, i)]]++] = (lda_alias_token){l, i};
    }
    for (uint32_t r = 0; r < distinct; r++)
        start[words[r]] = 0;
    *runs += distinct;
}

void lda_alias_free(lda_alias_sampler *s)
{
    for (int i = 0; s->worker && i < s->workers; i++) {
        lda_alias_worker *w = &s->worker[i];
        free(w->entries);
        free(w->list_at);
        free(w->list_len);
        free(w->cum);
        free(w->word_row);
        free(w->count_row);
        free(w->count);
        free(w->listed);
        free(w->topics);
        free(w->word_side);
        free(w->doc_inv_sum);
        free(w->nk);
        free(w->nw0);
        free(w->nw);
        free(w->touched);
        free(w->is_touched);
        free(w->inv);
        free(w->live_row);
    }
    free(s->worker);
    free(s->offset);
    free(s->len);
    free(s->word_total);
    free(s->cells);
    free(s->word_topic);
    free(s->word_factor);
    free(s->word_count);
    free(s->n_k);
    free(s->topic_partial);
    free(s->base);
    free(s->smooth);
    free(s->inv);
    free(s->inv_own);
    free(s->weights);
    free(s->ids);
    free(s->work);
    free(s->part_block);
    free(s->block_j0);
    free(s->block_end);
    free(s->block_token);
    free(s->block_run);
    free(s->tokens);
    free(s->zw);
    free(s->run_zw);
    free(s->word_zw);
    free(s->run_word);
    free(s->run_len);
    memset(s, 0, sizeof *s);
}

/* Tokens of warp j of --refresh part `part`. */
static uint64_t warp_tokens(const lda_layout *L, uint32_t parts, uint32_t part, size_t j)
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < LDA_WARP; r++)
        n += L->slot_len[(j * parts + part) * LDA_WARP + r];
    return n;
}

/* Part `part`'s blocks, in order: each at most block_warps warps and, for alias, at most `most`
 * tokens unless one warp holds more (LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER); where ends is not NULL, block
 * i's first warp into j0s[i] and the warp after its last into ends[i]. Returns their number. */
static size_t form_blocks(const lda_layout *L, const lda_alias_sampler *s, uint32_t part, uint64_t most, size_t *j0s,
                          size_t *ends)
{
    const size_t part_warps = lda_part_warps(L->num_warps, part, s->parts);
    size_t blocks = 0;
    for (size_t j0 = 0, j1; j0 < part_warps; j0 = j1, blocks++) {
        uint64_t tokens = warp_tokens(L, s->parts, part, j0);
        for (j1 = j0 + 1; j1 < part_warps && j1 - j0 < s->block_warps; j1++) {
            const uint64_t more = warp_tokens(L, s->parts, part, j1);
            if (!s->mh && tokens + more > most)
                break;
            tokens += more;
        }
        if (ends) {
            j0s[blocks] = j0;
            ends[blocks] = j1;
        }
    }
    return blocks;
}

/* The most list entries one block's documents need: min(K, its document's tokens) a slot. */
static uint64_t block_list_room(const lda_layout *L, const lda_alias_sampler *s, size_t b, uint32_t part)
{
    uint64_t room = 0;
    for (uint32_t l = 0; l < s->block_warps * LDA_WARP; l++) {
        const size_t sl = block_slot(s, b, part, l);
        if (sl == SIZE_MAX)
            break;
        room += list_room(s->K, L->slot_doc_len[sl]);
    }
    return room;
}

uint64_t lda_alias_bytes(const lda_layout *L, uint32_t K, int threads)
{
    const uint64_t V = L->vocab_size, N = L->num_tokens, B = LDA_ZPLAN_ALIAS_BLOCK_WARPS * LDA_WARP;
    const uint64_t cells = N < V * K ? N : V * K; /* Σ min(K, a word's tokens) ≤ */
    const uint64_t most_list = B * K + B; /* a block's lists at most (the plan needs no exact figure) */
    const uint64_t workers = threads > 0 ? (uint64_t)threads : 1;
    return 2 * (V + 1) * sizeof(uint64_t) + V * (sizeof(uint32_t) + sizeof(double)) +
           cells * (sizeof(lda_alias_cell) + 2 * sizeof(uint32_t) + sizeof(double)) +
           (uint64_t)K * (sizeof(lda_alias_cell) + 2 * sizeof(double) + sizeof(uint32_t)) +
           N * (sizeof(lda_alias_token) + 3 * sizeof(uint32_t) + sizeof(uint64_t)) + /* the runs, z by word */
           workers * ((uint64_t)K * (8 * sizeof(double) + 8 * sizeof(uint32_t)) + /* with mh's rows */
                      (most_list < N + B ? most_list : N + B) * sizeof(doc_entry) +
                      B * (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(double) + 1));
}

int lda_alias_create(const lda_layout *L, uint32_t K, uint32_t parts, int threads, int mh, lda_alias_sampler *s,
                     lda_error *err)
{
    memset(s, 0, sizeof *s);
    s->mh = mh;
    s->V = (uint32_t)L->vocab_size;
    s->K = K;
    s->parts = parts ? parts : 1;
    s->block_warps = mh ? LDA_ZPLAN_MH_BLOCK_WARPS : LDA_ZPLAN_ALIAS_BLOCK_WARPS;
    const int workers = threads > 0 ? threads : 1;
    const char *what = "the alias draw's tables";
    uint64_t *start = NULL;
    uint32_t *words = NULL;
    if (!(s->offset = lda_malloc_array((size_t)s->V + 1, sizeof *s->offset, what, err)))
        return -1;
    lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, K, s->offset);
    /* alias's blocks hold at most this many tokens (mh's, whose model they are, only warps) */
    const uint64_t block_most = L->num_tokens / ((uint64_t)LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER * workers);
    for (uint32_t c = 0; c < s->parts; c++)
        s->num_blocks += form_blocks(L, s, c, block_most, NULL, NULL);
    if (!(s->len = lda_calloc((size_t)s->V + 1, sizeof *s->len, what, err)) ||
        !(s->word_total = lda_calloc((size_t)s->V + 1, sizeof *s->word_total, what, err)) ||
        !(s->cells = lda_malloc_array(s->offset[s->V] + 1, sizeof *s->cells, what, err)) ||
        !(s->word_topic = lda_malloc_array(s->offset[s->V] + 1, sizeof *s->word_topic, what, err)) ||
        !(s->word_factor = lda_malloc_array(s->offset[s->V] + 1, sizeof *s->word_factor, what, err)) ||
        !(s->word_count = lda_malloc_array(s->offset[s->V] + 1, sizeof *s->word_count, what, err)) ||
        !(s->n_k = lda_malloc_array(K, sizeof *s->n_k, what, err)) ||
        !(s->topic_partial = lda_malloc_array((size_t)workers * K, sizeof *s->topic_partial, what, err)) ||
        !(s->base = lda_malloc_array(K, sizeof *s->base, what, err)) ||
        !(s->smooth = lda_malloc_array(K, sizeof *s->smooth, what, err)) ||
        !(s->inv = lda_malloc_array(K, sizeof *s->inv, what, err)) ||
        !(s->inv_own = lda_malloc_array(K, sizeof *s->inv_own, what, err)) ||
        !(s->weights = lda_malloc_array((size_t)workers * 2 * K, sizeof *s->weights, what, err)) ||
        !(s->ids = lda_malloc_array((size_t)workers * K, sizeof *s->ids, what, err)) ||
        !(s->work = lda_malloc_array((size_t)workers * K, sizeof *s->work, what, err)) ||
        !(s->part_block = lda_calloc(s->parts + 1, sizeof *s->part_block, what, err)) ||
        !(s->block_j0 = lda_calloc(s->num_blocks + 1, sizeof *s->block_j0, what, err)) ||
        !(s->block_end = lda_calloc(s->num_blocks + 1, sizeof *s->block_end, what, err)) ||
        !(s->block_token = lda_calloc(s->num_blocks + 1, sizeof *s->block_token, what, err)) ||
        !(s->block_run = lda_calloc(s->num_blocks + 1, sizeof *s->block_run, what, err)) ||
        !(s->tokens = lda_malloc_array(L->num_tokens + 1, sizeof *s->tokens, what, err)) ||
        !(s->zw = lda_malloc_array(L->num_tokens + 1, sizeof *s->zw, what, err)) ||
        !(s->word_zw = lda_calloc((size_t)s->V + 1, sizeof *s->word_zw, what, err)) ||
        !(s->run_word = lda_malloc_array(L->num_tokens + 1, sizeof *s->run_word, what, err)) ||
        !(s->run_len = lda_malloc_array(L->num_tokens + 1, sizeof *s->run_len, what, err)) ||
        !(start = lda_calloc((size_t)s->V + 1, sizeof *start, what, err)) ||
        !(words = lda_malloc_array(L->num_tokens + 1, sizeof *words, what, err)) ||
        !(s->worker = lda_calloc((size_t)workers, sizeof *s->worker, what, err)))
        goto fail;
    s->workers = workers;
    size_t b = 0;
    uint64_t runs = 0;
    for (uint32_t c = 0; c < s->parts; c++) {
        s->part_block[c] = b;
        const size_t end = b + form_blocks(L, s, c, block_most, s->block_j0 + b, s->block_end + b);
        for (; b < end; b++) {
            s->block_run[b] = runs;
            uint64_t tokens = 0;
            for (uint32_t l = 0; l < s->block_warps * LDA_WARP; l++) {
                const size_t sl = block_slot(s, b, c, l);
                if (sl == SIZE_MAX)
                    break;
                tokens += L->slot_len[sl];
            }
            s->block_token[b + 1] = s->block_token[b] + tokens;
            order_block(L, s, b, c, start, words, &runs);
            const uint64_t room = block_list_room(L, s, b, c);
            s->list_room = room > s->list_room ? room : s->list_room;
        }
    }
    s->part_block[s->parts] = b;
    s->block_run[b] = runs;
    if (!(s->run_zw = lda_malloc_array(runs + 1, sizeof *s->run_zw, what, err)))
        goto fail;
    for (uint64_t r = 0; r < runs; r++) /* z by word: each word's tokens, a run's together, runs in order */
        s->word_zw[s->run_word[r] + 1] += s->run_len[r];
    for (uint32_t w = 0; w < s->V; w++)
        s->word_zw[w + 1] += s->word_zw[w];
    memcpy(start, s->word_zw, (size_t)s->V * sizeof *start);
    for (uint64_t r = 0; r < runs; r++) {
        s->run_zw[r] = start[s->run_word[r]];
        start[s->run_word[r]] += s->run_len[r];
    }
    for (int i = 0; i < workers; i++) {
        lda_alias_worker *w = &s->worker[i];
        if (!(w->entries = lda_malloc_array(s->list_room + 1, sizeof *w->entries, what, err)) ||
            !(w->list_at = lda_malloc_array((size_t)s->block_warps * LDA_WARP + 1, sizeof *w->list_at, what, err)) ||
            !(w->list_len = lda_malloc_array((size_t)s->block_warps * LDA_WARP, sizeof *w->list_len, what, err)) ||
            !(w->cum = lda_malloc_array(K, sizeof *w->cum, what, err)) ||
            !(w->word_row = lda_malloc_array(K, sizeof *w->word_row, what, err)) ||
            !(w->count_row = lda_calloc(K, sizeof *w->count_row, what, err)) ||
            !(w->count = lda_calloc(K, sizeof *w->count, what, err)) ||
            !(w->listed = lda_calloc(listed_words(K), sizeof *w->listed, what, err)) ||
            !(w->topics = lda_malloc_array(K, sizeof *w->topics, what, err)) ||
            !(w->word_side = lda_malloc_array((size_t)s->block_warps * LDA_WARP, sizeof *w->word_side, what, err)) ||
            !(w->doc_inv_sum = lda_malloc_array((size_t)s->block_warps * LDA_WARP, sizeof *w->doc_inv_sum, what, err)))
            goto fail;
        if (mh && (!(w->nk = lda_malloc_array(K, sizeof *w->nk, what, err)) ||
                   !(w->nw0 = lda_calloc(K, sizeof *w->nw0, what, err)) ||
                   !(w->nw = lda_calloc(K, sizeof *w->nw, what, err)) ||
                   !(w->touched = lda_malloc_array(K, sizeof *w->touched, what, err)) ||
                   !(w->is_touched = lda_calloc(K, sizeof *w->is_touched, what, err)) ||
                   !(w->inv = lda_malloc_array(K, sizeof *w->inv, what, err)) ||
                   !(w->live_row = lda_malloc_array(K, sizeof *w->live_row, what, err))))
            goto fail;
    }
    free(start);
    free(words);
    return 0;
fail:
    free(start);
    free(words);
    lda_alias_free(s);
    return -1;
}

void lda_alias_z_set(lda_alias_sampler *s, const lda_layout *L, const uint32_t *z)
{
    for (uint32_t c = 0; c < s->parts; c++)
        for (size_t b = s->part_block[c]; b < s->part_block[c + 1]; b++) {
            const lda_alias_token *tok = s->tokens + s->block_token[b];
            for (uint64_t r = s->block_run[b]; r < s->block_run[b + 1]; r++)
                for (uint32_t o = 0; o < s->run_len[r]; o++, tok++)
                    s->zw[s->run_zw[r] + o] = z[lda_layout_pos(L, block_slot(s, b, c, tok->slot), tok->i)];
        }
    s->zw_current = 1;
}

/* ---- the pass's tables ---- */

/* A topic's factor (n[w,k] + β) / (n[k] + Vβ) of the document part's weight n[m,k] × it. */
static double word_factor(uint32_t n_wk, double beta, double inv)
{
    return ((double)n_wk + beta) * inv;
}

typedef struct {
    const lda_zdraw *in;
    int overflow; /* a word with more topics than its room: n[w,k] is not its corpus's tally */
} tables_ctx;

/* The words of task `task` (TABLE_WORDS_A_TASK each) of s's V: [*w0, *w1). */
static void task_words(const lda_alias_sampler *s, size_t task, size_t *w0, size_t *w1)
{
    *w0 = task * TABLE_WORDS_A_TASK;
    *w1 = (task + 1) * TABLE_WORDS_A_TASK < s->V ? (task + 1) * TABLE_WORDS_A_TASK : s->V;
}

/* Each word's topics with a count, increasing, and the counts, from its row of n[w,k]. */
static void word_lists_from_counts(void *vctx, size_t task, int worker)
{
    (void)worker;
    tables_ctx *c = vctx;
    const lda_alias_in *ain = c->in->alias;
    lda_alias_sampler *s = ain->state;
    const uint32_t K = s->K;
    size_t w0, w1;
    task_words(s, task, &w0, &w1);
    for (size_t w = w0; w < w1; w++) {
        const uint32_t *n = ain->n_wk + w * K;
        const uint64_t room = s->offset[w + 1] - s->offset[w];
        uint32_t m = 0, *topic = s->word_topic + s->offset[w], *count = s->word_count + s->offset[w];
        for (uint32_t k = 0; k < K && room; k++) /* a word without tokens here (a sample's start): not scanned */
            if (n[k]) {
                if (m == room) {
                    __atomic_store_n(&c->overflow, 1, __ATOMIC_RELAXED);
                    break;
                }
                topic[m] = k;
                count[m++] = n[k];
            }
        s->len[w] = m;
    }
}

/* ... from its tokens' topics, and each worker's share of n[k]: two walks of the V × K counts
 * (setting them to zero and counting, then finding a word's topics) were 11% of an iteration at
 * K = 1024 on wiki43k, where a word's tokens are 1 in 17 of its row. The topics are read from
 * z's copy by word (zw, which the draw writes beside z), each word's in one stretch: read through
 * the positions of its tokens in z they were another 9%. */
static void word_lists_from_z(void *vctx, size_t task, int worker)
{
    const tables_ctx *c = vctx;
    lda_alias_sampler *s = c->in->alias->state;
    lda_alias_worker *wk = &s->worker[worker];
    uint64_t *n_k = s->topic_partial + (size_t)worker * s->K;
    size_t w0, w1;
    task_words(s, task, &w0, &w1);
    for (size_t w = w0; w < w1; w++) {
        for (uint64_t t = s->word_zw[w]; t < s->word_zw[w + 1]; t++)
            list_count(wk->count, wk->listed, s->zw[t]);
        uint32_t *topic = s->word_topic + s->offset[w], *count = s->word_count + s->offset[w];
        const uint32_t m = list_topics(wk->listed, s->K, topic);
        for (uint32_t j = 0; j < m; j++) {
            count[j] = wk->count[topic[j]];
            n_k[topic[j]] += count[j];
            wk->count[topic[j]] = 0;
        }
        s->len[w] = m;
    }
}

/* Each word's table and its factors, from its list. */
static void word_tables(void *vctx, size_t task, int worker)
{
    tables_ctx *c = vctx;
    const lda_alias_in *ain = c->in->alias;
    lda_alias_sampler *s = ain->state;
    const uint32_t K = s->K;
    const float *alpha = c->in->alpha;
    double *weights = s->weights + (size_t)worker * 2 * K, *q = weights + K;
    uint32_t *work = s->work + (size_t)worker * K;
    size_t w0, w1;
    task_words(s, task, &w0, &w1);
    for (size_t w = w0; w < w1; w++) {
        const uint32_t m = s->len[w], *topic = s->word_topic + s->offset[w], *n = s->word_count + s->offset[w];
        double *factor = s->word_factor + s->offset[w], total = 0;
        for (uint32_t j = 0; j < m; j++) {
            const uint32_t k = topic[j];
            factor[j] = word_factor(n[j], ain->beta, s->inv[k]);
            total += weights[j] = (double)alpha[k] * (double)n[j] * s->inv[k];
        }
        if (m)
            lda_alias_cells_build(weights, topic, m, total, s->cells + s->offset[w], q, work);
        s->word_total[w] = total;
    }
}

int lda_alias_tables(lda_pool *pool, const lda_zdraw *in, lda_error *err)
{
    const lda_alias_in *ain = in->alias;
    lda_alias_sampler *s = ain->state;
    const uint32_t K = s->K;
    const size_t tasks = (s->V + TABLE_WORDS_A_TASK - 1) / TABLE_WORDS_A_TASK;
    tables_ctx c = {in, 0};
    if (ain->tables_from_z) {
        if (!s->zw_current) {
            lda_error_fail(err, "internal error: the alias tables from z before z was given (lda_alias_z_set)");
            return -1;
        }
        memset(s->topic_partial, 0, (size_t)s->workers * K * sizeof *s->topic_partial);
        lda_pool_run(pool, tasks, word_lists_from_z, &c);
        if (lda_cpu_topic_totals(s->topic_partial, (size_t)s->workers, K, s->n_k, err))
            return -1;
    } else {
        lda_pool_run(pool, tasks, word_lists_from_counts, &c);
        memcpy(s->n_k, ain->n_k, K * sizeof *s->n_k);
    }
    if (c.overflow) {
        lda_error_fail(err, "internal error: a word has more topics with a count than its tokens");
        return -1;
    }
    const double vbeta = (double)s->V * ain->beta;
    double total = 0;
    s->beta = ain->beta;
    for (uint32_t k = 0; k < K; k++) {
        s->inv[k] = ain->fixed_scale ? ain->fixed_scale[k] : 1.0 / ((double)s->n_k[k] + vbeta);
        /* read only where the word has a count of k, so n[k] ≥ 1 */
        s->inv_own[k] = ain->fixed_scale ? ain->fixed_scale[k] : 1.0 / ((double)s->n_k[k] - 1 + vbeta);
        s->ids[k] = k;
        total += s->weights[k] = (double)in->alpha[k] * ain->beta * s->inv[k];
        s->base[k] = word_factor(0, ain->beta, s->inv[k]);
    }
    lda_alias_cells_build(s->weights, s->ids, K, total, s->smooth, s->weights + K, s->work);
    s->smooth_total = total;
    s->pass++;
    lda_pool_run(pool, tasks, word_tables, &c);
    return 0;
}

/* ---- a block's draw ---- */

typedef struct {
    const lda_layout *layout;
    const lda_zdraw *in;
    uint32_t *z;
    uint32_t part;     /* the --refresh part, local to the layout */
    size_t part_warps; /* its warps */
} draw_ctx;

/* The block's documents' lists: each slot's topics with a count, increasing, from its row (a
 * piece, whose row holds its whole document's counts, or a slot of K tokens or more) or counted
 * from its tokens' topics. */
static void lists_build(const draw_ctx *c, lda_alias_worker *wk, size_t b)
{
    const lda_layout *L = c->layout;
    const lda_alias_sampler *s = c->in->alias->state;
    const uint32_t K = s->K;
    uint64_t at = 0;
    uint32_t l = 0;
    for (; l < s->block_warps * LDA_WARP; l++) {
        const size_t sl = block_slot(s, b, c->part, l);
        if (sl == SIZE_MAX)
            break;
        const uint32_t *n = c->in->n_mk + sl * K, len = L->slot_len[sl];
        doc_entry *e = wk->entries + at;
        uint32_t m = 0;
        if (len < L->slot_doc_len[sl] || len >= K) {
            for (uint32_t k = 0; k < K; k++)
                if (n[k])
                    e[m++] = (doc_entry){k, n[k]};
        } else { /* counted from z: the row's lines are not read */
            for (uint32_t i = 0; i < len; i++)
                list_count(wk->count, wk->listed, c->z[lda_layout_pos(L, sl, i)]);
            m = list_topics(wk->listed, K, wk->topics);
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t k = wk->topics[j];
                e[j] = (doc_entry){k, wk->count[k]};
                wk->count[k] = 0;
            }
        }
        wk->list_at[l] = at;
        wk->list_len[l] = m;
        at += list_room(K, L->slot_doc_len[sl]);
        wk->word_side[l] = !s->mh && lda_alias_word_side_doc(K, len, L->slot_doc_len[sl], m);
        double inv_sum = 0;
        for (uint32_t j = 0; wk->word_side[l] && j < m; j++)
            inv_sum += (double)e[j].count * s->inv[e[j].topic];
        wk->doc_inv_sum[l] = inv_sum;
    }
}

/* The lists' counts into the rows (a topic whose count fell to zero was zeroed when it left). */
static void lists_store(const draw_ctx *c, const lda_alias_worker *wk, size_t b)
{
    const lda_alias_sampler *s = c->in->alias->state;
    for (uint32_t l = 0; l < s->block_warps * LDA_WARP; l++) {
        const size_t sl = block_slot(s, b, c->part, l);
        if (sl == SIZE_MAX)
            break;
        uint32_t *n = c->in->n_mk + sl * s->K;
        const doc_entry *e = wk->entries + wk->list_at[l];
        for (uint32_t j = 0; j < wk->list_len[l]; j++)
            n[e[j].topic] = e[j].count;
    }
}

/* The word of a run: its table and total, and its factors (n[w,k] + β) / (n[k] + Vβ) for every
 * topic, in the worker's row while its run is drawn. */
typedef struct {
    uint32_t len;
    const lda_alias_cell *cells;
    double total;
    const double *row;
} run_word;

/* Where a token's random words come from: block 0 of its Philox stream, then 1, 2, ... for each
 * draw made again (the corpus-order index, as every CPU draw keys its uniforms). */
typedef struct {
    uint64_t seed, token;
    uint32_t iteration;
} token_key;

/* The first entry of the list e (m topics, increasing) whose topic is k or more: where k is or
 * would be inserted. Without branches on the topics (a conditional move a step), which a
 * search of a random topic would mispredict one step in two. */
static uint32_t entry_from(const doc_entry *e, uint32_t m, uint32_t k)
{
    if (m == 0)
        return 0;
    const doc_entry *base = e;
    for (uint32_t n = m; n > 1;) { /* the entry is in base .. base + n */
        const uint32_t half = n / 2;
        base = base[half].topic < k ? base + half : base;
        n -= half;
    }
    return (uint32_t)(base - e) + (base->topic < k);
}

/* The entry of topic k in the list e (m topics, increasing), or m where it is not listed. */
static uint32_t entry_of(const doc_entry *e, uint32_t m, uint32_t k)
{
    const uint32_t lo = entry_from(e, m, k);
    return lo < m && e[lo].topic == k ? lo : m;
}

/* The word's part of a token's draw from the tables: its table's or the smoothing's topic at
 * target t (t - D past the document part), and whether it is to be kept: a draw of the token's
 * own topic s is kept with probability f_s / f⁰_s (sampler_alias.h), else 0 is returned and
 * the token is drawn again. */
static int table_draw(const lda_alias_sampler *s, const run_word *rw, double t_past, uint32_t old, double f_old,
                      double f_own, lda_u32x4 bits, uint32_t *topic)
{
    *topic = t_past < rw->total ? lda_alias_cells_draw(rw->cells, rw->len, rw->total, bits.v[1], bits.v[2])
                                : lda_alias_cells_draw(s->smooth, s->K, s->smooth_total, bits.v[1], bits.v[2]);
    /* one topic: nothing else to draw, whatever the weights */
    return *topic != old || s->K == 1 || lda_uniform_double(bits.v[3]) * f_old < f_own;
}

/* A document's tokens of one word follow each other in alias's order (by word, then slot). For
 * them the document part's sum over the list with every count as it stands and the word's
 * factors, B = Σ_j n[m,k_j] f_{k_j}, is carried from token to token (a move changes two counts),
 * so that a token after the first takes its document part from it, B less its own topic's term
 * n[m,s] f_s and plus (n[m,s] - 1) f¬_s, and walks its list only as far as its target. On integer
 * weights the carried sums are the summed ones exactly, so the topics are those of a pass over
 * the list a token. */
typedef struct {
    double sum;
    uint32_t slot; /* whose sum it is; UINT32_MAX: none */
} carried_sum;
/* ... taken where the list is longer than this: a shorter one's pass costs less than finding the
 * token's entry and forming the sums again as far as the target (wikimix at K = 100, whose lists
 * are short, took 1% longer with every list's sum carried) */
#define CARRIED_FROM 64u

/* One token's topic: its document's list e (m topics, increasing; its own topic, at *jo, taken
 * off) and its word, the token off its own topic's factor too (sampler_alias.h): the document
 * part with f_s, the tables' draw of s kept with probability f_s / f⁰_s, else drawn again.
 * carry: the sum of the run's previous token where it was the same slot's (carried_sum), and
 * this token's for the next. Returns the topic; *jn its entry (m where it is not listed). */
static uint32_t draw_token(const lda_alias_sampler *s, lda_alias_worker *wk, const doc_entry *e, uint32_t m,
                           uint32_t old, const run_word *rw, lda_u32x4 bits, const token_key *key, uint32_t slot,
                           carried_sum *carry, uint32_t *jo, uint32_t *jn)
{
    /* the word's cell a draw from its table would read, asked for while the document's part is summed */
    __builtin_prefetch(&rw->cells[((uint64_t)bits.v[1] * rw->len) >> 32]);
    const double f_old = wk->word_row[old], f_own = word_factor(wk->count_row[old] - 1, s->beta, s->inv_own[old]);
    const int carried = carry->slot == slot && m > CARRIED_FROM;
    double D = 0;
    uint32_t at = m;
    if (carried) {
        at = entry_of(e, m, old);
        const double n_s = at < m ? (double)e[at].count : 0;
        D = carry->sum - n_s * f_old + (n_s - 1) * f_own;
    } else {
        wk->word_row[old] = f_own; /* the document part of the token's own topic without it */
        for (uint32_t j = 0; j < m; j++) { /* the word's factors from L1 */
            const uint32_t k = e[j].topic, own = k == old;
            at = own ? j : at;
            D += (double)(e[j].count - own) * rw->row[k];
            wk->cum[j] = D;
        }
        wk->word_row[old] = f_old;
        const double n_s = at < m ? (double)e[at].count : 0;
        carry->slot = slot;
        carry->sum = D - (n_s - 1) * f_own + n_s * f_old;
    }
    *jo = at;
    const double Z = D + rw->total + s->smooth_total;
    for (uint32_t block = 1;; block++) {
        const double t = lda_scaled_target_double(Z, lda_uniform_double(bits.v[0]));
        if (t < D && !carried) { /* the running sums end at D: the search stops within the list */
            uint32_t j = 0;
            while (!(t < wk->cum[j]))
                j++;
            *jn = j;
            return e[j].topic;
        }
        if (t < D) { /* the same running sums, formed as far as the target */
            double sum = 0;
            uint32_t last = m;
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t k = e[j].topic;
                const double weight = k == old ? (double)(e[j].count - 1) * f_own : (double)e[j].count * rw->row[k];
                if (weight > 0) {
                    sum += weight;
                    last = j;
                    if (t < sum)
                        break;
                }
            }
            if (last < m) { /* past every sum only by the carried sum's rounding: its last weighted entry */
                *jn = last;
                return e[last].topic;
            }
            /* no entry has weight: D is the carried sum's rounding residue; the word's part, below */
        }
        uint32_t topic;
        if (table_draw(s, rw, t - D, old, f_old, f_own, bits, &topic)) {
            uint32_t j = 0;
            while (j < m && e[j].topic < topic)
                j++;
            *jn = j;
            return topic;
        }
        bits = lda_philox(lda_rng_counter(LDA_RNG_Z, key->iteration, key->token, block), key->seed);
    }
}

/* One token's topic with its document part summed over its word's topics (lda_alias_word_side):
 * its document's list e (m topics, increasing), row (its n[m,k], as the list) and inv_sum
 * (Σ_k n[m,k] / (n[k] + Vβ) over it), the token still counted at its topic `old` in all three.
 * The part is Y + X: Y = Σ over the word's topics k of n'[m,k] n'[w,k] / (n'[k] + Vβ) (primes:
 * the token off, at k = old), its running sums in cum; X = β Σ_k n'[m,k] / (n'[k] + Vβ), from
 * inv_sum, and where the target falls in it, searched over the list. Then the word's and the
 * smoothing's tables as draw_token. Returns the topic; *jo the entry of old, *jn the new topic's
 * (where it is or would be inserted). */
static uint32_t draw_token_word_side(const lda_alias_sampler *s, lda_alias_worker *wk, const doc_entry *e, uint32_t m,
                                     const uint32_t *row, double inv_sum, uint32_t old, const run_word *rw, uint32_t w,
                                     lda_u32x4 bits, const token_key *key, uint32_t *jo, uint32_t *jn)
{
    __builtin_prefetch(&rw->cells[((uint64_t)bits.v[1] * rw->len) >> 32]);
    const uint32_t *topic = s->word_topic + s->offset[w], *count = s->word_count + s->offset[w];
    const double inv_own = s->inv_own[old];
    const double f_old = wk->word_row[old], f_own = word_factor(wk->count_row[old] - 1, s->beta, inv_own);
    double Y = 0;
    for (uint32_t p = 0; p < rw->len; p++) {
        const uint32_t k = topic[p], own = k == old;
        const double n_w = (double)(count[p] - own) * (own ? inv_own : s->inv[k]);
        Y += (double)(row[k] - own) * n_w;
        wk->cum[p] = Y;
    }
    const double n_s = (double)row[old];
    double X = s->beta * (inv_sum - n_s * s->inv[old] + (n_s - 1) * inv_own);
    X = X > 0 ? X : 0; /* inv_sum's rounding, as it moved, where the list's part is nothing */
    const double D = Y + X, Z = D + rw->total + s->smooth_total;
    *jo = entry_of(e, m, old);
    for (uint32_t block = 1;; block++) {
        const double t = lda_scaled_target_double(Z, lda_uniform_double(bits.v[0]));
        uint32_t k = UINT32_MAX;
        if (t < Y) { /* the running sums end at Y: the search stops within the word's topics */
            uint32_t p = 0;
            while (!(t < wk->cum[p]))
                p++;
            k = topic[p];
        } else if (t < D) { /* β's part, over the list as far as the target */
            double sum = Y;
            uint32_t last = m;
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t own = e[j].topic == old;
                const double weight = s->beta * (double)(e[j].count - own) * (own ? inv_own : s->inv[e[j].topic]);
                if (weight > 0) {
                    sum += weight;
                    last = j;
                    if (t < sum)
                        break;
                }
            }
            /* past every sum only by inv_sum's rounding: its last weighted entry (none: the tables) */
            k = last < m ? e[last].topic : UINT32_MAX;
        }
        if (k != UINT32_MAX || table_draw(s, rw, t - D, old, f_old, f_own, bits, &k)) {
            *jn = entry_from(e, m, k);
            return k;
        }
        bits = lda_philox(lda_rng_counter(LDA_RNG_Z, key->iteration, key->token, block), key->seed);
    }
}

/* ---- --sampler mh: the live counts and the Metropolis–Hastings step ---- */

/* 1 / (n[k] + Vβ) at a count of topic k, or the fixed scale in its place. */
static double inv_at(const lda_alias_in *ain, uint32_t V, uint32_t k, uint32_t n_k)
{
    return ain->fixed_scale ? ain->fixed_scale[k] : 1.0 / ((double)n_k + (double)V * ain->beta);
}

/* The block's live n[k] and 1 / (n[k] + Vβ) from the pass's start; the live row β / (n[k] + Vβ). */
static void mh_block_start(const lda_alias_sampler *s, lda_alias_worker *wk)
{
    memcpy(wk->nk, s->n_k, s->K * sizeof *wk->nk);
    memcpy(wk->inv, s->inv, s->K * sizeof *wk->inv);
    memcpy(wk->live_row, s->base, s->K * sizeof *wk->live_row);
}

/* Topic k's live count of the run's word moved by d (±1): n[w,k], n[k] and f_k. */
static void mh_move(const lda_alias_sampler *s, const lda_alias_in *ain, lda_alias_worker *wk, uint32_t k, int d)
{
    if (!wk->is_touched[k]) { /* a topic new to the word in this run */
        wk->is_touched[k] = 1;
        wk->touched[wk->num_touched++] = k;
    }
    wk->nw[k] += (uint32_t)d;
    wk->nk[k] += (uint32_t)d;
    wk->inv[k] = inv_at(ain, s->V, k, wk->nk[k]);
    wk->live_row[k] = ((double)wk->nw[k] + ain->beta) * wk->inv[k];
}

/* The run's word: its factors f⁰_k (word_row_set's), its counts at the pass's start, live from
 * here, in one pass over its topics; or, at its end, its topics' counts zeroed and both rows put
 * back to β / (n[k] + Vβ), the pass's and the live one. */
static void mh_run(const lda_alias_sampler *s, const lda_alias_in *ain, lda_alias_worker *wk, uint32_t w, int end)
{
    if (end) {
        for (uint32_t p = 0; p < wk->num_touched; p++) {
            const uint32_t k = wk->touched[p];
            wk->nw0[k] = wk->nw[k] = 0;
            wk->is_touched[k] = 0;
            wk->live_row[k] = ain->beta * wk->inv[k];
            wk->word_row[k] = s->base[k];
        }
        wk->num_touched = 0;
        return;
    }
    const uint32_t *topic = s->word_topic + s->offset[w], *n = s->word_count + s->offset[w];
    const double *factor = s->word_factor + s->offset[w];
    for (uint32_t p = 0; p < s->len[w]; p++) {
        const uint32_t k = topic[p];
        wk->word_row[k] = factor[p];
        wk->touched[p] = k;
        wk->is_touched[k] = 1;
        wk->nw0[k] = wk->nw[k] = n[p];
        wk->live_row[k] = ((double)n[p] + ain->beta) * wk->inv[k];
    }
    wk->num_touched = s->len[w];
}

/* One token's Metropolis–Hastings step (sampler_alias.h): the document's list e (m topics,
 * increasing; its own topic s, at *jo, already off the live counts), its word. The proposal
 * from state x, q_x(k) = n[m,k] f_k + α_k g_x(k) with the α part's tables holding the token at
 * x (g_s = f⁰; g_t: the token moved from s to t), normalised by Z_x = D + A_x, is drawn as
 * --sampler alias draws: the document part searched, the word's and the smoothing's tables.
 * t ≠ s is taken when u · p_s q_s(t) Z_t < p_t q_t(s) Z_s (u the fourth random word): the
 * chain's stationary distribution is p_k = (n[m,k] + α_k) f_k exactly. Returns the topic; *jn
 * its entry (m where it is not listed). */
static uint32_t mh_token(const lda_alias_sampler *s, const lda_alias_in *ain, const float *alpha,
                         lda_alias_worker *wk, const doc_entry *e, uint32_t m, uint32_t old, const run_word *rw,
                         lda_u32x4 bits, uint32_t *jo, uint32_t *jn)
{
    __builtin_prefetch(&rw->cells[((uint64_t)bits.v[1] * rw->len) >> 32]);
    const double *f = wk->live_row;
    double D = 0;
    uint32_t at = m;
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t k = e[j].topic, own = k == old;
        at = own ? j : at;
        D += (double)(e[j].count - own) * f[k];
        wk->cum[j] = D;
    }
    *jo = at;
    const double Zs = D + rw->total + s->smooth_total;
    const double u = lda_scaled_target_double(Zs, lda_uniform_double(bits.v[0]));
    uint32_t t, j = 0;
    if (u < D) {
        while (!(u < wk->cum[j]))
            j++;
        t = e[j].topic;
    } else {
        t = u - D < rw->total ? lda_alias_cells_draw(rw->cells, rw->len, rw->total, bits.v[1], bits.v[2])
                              : lda_alias_cells_draw(s->smooth, s->K, s->smooth_total, bits.v[1], bits.v[2]);
        while (j < m && e[j].topic < t)
            j++;
    }
    *jn = j;
    if (t == old || at == m)
        return t;
    const double n_t = j < m && e[j].topic == t ? (double)e[j].count : 0, n_s = (double)e[at].count - 1;
    const double a_t = alpha[t], a_s = alpha[old], *f0 = wk->word_row; /* the pass's start: g_s */
    /* g_t: the tables with the token at t, from the word's and the topics' counts of the pass's start */
    const double gt_s = ((double)wk->nw0[old] - 1 + ain->beta) * inv_at(ain, s->V, old, s->n_k[old] - 1);
    const double gt_t = ((double)wk->nw0[t] + 1 + ain->beta) * inv_at(ain, s->V, t, s->n_k[t] + 1);
    const double Zt = Zs - a_s * (f0[old] - gt_s) + a_t * (gt_t - f0[t]);
    const double p_t = (n_t + a_t) * f[t], p_s = (n_s + a_s) * f[old];
    const double q_st = n_t * f[t] + a_t * f0[t], q_ts = n_s * f[old] + a_s * gt_s;
    if (lda_uniform_double(bits.v[3]) * (p_s * q_st * Zt) < p_t * q_ts * Zs)
        return t;
    *jn = at;
    return old;
}

/* A run's word into the worker's rows: its factors into the row which holds β / (n[k] + Vβ)
 * elsewhere, and its counts into count_row (read only at a token's own topic, which the word has
 * a count of, so never put back; its factor without the token is formed from it, 4 bytes an
 * entry to read where a factor was 8); or the first row put back. */
static void word_row_set(const lda_alias_sampler *s, lda_alias_worker *wk, uint32_t w, int restore)
{
    const uint32_t *topic = s->word_topic + s->offset[w];
    if (restore) {
        for (uint32_t p = 0; p < s->len[w]; p++)
            wk->word_row[topic[p]] = s->base[topic[p]];
        return;
    }
    const double *factor = s->word_factor + s->offset[w];
    const uint32_t *count = s->word_count + s->offset[w];
    for (uint32_t p = 0; p < s->len[w]; p++) {
        wk->word_row[topic[p]] = factor[p];
        wk->count_row[topic[p]] = count[p];
    }
}

static void draw_block(void *vctx, size_t task, int worker)
{
    const draw_ctx *c = vctx;
    const lda_layout *L = c->layout;
    const lda_zdraw *in = c->in;
    const lda_alias_sampler *s = in->alias->state;
    lda_alias_worker *wk = &s->worker[worker];
    const size_t b = s->part_block[c->part] + task;
    const uint32_t K = s->K;
    if (wk->row_pass != s->pass) { /* the pass's β part */
        memcpy(wk->word_row, s->base, K * sizeof *wk->word_row);
        wk->row_pass = s->pass;
    }
    lists_build(c, wk, b);
    if (s->mh)
        mh_block_start(s, wk);
    /* A token's topic from z's copy by word where the tables read it (so it is current): the run's
     * tokens read it in order, where their lines of z come in no order. */
    const int from_zw = in->alias->tables_from_z && s->zw_current;
    const lda_alias_token *tok = s->tokens + s->block_token[b];
    for (uint64_t r = s->block_run[b]; r < s->block_run[b + 1] && !wk->broken; r++) {
        const uint32_t w = s->run_word[r];
        const run_word rw = {s->len[w], s->cells + s->offset[w], s->word_total[w], wk->word_row};
        if (s->mh)
            mh_run(s, in->alias, wk, w, 0);
        else
            word_row_set(s, wk, w, 0);
        carried_sum carry = {0, UINT32_MAX}; /* a run's tokens, a document's together */
        uint32_t *zw = s->zw + s->run_zw[r];
        for (const lda_alias_token *end = tok + s->run_len[r]; tok < end; tok++, zw++) {
            { /* the next token's line of z (to be written) and document list, asked for while this one is drawn */
                const lda_alias_token *nx = tok + 1 < s->tokens + s->block_token[b + 1] ? tok + 1 : tok;
                __builtin_prefetch(&c->z[lda_layout_pos(L, block_slot(s, b, c->part, nx->slot), nx->i)], 1);
                __builtin_prefetch(wk->entries + wk->list_at[nx->slot]);
            }
            const size_t sl = block_slot(s, b, c->part, tok->slot),
                         pos = lda_layout_pos(L, sl, tok->i);
            doc_entry *e = wk->entries + wk->list_at[tok->slot];
            uint32_t m = wk->list_len[tok->slot], jo, jn;
            const uint32_t old = from_zw ? *zw : c->z[pos];
            const token_key key = {in->seed, L->slot_token_base[sl] + tok->i, in->iteration};
            const lda_u32x4 bits = lda_philox(lda_rng_counter(LDA_RNG_Z, key.iteration, key.token, 0), key.seed);
            uint32_t topic;
            if (s->mh) {
                if (wk->nw[old] == 0 || wk->nk[old] == 0) { /* counts not of this z */
                    wk->broken = 1;
                    break;
                }
                const double inv_old = wk->inv[old], f_old = wk->live_row[old];
                mh_move(s, in->alias, wk, old, -1);
                topic = mh_token(s, in->alias, in->alpha, wk, e, m, old, &rw, bits, &jo, &jn);
                if (topic == old) { /* back as it was */
                    wk->nw[old]++;
                    wk->nk[old]++;
                    wk->inv[old] = inv_old;
                    wk->live_row[old] = f_old;
                } else
                    mh_move(s, in->alias, wk, topic, +1);
            } else if (wk->word_side[tok->slot] && lda_alias_word_side(m, rw.len)) {
                topic = draw_token_word_side(s, wk, e, m, in->n_mk + sl * K, wk->doc_inv_sum[tok->slot], old, &rw, w,
                                             bits, &key, &jo, &jn);
                carry.slot = UINT32_MAX; /* the list's sum was not formed */
            } else {
                topic = draw_token(s, wk, e, m, old, &rw, bits, &key, tok->slot, &carry, &jo, &jn);
                if (topic != old) /* B of carried_sum: two counts moved */
                    carry.sum += rw.row[topic] - rw.row[old];
            }
            if (jo == m) {
                wk->broken = 1;
                break;
            }
            if (wk->word_side[tok->slot] && topic != old) { /* its row and inv_sum as its list */
                in->n_mk[sl * K + topic]++;
                in->n_mk[sl * K + old]--;
                wk->doc_inv_sum[tok->slot] += s->inv[topic] - s->inv[old];
            }
            if (jn == m || e[jn].topic != topic) { /* inserted in order */
                memmove(e + jn + 1, e + jn, (m - jn) * sizeof *e);
                e[jn] = (doc_entry){topic, 0};
                m++;
                jo += jo >= jn;
            }
            e[jn].count++;
            if (--e[jo].count == 0) { /* old ≠ topic: it leaves the list, and its row */
                in->n_mk[sl * K + old] = 0;
                memmove(e + jo, e + jo + 1, (m - jo - 1) * sizeof *e);
                m--;
            }
            wk->list_len[tok->slot] = m;
            c->z[pos] = topic;
            *zw = topic;
        }
        if (s->mh)
            mh_run(s, in->alias, wk, w, 1);
        else
            word_row_set(s, wk, w, 1);
    }
    lists_store(c, wk, b);
}

int lda_cpu_sample_z_alias(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err)
{
    const lda_alias_in *ain = in->alias;
    lda_alias_sampler *s = ain->state;
    const uint32_t parts = in->part_count ? in->part_count : 1;
    if (!in->n_mk || (!ain->tables_from_z && (!ain->n_wk || !ain->n_k)) || s->K != in->K || s->V != L->vocab_size || s->parts != parts ||
        s->workers < lda_pool_threads(pool)) {
        lda_error_fail(err, "internal error: the alias draw needs the collapsed model's counts and its state");
        return -1;
    }
    draw_ctx c = {L, in, z, in->part, lda_part_warps(L->num_warps, in->part, parts)};
    if (c.part_warps == 0)
        return 0;
    if (lda_alias_tables(pool, in, err))
        return -1;
    lda_pool_run(pool, s->part_block[in->part + 1] - s->part_block[in->part], draw_block, &c);
    for (int i = 0; i < s->workers; i++)
        if (s->worker[i].broken) {
            s->worker[i].broken = 0;
            lda_error_fail(err, "internal error: a token's topic is missing from its document's counts");
            return -1;
        }
    return 0;
}
