/* backend_core.c — a device's backend made and ended, and start and iterate made of steps;
 * see backend.h. (backend.c chooses between one device and shards of several.) */
#include "backend/backend.h"

#include <stddef.h>
#include <stdlib.h>

#include "backend/eval_cpu.h"
#include "backend/stream_plan.h"
#include "core/phi_chunks.h"
#include "util/clock.h"

/* The CPU's backend; --stream-tokens on asked of a run that found no GPU is refused here. */
static lda_backend *cpu_create(const lda_layout *L, const lda_params *p, lda_error *err)
{
    if (p->stream_tokens == LDA_STREAM_ON) {
        lda_params on_cpu = *p;
        on_cpu.device = LDA_DEVICE_CPU;
        lda_error_input(err, "--stream-tokens on: %s", lda_stream_refusal_params(&on_cpu));
        return NULL;
    }
    return lda_cpu_backend_create(L, p, err);
}

static lda_backend *create(const lda_layout *L, const lda_params *p, lda_error *err)
{
    switch (p->device) {
    case LDA_DEVICE_CPU:
        return cpu_create(L, p, err);
    case LDA_DEVICE_CUDA:
        return lda_cuda_backend_create(L, p, err);
    case LDA_DEVICE_AUTO:
    default: {
        char why[256];
        if (lda_cuda_device_count(why, sizeof why) > 0)
            return lda_cuda_backend_create(L, p, err);
        return cpu_create(L, p, err);
    }
    }
}

lda_backend *lda_backend_with_priors(lda_backend *b, lda_error *err)
{
    if (b && (lda_priors_init(&b->priors, b->params.num_topics, lda_params_alpha(&b->params), b->params.beta, err) ||
              b->ops->priors_changed(b, err))) {
        lda_backend_destroy(b);
        return NULL;
    }
    return b;
}

lda_backend *lda_backend_create_one(const lda_layout *L, const lda_params *params, lda_error *err)
{
    lda_params p = *params;
    p.alpha = lda_params_alpha(params);
    lda_zplan_resolve_sampler(&p);
    return lda_backend_with_priors(create(L, &p, err), err);
}

void lda_backend_destroy(lda_backend *b)
{
    if (!b)
        return;
    lda_priors_free(&b->priors);
    if (b->hist) {
        lda_count_hist_free(b->hist);
        free(b->hist);
    }
    b->ops->destroy(b);
}

int lda_backend_start_in_steps(lda_backend *b, const uint32_t *z, uint32_t iteration, lda_error *err)
{
    return b->ops->set_z(b, z, err) || b->ops->update_step(b, iteration, b->params.refresh - 1, err) ? -1 : 0;
}

int lda_backend_iterate_in_steps(lda_backend *b, uint32_t iteration, lda_iter_timing *timing, lda_error *err)
{
    const uint32_t R = b->params.refresh;
    double z_seconds = 0, update_seconds = 0;
    for (uint32_t part = 0; part < R; part++) {
        const double t0 = lda_now_seconds();
        if (b->ops->draw_step(b, iteration, part, err))
            return -1;
        const double t1 = lda_now_seconds();
        if ((part + 1 == R && lda_backend_learn_priors(b, iteration, err)) ||
            b->ops->update_step(b, iteration, part, err))
            return -1;
        z_seconds += t1 - t0;
        update_seconds += lda_now_seconds() - t1;
    }
    if (timing) {
        timing->z_seconds = z_seconds;
        timing->update_seconds = update_seconds;
        timing->copy_wait_seconds = 0;
    }
    return 0;
}

int lda_backend_evaluate_from_terms(lda_backend *b, lda_eval *out, lda_error *err)
{
    const lda_layout *L = b->layout;
    const uint32_t K = b->params.num_topics;
    double *pred = lda_malloc_array(L->num_warps + 1, sizeof *pred, "log-likelihood", err);
    double *docs = lda_malloc_array(L->num_warps + 1, sizeof *docs, "log-likelihood", err);
    double *words = lda_malloc_array(lda_phi_chunks(L->vocab_size) + 1, sizeof *words, "log-likelihood", err);
    uint32_t *n_k = lda_malloc_array(K, sizeof *n_k, "topic counts", err);
    int rc = -1;
    if (pred && docs && words && n_k && !b->ops->eval_terms(b, NULL, pred, docs, words, err) &&
        !b->ops->fetch_counts(b, NULL, NULL, n_k, err)) {
        out->loglik_pred = lda_loglik_pred_from_terms(pred, L->num_warps, L->num_tokens);
        out->loglik_joint = lda_loglik_joint_from_terms(docs, L->num_warps, words, L->vocab_size, n_k, K, &b->priors,
                                                        L->num_tokens);
        rc = 0;
    }
    free(pred);
    free(docs);
    free(words);
    free(n_k);
    return rc;
}

int lda_backend_score_from_terms(lda_backend *b, const lda_layout *scored, double *sum_loglik, lda_error *err)
{
    if (scored->num_slots != b->layout->num_slots) {
        lda_error_fail(err, "internal error: scoring a layout of %zu slots against %zu", scored->num_slots,
                       b->layout->num_slots);
        return -1;
    }
    double *warps = lda_malloc_array(scored->num_warps + 1, sizeof *warps, "log-likelihood", err);
    const int rc = !warps || b->ops->eval_terms(b, scored, warps, NULL, NULL, err) ? -1 : 0;
    if (!rc) /* the mean times the tokens, so that every backend rounds the same way */
        *sum_loglik = scored->num_tokens ? lda_loglik_pred_from_terms(warps, scored->num_warps, scored->num_tokens) *
                                               (double)scored->num_tokens
                                         : 0.0;
    free(warps);
    return rc;
}
