/* priors.h — the Dirichlet priors a run samples with: α per topic, β the same for every word.
 *
 * A run starts with the symmetric α (--alpha, by default lda_params_alpha's) and β (--beta). With
 * --optimize-interval they are learned from the counts (backend/optimize_priors.h): α becomes
 * one value per topic and β another symmetric value. Learned values are rounded to float, so
 * that the float and double forms below hold the same numbers and a model's alpha.npy (float)
 * gives back exactly the priors it was trained with. Symmetric priors keep their double value
 * and K·α as the sum, so a run without learning computes exactly as before per-topic α. */
#ifndef LDA_PRIORS_H
#define LDA_PRIORS_H

#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t K;
    double *alpha;        /* K: α_k */
    double *lgamma_alpha; /* K: lgamma(α_k), for the joint log-likelihood */
    float *alpha_float;   /* K: (float)α_k, the θ-collapsed weights n[m,k] + α_k (float, as before) */
    double alpha_sum;     /* Σ_k α_k; K·α exactly when symmetric */
    double beta;
    int learned;          /* set by lda_priors_learn: α and β are float values */
} lda_priors;

/* Symmetric α and β. */
int lda_priors_init(lda_priors *p, uint32_t K, double alpha, double beta, lda_error *err);
/* Learned values (rounded to float): α_k for every topic, β. */
void lda_priors_learn(lda_priors *p, const double *alpha, double beta);
/* The same priors in another lda_priors of the same K. */
void lda_priors_copy(lda_priors *to, const lda_priors *from);
void lda_priors_free(lda_priors *p);

#ifdef __cplusplus
}
#endif

#endif
