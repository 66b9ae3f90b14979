/* topwords.h — the most probable words of a topic, for topics.txt and `ldagpu topics`. */
#ifndef LDA_TOPWORDS_H
#define LDA_TOPWORDS_H

#include <stdint.h>

/* Writes into out[0..n) the ids of the n largest values of row[0..V), largest first
 * (ties: smaller id first). n must be <= V. */
void lda_top_indices(const float *row, uint32_t V, uint32_t n, uint32_t *out);

#endif
