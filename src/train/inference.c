/* inference.c — see inference.h. */
#include "train/inference.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "model/model_corpus.h"

int lda_infer(const lda_layout *L, const lda_params *params, const lda_priors *priors, const float *phi_vk,
              uint32_t iterations, float *theta_slots, const lda_layout *scored, double *sum_loglik, lda_error *err)
{
    lda_params p = *params;
    p.freeze_phi = 1;
    p.update = LDA_UPDATE_MEAN;
    p.optimize_interval = 0; /* the priors are the model's */
    if (lda_sampler_cpu_only(p.sampler)) /* made for φ the counts' mean: with φ fixed, sparse's split */
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

int lda_model_infer(const lda_model *m, const corpus *docs, const lda_params *p, uint32_t iterations,
                    lda_layout **layout, float **theta_slots, lda_error *err)
{
    lda_priors priors;
    lda_layout *L = NULL;
    float *phi = NULL, *theta = NULL;
    *layout = NULL;
    *theta_slots = NULL;
    if (!docs->num_docs)
        return 0;
    if (lda_model_priors(m, &priors, err))
        return -1;
    const int rc = !(L = lda_layout_build(docs, lda_params_piece_length(p), err)) || !(phi = lda_model_phi_vk(m, err)) ||
                   !(theta = lda_malloc_array(L->num_slots * (size_t)m->num_topics, sizeof *theta, "theta", err)) ||
                   lda_infer(L, p, &priors, phi, iterations, theta, NULL, NULL, err);
    lda_priors_free(&priors);
    free(phi);
    if (rc) {
        free(theta);
        lda_layout_free(L);
        return -1;
    }
    *layout = L;
    *theta_slots = theta;
    return 0;
}

const float *lda_theta_input_row(const corpus *docs, const lda_layout *L, const float *theta_slots, uint32_t K,
                                 size_t i, size_t *kept, const float *uniform)
{
    /* kept documents are in input order: *kept is the next one, advanced as i passes it */
    if (*kept < docs->num_docs && docs->input_index[*kept] == i)
        return theta_slots + (size_t)L->doc_slot[(*kept)++] * K;
    return uniform;
}
