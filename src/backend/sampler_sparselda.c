/* sampler_sparselda.c — --sampler sparselda on the CPU; see sampler_sparselda.h. A pass builds
 * each word's sorted list from n[w,k] once, then draws its parts, one task a part: a worker
 * copies a word's list the first time its part meets the word, and keeps its own n[k]. */
#include "backend/sampler_sparselda.h"

#include <stdlib.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "core/rng.h"
#include "core/search.h"
#include "core/sparse_draw.h"

/* Words a task of the lists' build: enough work to amortize claiming it. */
#define LIST_WORDS_A_TASK 64

#define ONE_COUNT ((uint64_t)1 << 32)

struct lda_sparselda_worker {
    uint64_t *entries;     /* as the state's, this part's view */
    uint32_t *len, *stamp; /* V: a word's list is this part's where stamp = epoch */
    uint32_t epoch;
    uint32_t *n_k, *topics; /* K: the part's n[k]; the document's list */
    double *inv, *coef;    /* K: 1 / (n[k] + Vβ), (α_k + n[m,k]) inv_k */
    int broken;            /* a token's topic missing from its word's counts */
    int busy;              /* claimed by a running part (atomic) */
};

static uint32_t entry_topic(uint64_t e)
{
    return UINT32_MAX - (uint32_t)e;
}

static uint32_t entry_count(uint64_t e)
{
    return (uint32_t)(e >> 32);
}

static uint64_t entry_of(uint32_t count, uint32_t topic)
{
    return (uint64_t)count << 32 | (UINT32_MAX - topic);
}

uint64_t lda_sparselda_bytes(const lda_layout *L, uint32_t K, uint32_t parts, int threads)
{
    const int workers = lda_sparselda_workers(threads, parts);
    uint64_t entries = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        entries += L->slot_len[s];
    entries = entries < (uint64_t)L->vocab_size * K ? entries : (uint64_t)L->vocab_size * K; /* Σ min(K, tokens) ≤ */
    const uint64_t V = L->vocab_size;
    return (uint64_t)(workers + 1) * (entries * sizeof(uint64_t) + V * sizeof(uint32_t)) + (V + 1) * sizeof(uint64_t) +
           (uint64_t)workers * (V * sizeof(uint32_t) + (uint64_t)K * (2 * sizeof(uint32_t) + 2 * sizeof(double)));
}

void lda_sparselda_free(lda_sparselda *s)
{
    for (int i = 0; s->worker && i < s->workers; i++) {
        lda_sparselda_worker *w = &s->worker[i];
        free(w->entries);
        free(w->len);
        free(w->stamp);
        free(w->n_k);
        free(w->topics);
        free(w->inv);
        free(w->coef);
    }
    free(s->worker);
    free(s->offset);
    free(s->entries);
    free(s->len);
    memset(s, 0, sizeof *s);
}

int lda_sparselda_workers(int threads, uint32_t parts)
{
    return threads > 0 && (uint32_t)threads < parts ? threads : (int)parts;
}

int lda_sparselda_create(const lda_layout *L, uint32_t K, uint32_t parts, int threads, lda_sparselda *s,
                         lda_error *err)
{
    memset(s, 0, sizeof *s);
    const int workers = lda_sparselda_workers(threads, parts ? parts : 1);
    s->V = L->vocab_size;
    s->K = K;
    s->parts = parts ? parts : 1;
    const char *what = "the sparselda draw's word lists";
    if (!(s->offset = lda_malloc_array((size_t)s->V + 1, sizeof *s->offset, what, err)))
        return -1;
    lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, K, s->offset); // every topic: the lists move token by token
    const size_t entries = s->offset[s->V] + 1;
    if (!(s->entries = lda_malloc_array(entries, sizeof *s->entries, what, err)) ||
        !(s->len = lda_calloc((size_t)s->V + 1, sizeof *s->len, what, err)) ||
        !(s->worker = lda_calloc((size_t)workers, sizeof *s->worker, what, err)))
        goto fail;
    s->workers = workers;
    for (int i = 0; i < workers; i++) {
        lda_sparselda_worker *w = &s->worker[i];
        if (!(w->entries = lda_malloc_array(entries, sizeof *w->entries, what, err)) ||
            !(w->len = lda_calloc((size_t)s->V + 1, sizeof *w->len, what, err)) ||
            !(w->stamp = lda_calloc((size_t)s->V + 1, sizeof *w->stamp, what, err)) ||
            !(w->n_k = lda_malloc_array(K, sizeof *w->n_k, what, err)) ||
            !(w->topics = lda_malloc_array(K, sizeof *w->topics, what, err)) ||
            !(w->inv = lda_malloc_array(K, sizeof *w->inv, what, err)) ||
            !(w->coef = lda_malloc_array(K, sizeof *w->coef, what, err)))
            goto fail;
    }
    return 0;
fail:
    lda_sparselda_free(s);
    return -1;
}

/* ---- the pass's lists, built from n[w,k] ---- */

typedef struct {
    const lda_sparselda_in *in;
    int overflow; /* a word with more topics than its room: n[w,k] is not its corpus's tally */
} build_ctx;

static int decreasing(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void build_words(void *vctx, size_t task, int worker)
{
    (void)worker;
    build_ctx *c = vctx;
    int overflow = 0;
    lda_sparselda *s = c->in->state;
    const uint32_t K = s->K;
    const size_t w_end = (task + 1) * LIST_WORDS_A_TASK < s->V ? (task + 1) * LIST_WORDS_A_TASK : s->V;
    for (size_t w = task * LIST_WORDS_A_TASK; w < w_end; w++) {
        const uint32_t *n = c->in->n_wk + w * K;
        uint64_t *e = s->entries + s->offset[w];
        const uint64_t room = s->offset[w + 1] - s->offset[w];
        uint32_t m = 0;
        for (uint32_t k = 0; k < K; k++)
            if (n[k]) {
                if (m == room) {
                    overflow = 1;
                    break;
                }
                e[m++] = entry_of(n[k], k);
            }
        if (m > 1)
            qsort(e, m, sizeof *e, decreasing);
        s->len[w] = m;
    }
    if (overflow)
        __atomic_store_n(&c->overflow, 1, __ATOMIC_RELAXED);
}

/* ---- a part's draw ---- */

typedef struct {
    const lda_layout *layout;
    const lda_zdraw *in;
    uint32_t *z;
    size_t warps; /* of this --refresh part */
    size_t part_count;
} draw_ctx;

/* A part's running state: its worker's arrays, the sums S and R, and what they read. */
typedef struct {
    lda_sparselda_worker *wk;
    const float *alpha;
    const double *fixed;
    double beta, vbeta, S, R;
    uint32_t *n; /* the document's row */
} part_state;

/* Topic k's count in the document and in n[k] moved by delta, S, R and k's coefficient with it. */
static void topic_moved(part_state *p, uint32_t k, int delta)
{
    lda_sparselda_worker *wk = p->wk;
    const double a = p->alpha[k];
    p->R -= (double)p->n[k] * p->beta * wk->inv[k];
    p->S -= a * p->beta * wk->inv[k];
    p->n[k] += (uint32_t)delta;
    wk->n_k[k] += (uint32_t)delta;
    wk->inv[k] = p->fixed ? p->fixed[k] : 1.0 / ((double)wk->n_k[k] + p->vbeta);
    p->R += (double)p->n[k] * p->beta * wk->inv[k];
    p->S += a * p->beta * wk->inv[k];
    wk->coef[k] = (a + (double)p->n[k]) * wk->inv[k];
}

/* Word w's list as this part sees it: the pass's, copied the first time the part meets w. */
static uint64_t *word_view(const lda_sparselda *s, lda_sparselda_worker *wk, uint32_t w)
{
    uint64_t *e = wk->entries + s->offset[w];
    if (wk->stamp[w] != wk->epoch) {
        memcpy(e, s->entries + s->offset[w], s->len[w] * sizeof *e);
        wk->len[w] = s->len[w];
        wk->stamp[w] = wk->epoch;
    }
    return e;
}

/* Entry j's count one less, kept in order; a count fallen to zero leaves the list (it is
 * then the last entry: every other count is at least 1). */
static void entry_down(uint64_t *e, uint32_t *len, uint32_t j)
{
    e[j] -= ONE_COUNT;
    while (j + 1 < *len && e[j + 1] > e[j]) {
        const uint64_t t = e[j];
        e[j] = e[j + 1];
        e[++j] = t;
    }
    if (entry_count(e[j]) == 0)
        (*len)--;
}

static void entry_up(uint64_t *e, uint32_t j)
{
    e[j] += ONE_COUNT;
    while (j > 0 && e[j - 1] < e[j]) {
        const uint64_t t = e[j];
        e[j] = e[j - 1];
        e[--j] = t;
    }
}

static uint32_t entry_find(const uint64_t *e, uint32_t len, uint32_t topic)
{
    const uint32_t low = UINT32_MAX - topic;
    uint32_t j = 0;
    for (; j + 4 <= len; j += 4) /* four compares a step: the loop's branch is the cost */
        if ((uint32_t)e[j] == low || (uint32_t)e[j + 1] == low || (uint32_t)e[j + 2] == low ||
            (uint32_t)e[j + 3] == low)
            break;
    while (j < len && (uint32_t)e[j] != low)
        j++;
    return j;
}

/* The word part's weight of entry j: (α_k + n[m,k]) / (n[k] + Vβ) × n[w,k]. */
static double entry_weight(const double *coef, uint64_t e)
{
    return coef[entry_topic(e)] * (double)entry_count(e);
}

/* Q, the word part's total: four running sums, so the additions do not wait on each other
 * (the list is a word's every topic: hundreds at K = 1024). */
static double word_total(const double *coef, const uint64_t *e, uint32_t len)
{
    double a = 0, b = 0, c = 0, d = 0;
    uint32_t j = 0;
    for (; j + 4 <= len; j += 4) {
        a += entry_weight(coef, e[j]);
        b += entry_weight(coef, e[j + 1]);
        c += entry_weight(coef, e[j + 2]);
        d += entry_weight(coef, e[j + 3]);
    }
    for (; j < len; j++)
        a += entry_weight(coef, e[j]);
    return (a + b) + (c + d);
}

/* One token's topic from the target t of the total Q + R + S: in the word's list, the
 * document's, or every topic's smoothing; where rounding leaves a walk short, its last
 * entry with a weight, else the next part. Returns the word list's index of the topic in
 * *at (len where it was not drawn from the list). */
static uint32_t pick(const part_state *p, const uint64_t *e, uint32_t len, const uint32_t *topics, uint32_t m,
                     uint32_t K, double Q, double t, uint32_t *at)
{
    const lda_sparselda_worker *wk = p->wk;
    *at = len;
    if (t < Q) { /* the running sums from the largest counts: the walk ends early */
        double sum = 0;
        for (uint32_t j = 0; j < len; j++)
            if (t < (sum += entry_weight(wk->coef, e[j]))) {
                *at = j;
                return entry_topic(e[j]);
            }
        *at = len - 1; /* rounding: Q was summed in another order */
        return entry_topic(e[len - 1]);
    }
    double cum = Q;
    if (t < Q + p->R) {
        uint32_t last = UINT32_MAX;
        for (uint32_t j = 0; j < m; j++) {
            const uint32_t k = topics[j];
            if (!p->n[k])
                continue;
            cum += (double)p->n[k] * p->beta * wk->inv[k];
            last = k;
            if (t < cum)
                return k;
        }
        if (last != UINT32_MAX)
            return last;
    }
    cum = Q + p->R;
    for (uint32_t k = 0; k < K; k++) {
        cum += (double)p->alpha[k] * p->beta * wk->inv[k];
        if (t < cum)
            return k;
    }
    return K - 1;
}

static void draw_doc(const draw_ctx *c, part_state *p, size_t s)
{
    const lda_layout *L = c->layout;
    const lda_zdraw *in = c->in;
    const lda_sparselda *st = in->sparselda->state;
    lda_sparselda_worker *wk = p->wk;
    const uint32_t K = in->K, len = L->slot_len[s];
    if (!len)
        return;
    uint32_t *n = p->n = in->n_mk + s * K;
    const lda_sparse_doc d = {.words = L->words,
                              .z = c->z,
                              .base = lda_layout_pos(L, s, 0),
                              .stride = LDA_WARP,
                              .len = len,
                              .from_row = len < L->slot_doc_len[s] || len >= K,
                              .n = n,
                              .topics = wk->topics,
                              .K = K};
    uint32_t *topics = wk->topics, m = lda_sparse_list_build(&d);
    p->R = 0;
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t k = topics[j];
        p->R += (double)n[k] * p->beta * wk->inv[k];
        wk->coef[k] = ((double)p->alpha[k] + (double)n[k]) * wk->inv[k];
    }
    for (uint32_t i = 0; i < len; i++) {
        const size_t pos = d.base + (size_t)i * LDA_WARP;
        const uint32_t w = L->words[pos], old = c->z[pos];
        if (i + 1 < len) { /* the next token's word: its list's first lines, asked for while this one is
                              drawn (a hint: the same draws; 3-4% of a 1-thread bench's CPU time at
                              K = 1024 on wiki43k, in alternating runs) */
            const uint32_t w1 = L->words[pos + LDA_WARP];
            __builtin_prefetch(&wk->stamp[w1]);
            __builtin_prefetch(&wk->len[w1]);
            __builtin_prefetch(wk->entries + st->offset[w1]);
            __builtin_prefetch(wk->entries + st->offset[w1] + 8);
        }
        uint64_t *e = word_view(st, wk, w);
        uint32_t *wlen = &wk->len[w];
        const uint32_t j_old = entry_find(e, *wlen, old);
        if (j_old == *wlen) {
            wk->broken = 1;
            return;
        }
        entry_down(e, wlen, j_old);
        topic_moved(p, old, -1);
        const double Q = word_total(wk->coef, e, *wlen);
        const uint32_t bits = lda_rng_once(in->seed, LDA_RNG_Z, in->iteration, L->slot_token_base[s] + i);
        const double t = lda_scaled_target_double(Q + p->R + p->S, lda_uniform_double(bits));
        uint32_t at;
        const uint32_t topic = pick(p, e, *wlen, topics, m, K, Q, t, &at);
        c->z[pos] = topic;
        m = lda_sparse_list_add(topics, m, n, topic);
        topic_moved(p, topic, +1);
        if (at == *wlen && (at = entry_find(e, *wlen, topic)) == *wlen)
            e[(*wlen)++] = entry_of(0, topic);
        entry_up(e, at);
    }
    for (uint32_t j = 0; j < m; j++) /* the coefficients outside a document */
        wk->coef[topics[j]] = (double)p->alpha[topics[j]] * wk->inv[topics[j]];
}

static void draw_part(void *vctx, size_t part, int worker)
{
    const draw_ctx *c = vctx;
    const lda_zdraw *in = c->in;
    const lda_sparselda_in *sin = in->sparselda;
    const lda_sparselda *st = sin->state;
    (void)worker; /* the buffers are claimed: there are as many as parts may run at once, not threads */
    lda_sparselda_worker *wk = st->worker;
    while (__atomic_exchange_n(&wk->busy, 1, __ATOMIC_ACQUIRE))
        wk = wk + 1 < st->worker + st->workers ? wk + 1 : st->worker;
    const uint32_t K = in->K;
    if (++wk->epoch == 0) { /* the stamps wrapped: none is this part's */
        memset(wk->stamp, 0, (size_t)st->V * sizeof *wk->stamp);
        wk->epoch = 1;
    }
    part_state p = {wk, in->alpha, sin->fixed_scale, sin->beta, (double)st->V * sin->beta, 0, 0, NULL};
    memcpy(wk->n_k, sin->n_k, K * sizeof *wk->n_k);
    for (uint32_t k = 0; k < K; k++) {
        wk->inv[k] = p.fixed ? p.fixed[k] : 1.0 / ((double)wk->n_k[k] + p.vbeta);
        wk->coef[k] = (double)p.alpha[k] * wk->inv[k];
        p.S += (double)p.alpha[k] * p.beta * wk->inv[k];
    }
    for (size_t j = part; j < c->warps; j += st->parts) {
        const size_t q = j * c->part_count + in->part; /* the warp within this --refresh part */
        for (uint32_t r = 0; r < LDA_WARP && !wk->broken; r++)
            draw_doc(c, &p, q * LDA_WARP + r);
    }
    __atomic_store_n(&wk->busy, 0, __ATOMIC_RELEASE);
}

int lda_cpu_sample_z_sparselda(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err)
{
    const lda_sparselda_in *sin = in->sparselda;
    lda_sparselda *st = sin->state;
    draw_ctx c = {L, in, z, 0, in->part_count ? in->part_count : 1};
    c.warps = lda_part_warps(L->num_warps, in->part, (uint32_t)c.part_count);
    if (c.warps == 0)
        return 0;
    if (!in->n_mk || !sin->n_wk || !sin->n_k || st->K != in->K || st->V != L->vocab_size ||
        st->workers < lda_sparselda_workers(lda_pool_threads(pool), st->parts)) {
        lda_error_fail(err, "internal error: the sparselda draw needs the collapsed model's counts and its state");
        return -1;
    }
    build_ctx b = {sin, 0};
    lda_pool_run(pool, (st->V + LIST_WORDS_A_TASK - 1) / LIST_WORDS_A_TASK, build_words, &b);
    if (b.overflow) {
        lda_error_fail(err, "internal error: a word has more topics with a count than its tokens");
        return -1;
    }
    lda_pool_run(pool, st->parts, draw_part, &c);
    for (int i = 0; i < st->workers; i++)
        if (st->worker[i].broken) {
            st->worker[i].broken = 0;
            lda_error_fail(err, "internal error: a token's topic is missing from its word's counts");
            return -1;
        }
    return 0;
}
