/* planted.h — end-to-end recovery of planted topics, shared by the CPU and GPU tests. */
#ifndef LDA_TEST_PLANTED_H
#define LDA_TEST_PLANTED_H

#include "params.h"

/* Trains on a synthetic corpus of 8 well-separated planted topics with the given device,
 * update and precision; asserts that every planted topic is recovered (matched one to one
 * by the top words) and that both log-likelihoods rose. Returns 0, or skips when the
 * device is absent. */
void planted_recovery(lda_device device, lda_update update, lda_precision precision, lda_sampler sampler);

#endif
