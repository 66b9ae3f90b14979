/* priors.c — see priors.h. */
#include "core/priors.h"

#include <stdlib.h>
#include <string.h>

#include "core/loglik.h"

int lda_priors_init(lda_priors *p, uint32_t K, double alpha, double beta, lda_error *err)
{
    memset(p, 0, sizeof *p);
    p->K = K;
    if (!(p->alpha = lda_malloc_array(K, sizeof *p->alpha, "priors", err)) ||
        !(p->lgamma_alpha = lda_malloc_array(K, sizeof *p->lgamma_alpha, "priors", err)) ||
        !(p->alpha_float = lda_malloc_array(K, sizeof *p->alpha_float, "priors", err))) {
        lda_priors_free(p);
        return -1;
    }
    const double lg = LDA_LGAMMA(alpha);
    for (uint32_t k = 0; k < K; k++) {
        p->alpha[k] = alpha;
        p->lgamma_alpha[k] = lg;
        p->alpha_float[k] = (float)alpha;
    }
    p->alpha_sum = K * alpha;
    p->beta = beta;
    return 0;
}

void lda_priors_learn(lda_priors *p, const double *alpha, double beta)
{
    double sum = 0.0;
    for (uint32_t k = 0; k < p->K; k++) {
        p->alpha_float[k] = (float)alpha[k];
        p->alpha[k] = p->alpha_float[k];
        p->lgamma_alpha[k] = LDA_LGAMMA(p->alpha[k]);
        sum += p->alpha[k];
    }
    p->alpha_sum = sum;
    p->beta = (float)beta;
    p->learned = 1;
}

void lda_priors_copy(lda_priors *to, const lda_priors *from)
{
    memcpy(to->alpha, from->alpha, from->K * sizeof *to->alpha);
    memcpy(to->lgamma_alpha, from->lgamma_alpha, from->K * sizeof *to->lgamma_alpha);
    memcpy(to->alpha_float, from->alpha_float, from->K * sizeof *to->alpha_float);
    to->alpha_sum = from->alpha_sum;
    to->beta = from->beta;
    to->learned = from->learned;
}

void lda_priors_free(lda_priors *p)
{
    free(p->alpha);
    free(p->lgamma_alpha);
    free(p->alpha_float);
    memset(p, 0, sizeof *p);
}
