/* planted.h — end-to-end recovery of planted topics, shared by the CPU and GPU tests. */
#ifndef LDA_TEST_PLANTED_H
#define LDA_TEST_PLANTED_H

#include "core/params.h"

/* Trains 12 topics on a synthetic corpus of 8 well-separated planted topics with the given
 * device, update, precision and sampler; asserts that every planted topic is recovered
 * (some learned topic's top words all come from it) and that both log-likelihoods rose. */
void planted_recovery(lda_device device, lda_update update, lda_precision precision, lda_sampler sampler);
/* The same for a model version (--model). */
void planted_recovery_model(lda_device device, lda_model_kind model, lda_precision precision, lda_sampler sampler);
/* The same for a model version drawn in `refresh` parts an iteration (--refresh). */
void planted_recovery_refreshed(lda_device device, lda_model_kind model, uint32_t refresh);

/* The same with documents cut into pieces of piece_length tokens (backend/layout.h). */
void planted_recovery_pieces(lda_device device, lda_model_kind model, uint32_t piece_length);

/* Each of the P planted topics (planted_kv, P x V, as a generated corpus's PATH.phi.npy) is
 * matched by a learned one (learned_kv, K x V, a model's phi.npy): within total-variation
 * distance max_tv (half the L1 distance of the two word distributions). */
void planted_expect_matched(const float *planted_kv, uint32_t P, const float *learned_kv, uint32_t K, uint32_t V,
                            double max_tv);

#endif
