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
#include "corpus/corpus.h"
#include "model/model.h"

/* Runs `iterations` sweeps on the documents of L with φ = phi_vk (V × K), the priors given
 * (a model's learned ones; NULL: params' symmetric alpha) and the settings of params
 * (num_topics, alpha, seed, precision, device, sampler, threads; the rest is ignored). Then, when theta_slots is not NULL, copies θ (num_slots × K, layout order)
 * there, and when scored is not NULL (a layout built like L), stores in *sum_loglik
 * Σ over scored's tokens of log Σ_k θ[s,k] φ[w,k]. */
int lda_infer(const lda_layout *L, const lda_params *params, const lda_priors *priors, const float *phi_vk,
              uint32_t iterations, float *theta_slots, const lda_layout *scored, double *sum_loglik, lda_error *err);

/* Inference of the documents of docs (in m's vocabulary) under model m, its φ and its priors at
 * the end of training, as `ldagpu infer` runs it: p's device, threads, sampler and seed,
 * `iterations` sweeps. *layout and *theta_slots (num_slots × K, layout order) are the caller's to
 * free; both NULL when docs has no document with tokens. */
int lda_model_infer(const lda_model *m, const corpus *docs, const lda_params *p, uint32_t iterations,
                    lda_layout **layout, float **theta_slots, lda_error *err);

/* Input document i's row of θ: its slot's, or, for a document without tokens, the uniform row
 * (`uniform`, K values of 1/K). */
const float *lda_theta_input_row(const corpus *docs, const lda_layout *L, const float *theta_slots, uint32_t K,
                                 size_t i, size_t *kept, const float *uniform);

#endif
