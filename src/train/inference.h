/* inference.h — topic proportions of documents under a fixed φ.
 *
 * A backend with params.freeze_phi holds the given φ (set_phi) and samples only z and θ: z
 * starts uniformly at random, then each sweep draws every z from θ·φ and sets θ to its
 * conditional mean (n[m,k] + α_k)/(N[m] + Σα) (the mean update, whatever the model was trained
 * with: the estimate reported or scored is then the posterior mean given the last z, not one
 * noisy Dirichlet draw). Random numbers are keyed on (seed, purpose, sweep 1..n, token), so
 * a result is reproducible and independent of the thread count, as in training. */
#ifndef LDA_INFERENCE_H
#define LDA_INFERENCE_H

#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"
#include "core/priors.h"

/* Runs `iterations` sweeps on the documents of L with φ = phi_vk (V × K), the priors given
 * (a model's learned ones; NULL: params' symmetric alpha) and the settings of params
 * (num_topics, alpha, seed, precision, device, sampler, threads; the rest is ignored). Then, when theta_slots is not NULL, copies θ (num_slots × K, layout order)
 * there, and when scored is not NULL (a layout built like L), stores in *sum_loglik
 * Σ over scored's tokens of log Σ_k θ[s,k] φ[w,k]. */
int lda_infer(const lda_layout *L, const lda_params *params, const lda_priors *priors, const float *phi_vk,
              uint32_t iterations, float *theta_slots, const lda_layout *scored, double *sum_loglik, lda_error *err);

#endif
