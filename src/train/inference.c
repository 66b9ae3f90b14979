/* inference.c — see inference.h. */
#include "train/inference.h"

#include "backend/backend.h"

int lda_infer(const lda_layout *L, const lda_params *params, const lda_priors *priors, const float *phi_vk,
              uint32_t iterations, float *theta_slots, const lda_layout *scored, double *sum_loglik, lda_error *err)
{
    lda_params p = *params;
    p.freeze_phi = 1;
    p.update = LDA_UPDATE_MEAN;
    p.optimize_interval = 0; /* the priors are the model's */
    if (p.sampler == LDA_SAMPLER_SPARSELDA) /* its word–topic counts would move: with φ fixed, sparse's split */
        p.sampler = LDA_SAMPLER_SPARSE;
    lda_backend *b = lda_backend_create(L, &p, err);
    int rc = -1;
    if (!b)
        return -1;
    if ((priors && lda_backend_set_priors(b, priors, err)) || b->ops->set_phi(b, phi_vk, err) ||
        b->ops->start(b, NULL, 0, err))
        goto out;
    for (uint32_t it = 1; it <= iterations; it++)
        if (b->ops->iterate(b, it, NULL, err))
            goto out;
    if (theta_slots && b->ops->fetch(b, theta_slots, NULL, NULL, err))
        goto out;
    if (scored && b->ops->score(b, scored, sum_loglik, err))
        goto out;
    rc = 0;
out:
    lda_backend_destroy(b);
    return rc;
}
