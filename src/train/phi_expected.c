/* phi_expected.c — see phi_expected.h. */
#include "train/phi_expected.h"

#include <stdlib.h>
#include <string.h>

#include "util/threadpool.h"

/* The words are split into this many parts of about equal tokens, whatever the thread count:
 * each part's topic totals are summed apart and the parts added in order. */
#define PARTS 256u

typedef struct {
    uint32_t topic, count; /* n[m,k] */
} doc_entry;

typedef struct {
    uint32_t K, V;
    const double *alpha;
    double beta;
    const uint32_t *n_k;     /* K: the tokens of each topic */
    double *base;            /* K: β / (n[k] + Vβ), a factor where the word has no token */
    double base_alpha_sum;   /* Σ_k α_k base[k] */
    const uint64_t *word_at; /* V + 1: word w's tokens at [word_at[w], word_at[w + 1]) of the two below */
    uint32_t *token_doc;     /* each token's document, grouped by word, in corpus order within */
    uint32_t *token_topic;   /* ... and its topic */
    uint32_t *token_slot;    /* ... and its topic's place in its document's list */
    const uint64_t *list_at; /* num_docs + 1: document m's list at [list_at[m], list_at[m + 1]) */
    doc_entry *list;         /* each document's topics and counts */
    uint32_t part_word[PARTS + 1];
    double *part_total;      /* PARTS × K: each part's Σ_w e[w,k] */
    double *scratch;         /* per worker: 2K doubles (the factors, the expected counts) */
    uint32_t *word_count;    /* per worker: 2K (the word's n[w,k], its topics) */
    float *phi_vk;           /* the expected counts, then φ */
} work;

/* The expected counts of word w into e (K, zero on entry), then into phi_vk's row. f holds base's
 * factors on entry and is left so; n_w is zero on entry and left so; touched has room for K. */
static void word_row(const work *x, uint32_t w, double *f, double *e, uint32_t *n_w, uint32_t *touched)
{
    const uint32_t K = x->K, V = x->V;
    const uint64_t t0 = x->word_at[w], t1 = x->word_at[w + 1];
    const double Vb = V * x->beta;
    uint32_t num_touched = 0;
    for (uint64_t t = t0; t < t1; t++)
        if (n_w[x->token_topic[t]]++ == 0)
            touched[num_touched++] = x->token_topic[t];
    double alpha_sum = x->base_alpha_sum; /* Σ_k α_k f_k over the word's factors */
    for (uint32_t i = 0; i < num_touched; i++) {
        const uint32_t k = touched[i];
        f[k] = (n_w[k] + x->beta) / (x->n_k[k] + Vb);
        alpha_sum += x->alpha[k] * (f[k] - x->base[k]);
    }
    double inv_sum = 0.0; /* Σ over the word's tokens of 1 / Z */
    for (uint64_t g0 = t0, g1; g0 < t1; g0 = g1) {
        /* The word's tokens in one document: their conditionals share the document's sum. */
        const uint32_t m = x->token_doc[g0];
        for (g1 = g0 + 1; g1 < t1 && x->token_doc[g1] == m; g1++)
            ;
        const doc_entry *list = x->list + x->list_at[m];
        const uint32_t len = (uint32_t)(x->list_at[m + 1] - x->list_at[m]);
        double sum = alpha_sum; /* Σ_k (n[m,k] + α_k) f_k, the token still counted */
        for (uint32_t l = 0; l < len; l++)
            sum += list[l].count * f[list[l].topic];
        double group_inv = 0.0; /* Σ over the group's tokens of 1 / Z */
        for (uint64_t t = g0; t < g1; t++) {
            /* The token off its own topic s: n[m,s] − 1, and f¬_s = (n[w,s] − 1 + β) / (n[s] − 1 + Vβ)
             * in place of f_s, in the document part and the α part. */
            const uint32_t s = x->token_topic[t], c_s = list[x->token_slot[t]].count;
            const double f_own = (n_w[s] - 1 + x->beta) / (x->n_k[s] - 1 + Vb);
            const double own = (c_s - 1) * f_own + x->alpha[s] * (f_own - f[s]) - c_s * f[s];
            const double inv = 1.0 / (sum + own);
            e[s] += own * inv; /* what the shares below and the α row give s, corrected */
            group_inv += inv;
        }
        for (uint32_t l = 0; l < len; l++)
            e[list[l].topic] += list[l].count * f[list[l].topic] * group_inv;
        inv_sum += group_inv;
    }
    float *out = x->phi_vk + (uint64_t)w * K;
    for (uint32_t k = 0; k < K; k++)
        out[k] = (float)(e[k] + inv_sum * x->alpha[k] * f[k]);
    for (uint32_t i = 0; i < num_touched; i++) { /* as the next word expects them */
        f[touched[i]] = x->base[touched[i]];
        n_w[touched[i]] = 0;
    }
}

static void part_task(void *ctx, size_t part, int worker)
{
    work *x = ctx;
    const uint32_t K = x->K;
    double *f = x->scratch + (size_t)worker * 2 * K, *e = f + K;
    uint32_t *n_w = x->word_count + (size_t)worker * 2 * K, *touched = n_w + K;
    double *total = x->part_total + part * K;
    memcpy(f, x->base, K * sizeof *f);
    for (uint32_t w = x->part_word[part]; w < x->part_word[part + 1]; w++) {
        memset(e, 0, K * sizeof *e);
        word_row(x, w, f, e, n_w, touched);
        const float *row = x->phi_vk + (uint64_t)w * K;
        for (uint32_t k = 0; k < K; k++)
            total[k] += row[k];
    }
}

typedef struct {
    work *x;
    const double *scale; /* K: 1 / (Σ_w e[w,k] + Vβ) */
} normalize_ctx;

static void normalize_task(void *ctx, size_t part, int worker)
{
    (void)worker;
    const normalize_ctx *n = ctx;
    const work *x = n->x;
    for (uint32_t w = x->part_word[part]; w < x->part_word[part + 1]; w++) {
        float *row = x->phi_vk + (uint64_t)w * x->K;
        for (uint32_t k = 0; k < x->K; k++)
            row[k] = (float)((row[k] + x->beta) * n->scale[k]);
    }
}

/* The tokens grouped by word (corpus order within a word) and every document's list of topics. */
static int group_tokens(const corpus *c, const uint32_t *z, work *x, uint64_t *word_at, uint64_t *list_at,
                        uint32_t *n_k, lda_error *err)
{
    const uint32_t K = x->K, V = x->V;
    const size_t N = c->num_tokens, D = c->num_docs;
    uint32_t *mark = lda_calloc(K, sizeof *mark, "topic marks", err);
    if (!mark)
        return -1;
    for (size_t t = 0; t < N; t++) {
        word_at[c->words[t] + 1]++;
        n_k[z[t]]++;
    }
    for (uint32_t w = 0; w < V; w++)
        word_at[w + 1] += word_at[w];
    list_at[0] = 0;
    for (size_t m = 0; m < D; m++) { /* a document's distinct topics: marked by m + 1 */
        uint64_t distinct = 0;
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++)
            if (mark[z[t]] != m + 1) {
                mark[z[t]] = (uint32_t)(m + 1);
                distinct++;
            }
        list_at[m + 1] = list_at[m] + distinct;
    }
    if (!(x->token_doc = lda_malloc_array(N ? N : 1, sizeof(uint32_t), "tokens by word", err)) ||
        !(x->token_topic = lda_malloc_array(N ? N : 1, sizeof(uint32_t), "tokens by word", err)) ||
        !(x->token_slot = lda_malloc_array(N ? N : 1, sizeof(uint32_t), "tokens by word", err)) ||
        !(x->list = lda_malloc_array(list_at[D] ? list_at[D] : 1, sizeof(doc_entry), "document lists", err))) {
        free(mark);
        return -1;
    }
    uint64_t *next = lda_malloc_array(V + 1, sizeof *next, "word offsets", err);
    if (!next) {
        free(mark);
        return -1;
    }
    memcpy(next, word_at, (V + 1) * sizeof *next);
    memset(mark, 0, K * sizeof *mark);
    for (size_t m = 0; m < D; m++) {
        uint64_t end = list_at[m];
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++) {
            const uint32_t k = z[t], w = c->words[t];
            if (!mark[k]) { /* mark: 1 + the topic's place in the list */
                mark[k] = (uint32_t)(end - list_at[m] + 1);
                x->list[end++] = (doc_entry){k, 0};
            }
            x->list[list_at[m] + mark[k] - 1].count++;
            x->token_doc[next[w]] = (uint32_t)m;
            x->token_slot[next[w]] = mark[k] - 1;
            x->token_topic[next[w]++] = k;
        }
        for (uint64_t l = list_at[m]; l < end; l++)
            mark[x->list[l].topic] = 0;
    }
    free(next);
    free(mark);
    return 0;
}

uint64_t lda_phi_expected_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K)
{
    const uint64_t lists = num_docs * K < num_tokens ? num_docs * K : num_tokens;
    return 3 * num_tokens * sizeof(uint32_t) +             /* each token's document, topic, place */
           lists * sizeof(doc_entry) +                     /* the documents' lists */
           2 * ((uint64_t)vocab_size + 1) * sizeof(uint64_t) + /* word offsets, twice while grouping */
           (num_docs + 1) * sizeof(uint64_t) +             /* document offsets */
           (uint64_t)PARTS * K * sizeof(double) + 3 * (uint64_t)K * sizeof(uint32_t); /* totals, counts */
}

int lda_phi_expected(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *priors, int threads,
                     float *phi_vk, lda_error *err)
{
    const uint32_t V = c->vocab_size;
    work x = {.K = K, .V = V, .alpha = priors->alpha, .beta = priors->beta, .phi_vk = phi_vk};
    uint64_t *word_at = lda_calloc((size_t)V + 1, sizeof *word_at, "word offsets", err);
    uint64_t *list_at = lda_calloc(c->num_docs + 1, sizeof *list_at, "document offsets", err);
    uint32_t *n_k = lda_calloc(K, sizeof *n_k, "topic counts", err);
    double *scale = NULL;
    lda_pool *pool = NULL;
    int rc = -1;
    if (!word_at || !list_at || !n_k || group_tokens(c, z, &x, word_at, list_at, n_k, err))
        goto out;
    x.word_at = word_at;
    x.list_at = list_at;
    x.n_k = n_k;
    if (!(pool = lda_pool_create(threads, err)))
        goto out;
    const int workers = lda_pool_threads(pool);
    if (!(x.base = lda_malloc_array(K, sizeof *x.base, "factors", err)) ||
        !(x.part_total = lda_calloc((size_t)PARTS * K, sizeof *x.part_total, "topic totals", err)) ||
        !(x.scratch = lda_malloc_array((size_t)workers * 2 * K, sizeof *x.scratch, "factors", err)) ||
        !(x.word_count = lda_calloc((size_t)workers * 2 * K, sizeof *x.word_count, "word counts", err)) ||
        !(scale = lda_malloc_array(K, sizeof *scale, "topic totals", err)))
        goto out;
    for (uint32_t k = 0; k < K; k++) {
        x.base[k] = x.beta / (n_k[k] + V * x.beta);
        x.base_alpha_sum += x.alpha[k] * x.base[k];
    }
    /* Parts of about N / PARTS tokens each, cut between words. */
    const uint64_t N = word_at[V];
    uint32_t w = 0;
    x.part_word[0] = 0;
    for (uint32_t p = 1; p <= PARTS; p++) {
        const uint64_t goal = N * p / PARTS;
        while (w < V && word_at[w + 1] <= goal)
            w++;
        x.part_word[p] = p == PARTS ? V : w;
    }
    lda_pool_run(pool, PARTS, part_task, &x);
    for (uint32_t k = 0; k < K; k++) {
        double total = 0.0;
        for (uint32_t p = 0; p < PARTS; p++)
            total += x.part_total[(size_t)p * K + k];
        scale[k] = 1.0 / (total + V * x.beta);
    }
    normalize_ctx n = {&x, scale};
    lda_pool_run(pool, PARTS, normalize_task, &n);
    rc = 0;
out:
    lda_pool_destroy(pool);
    free(scale);
    free(x.word_count);
    free(x.scratch);
    free(x.part_total);
    free(x.base);
    free(x.list);
    free(x.token_slot);
    free(x.token_topic);
    free(x.token_doc);
    free(n_k);
    free(list_at);
    free(word_at);
    return rc;
}
