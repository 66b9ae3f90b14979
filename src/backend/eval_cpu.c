/* eval_cpu.c — see eval_cpu.h. Per-task partial sums in double, combined in task order,
 * so the figures do not depend on the thread count. */
#include "backend/eval_cpu.h"

#include <math.h>
#include <stdlib.h>

#include "backend/updates_cpu.h"
#include "core/loglik.h"

typedef struct {
    const lda_layout *L;
    const float *theta, *phi;
    const uint32_t *n_mk, *n_wk, *n_k;
    uint32_t K;
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

int lda_cpu_loglik_pred(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                        uint32_t K, double *out, lda_error *err)
{
    eval_ctx c = {.L = L, .theta = theta, .phi = phi, .K = K};
    if (!(c.partial = lda_malloc_array(L->num_warps, sizeof(double), "log-likelihood", err)))
        return -1;
    lda_pool_run(pool, L->num_warps, pred_warp, &c);
    *out = sum_in_order(c.partial, L->num_warps) / (double)L->num_tokens;
    free(c.partial);
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
    lda_phi_chunk_words(chunk, c->L->vocab_size, &w0, &w1);
    double total = 0.0;
    for (size_t i = (size_t)w0 * c->K; i < (size_t)w1 * c->K; i++)
        total += lda_joint_count_term(c->n_wk[i], beta, lg_beta);
    c->partial[chunk] = total;
}

int lda_cpu_loglik_joint(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                         const uint32_t *n_k, uint32_t K, const lda_priors *priors, double *out, lda_error *err)
{
    size_t chunks = lda_phi_chunks(L->vocab_size);
    size_t tasks = L->num_warps > chunks ? L->num_warps : chunks;
    eval_ctx c = {.L = L, .n_mk = n_mk, .n_wk = n_wk, .n_k = n_k, .K = K, .priors = priors};
    const double beta = priors->beta;
    if (!(c.partial = lda_malloc_array(tasks, sizeof(double), "log-likelihood", err)))
        return -1;
    lda_pool_run(pool, L->num_warps, joint_docs_warp, &c);
    double docs = sum_in_order(c.partial, L->num_warps);
    lda_pool_run(pool, chunks, joint_words_chunk, &c);
    double words = sum_in_order(c.partial, chunks);
    double topics = 0.0;
    for (uint32_t k = 0; k < K; k++)
        topics += lda_joint_norm_term(n_k[k], L->vocab_size * beta);
    *out = (docs + words + topics) / (double)L->num_tokens;
    free(c.partial);
    return 0;
}
