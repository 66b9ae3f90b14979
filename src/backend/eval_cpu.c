/* eval_cpu.c — see eval_cpu.h. Per-task partial sums in double, combined in task order,
 * so the figures do not depend on the thread count (nor on the shards). */
#include "backend/eval_cpu.h"

#include <math.h>
#include <stdlib.h>

#include "backend/updates_cpu.h"
#include "core/loglik.h"

typedef struct {
    const lda_layout *L;
    const float *theta, *phi;
    const uint32_t *n_mk, *n_wk;
    uint32_t K, V;
    const lda_priors *priors;
    double *partial;
} eval_ctx;

static void pred_warp(void *vctx, size_t q, int worker)
{
    (void)worker;
    const eval_ctx *c = vctx;
    double total = 0.0;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        size_t s = q * LDA_WARP + r;
        const float *th = c->theta + s * c->K;
        for (uint32_t i = 0; i < c->L->slot_len[s]; i++) {
            const float *ph = c->phi + (size_t)c->L->words[lda_layout_pos(c->L, s, i)] * c->K;
            double p = 0.0;
            for (uint32_t k = 0; k < c->K; k++)
                p += (double)th[k] * ph[k];
            total += log(p);
        }
    }
    c->partial[q] = total;
}

static double sum_in_order(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

void lda_cpu_loglik_pred_terms(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                               uint32_t K, double *per_warp)
{
    eval_ctx c = {.L = L, .theta = theta, .phi = phi, .K = K, .partial = per_warp};
    lda_pool_run(pool, L->num_warps, pred_warp, &c);
}

double lda_loglik_pred_from_terms(const double *per_warp, size_t num_warps, size_t num_tokens)
{
    return sum_in_order(per_warp, num_warps) / (double)num_tokens;
}

int lda_cpu_loglik_pred(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                        uint32_t K, double *out, lda_error *err)
{
    double *partial = lda_malloc_array(L->num_warps ? L->num_warps : 1, sizeof(double), "log-likelihood", err);
    if (!partial)
        return -1;
    lda_cpu_loglik_pred_terms(pool, L, theta, phi, K, partial);
    *out = lda_loglik_pred_from_terms(partial, L->num_warps, L->num_tokens);
    free(partial);
    return 0;
}

/* Document part of the joint log-likelihood, one warp of slots per task. */
static void joint_docs_warp(void *vctx, size_t q, int worker)
{
    (void)worker;
    const eval_ctx *c = vctx;
    double total = 0.0;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        size_t s = q * LDA_WARP + r;
        if (c->L->slot_doc[s] == LDA_NO_DOC || c->L->slot_piece[s] != 0) /* a document once */
            continue;
        const uint32_t *n = c->n_mk + s * c->K;
        for (uint32_t k = 0; k < c->K; k++)
            total += lda_joint_count_term(n[k], c->priors->alpha[k], c->priors->lgamma_alpha[k]);
        total += lda_joint_norm_term(c->L->slot_doc_len[s], c->priors->alpha_sum);
    }
    c->partial[q] = total;
}

/* Word part, one chunk of the vocabulary per task. */
static void joint_words_chunk(void *vctx, size_t chunk, int worker)
{
    (void)worker;
    const eval_ctx *c = vctx;
    const double beta = c->priors->beta, lg_beta = LDA_LGAMMA(beta);
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, c->V, &w0, &w1);
    double total = 0.0;
    for (size_t i = (size_t)w0 * c->K; i < (size_t)w1 * c->K; i++)
        total += lda_joint_count_term(c->n_wk[i], beta, lg_beta);
    c->partial[chunk] = total;
}

void lda_cpu_joint_doc_terms(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, uint32_t K,
                             const lda_priors *priors, double *per_warp)
{
    eval_ctx c = {.L = L, .n_mk = n_mk, .K = K, .priors = priors, .partial = per_warp};
    lda_pool_run(pool, L->num_warps, joint_docs_warp, &c);
}

void lda_cpu_joint_word_terms(lda_pool *pool, uint32_t V, const uint32_t *n_wk, uint32_t K,
                              const lda_priors *priors, double *per_chunk)
{
    eval_ctx c = {.n_wk = n_wk, .K = K, .V = V, .priors = priors, .partial = per_chunk};
    lda_pool_run(pool, lda_phi_chunks(V), joint_words_chunk, &c);
}

double lda_loglik_joint_from_terms(const double *doc_per_warp, size_t num_warps, const double *word_per_chunk,
                                   uint32_t V, const uint32_t *n_k, uint32_t K, const lda_priors *priors,
                                   size_t num_tokens)
{
    const double docs = sum_in_order(doc_per_warp, num_warps);
    const double words = sum_in_order(word_per_chunk, lda_phi_chunks(V));
    double topics = 0.0;
    for (uint32_t k = 0; k < K; k++)
        topics += lda_joint_norm_term(n_k[k], V * priors->beta);
    return (docs + words + topics) / (double)num_tokens;
}

int lda_cpu_loglik_joint(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                         const uint32_t *n_k, uint32_t K, const lda_priors *priors, double *out, lda_error *err)
{
    double *docs = lda_malloc_array(L->num_warps ? L->num_warps : 1, sizeof(double), "log-likelihood", err);
    double *words = lda_malloc_array(lda_phi_chunks(L->vocab_size) + 1, sizeof(double), "log-likelihood", err);
    if (!docs || !words) {
        free(docs);
        free(words);
        return -1;
    }
    lda_cpu_joint_doc_terms(pool, L, n_mk, K, priors, docs);
    lda_cpu_joint_word_terms(pool, L->vocab_size, n_wk, K, priors, words);
    *out = lda_loglik_joint_from_terms(docs, L->num_warps, words, L->vocab_size, n_k, K, priors, L->num_tokens);
    free(docs);
    free(words);
    return 0;
}
