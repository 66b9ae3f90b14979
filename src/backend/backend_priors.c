/* backend_priors.c — the priors of a backend: replaced before a run, learned within an
 * iteration (backend.h; the learning itself is optimize_priors.c). Both backends call it. */
#include <stdlib.h>

#include "backend/backend.h"

int lda_backend_set_priors(lda_backend *b, const lda_priors *priors, lda_error *err)
{
    lda_priors_copy(&b->priors, priors);
    return b->ops->priors_changed(b, err);
}

int lda_backend_learn_priors(lda_backend *b, uint32_t iteration, lda_error *err)
{
    const lda_params *p = &b->params;
    if (!lda_priors_due(iteration, p))
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
