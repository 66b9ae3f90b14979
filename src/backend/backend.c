/* backend.c — choosing a backend; see backend.h. */
#include "backend/backend.h"

#include <stddef.h>
#include <stdlib.h>

static lda_backend *create(const lda_layout *L, const lda_params *p, lda_error *err)
{
    switch (p->device) {
    case LDA_DEVICE_CPU:
        return lda_cpu_backend_create(L, p, err);
    case LDA_DEVICE_CUDA:
        return lda_cuda_backend_create(L, p, err);
    case LDA_DEVICE_AUTO:
    default: {
        char why[256];
        if (lda_cuda_device_count(why, sizeof why) > 0)
            return lda_cuda_backend_create(L, p, err);
        return lda_cpu_backend_create(L, p, err);
    }
    }
}

lda_backend *lda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    lda_params p = *params;
    p.alpha = lda_params_alpha(params);
    lda_backend *b = create(L, &p, err);
    if (!b)
        return NULL;
    if (lda_priors_init(&b->priors, p.num_topics, p.alpha, p.beta, err) || b->ops->priors_changed(b, err)) {
        lda_backend_destroy(b);
        return NULL;
    }
    return b;
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

int lda_backend_set_priors(lda_backend *b, const lda_priors *priors, lda_error *err)
{
    lda_priors_copy(&b->priors, priors);
    return b->ops->priors_changed(b, err);
}

int lda_backend_learn_priors(lda_backend *b, uint32_t iteration, lda_error *err)
{
    const lda_params *p = &b->params;
    if (!lda_priors_due(iteration, p->optimize_interval, p->optimize_burn_in))
        return 0;
    if (!b->hist) {
        if (!(b->hist = lda_calloc(1, sizeof *b->hist, "count histograms", err)))
            return -1;
        if (lda_count_hist_alloc(b->hist, p->num_topics, b->layout->num_tokens, err)) {
            free(b->hist);
            b->hist = NULL;
            return -1;
        }
    }
    if (b->ops->count_histograms(b, b->hist, err) || lda_optimize_priors(b->hist, b->layout, &b->priors, err))
        return -1;
    return b->ops->priors_changed(b, err);
}
