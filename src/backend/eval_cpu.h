/* eval_cpu.h — the predictive and joint per-token log-likelihoods on the CPU (loglik.h). */
#ifndef LDA_EVAL_CPU_H
#define LDA_EVAL_CPU_H

#include <stdint.h>

#include "backend/layout.h"
#include "core/priors.h"
#include "util/threadpool.h"

int lda_cpu_loglik_pred(lda_pool *pool, const lda_layout *L, const float *theta, const float *phi,
                        uint32_t K, double *out, lda_error *err);

int lda_cpu_loglik_joint(lda_pool *pool, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                         const uint32_t *n_k, uint32_t K, const lda_priors *priors, double *out, lda_error *err);

#endif
