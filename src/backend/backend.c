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
