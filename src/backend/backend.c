/* backend.c — choosing a backend; see backend.h. */
#include "backend/backend.h"

#include <stddef.h>

lda_backend *lda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    lda_params p = *params;
    p.alpha = lda_params_alpha(params);
    switch (p.device) {
    case LDA_DEVICE_CPU:
        return lda_cpu_backend_create(L, &p, err);
    case LDA_DEVICE_CUDA:
        return lda_cuda_backend_create(L, &p, err);
    case LDA_DEVICE_AUTO:
    default: {
        char why[256];
        if (lda_cuda_device_count(why, sizeof why) > 0)
            return lda_cuda_backend_create(L, &p, err);
        return lda_cpu_backend_create(L, &p, err);
    }
    }
}

void lda_backend_destroy(lda_backend *b)
{
    if (b)
        b->ops->destroy(b);
}
