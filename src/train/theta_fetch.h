/* theta_fetch.h — a trained model's θ in the form it keeps (model/theta.h), from the
 * backend's θ a chunk of slots at a time: a top:N or sparse θ of 10^7 documents never takes
 * a dense D × K array on the host (only two chunks of LDA_THETA_CHUNK_BYTES of rows), a dense
 * one a single copy. Each chunk's rows are fetched once; while the run's threads (-j) keep the
 * entries of one chunk, the next is fetched into the other buffer. Rows go to their documents
 * in input order: a cut document's first piece stands for it (all its pieces have its θ row,
 * layout.h), and the input documents not trained on (empty, held out) get the uniform row
 * 1/K. */
#ifndef LDA_THETA_FETCH_H
#define LDA_THETA_FETCH_H

#include <stdint.h>

#include "backend/backend.h"
#include "core/error.h"
#include "corpus/corpus.h"
#include "model/theta.h"

/* Slots fetched at a time: this many bytes of rows, at least one warp of them. */
#define LDA_THETA_CHUNK_BYTES (32u << 20)

/* Slots in one chunk of rows of K topics (a multiple of the warp). */
size_t lda_theta_chunk_slots(const lda_layout *L, uint32_t K);

/* Host bytes lda_theta_fetch takes besides θ itself: two chunks of rows and their documents,
 * a flag an input document. */
uint64_t lda_theta_fetch_bytes(const lda_layout *L, uint32_t K, uint64_t num_input_docs);

/* θ of the num_input_docs input documents of c (trained by b, whose layout covers c's
 * documents) in the resolved form `form`, fetched chunk_slots slots at a time (0:
 * lda_theta_chunk_slots; the tests pass small chunks), the entries kept over
 * b->params.threads threads: the same bytes for any thread count and chunk size. */
int lda_theta_fetch(lda_theta *out, lda_backend *b, const corpus *c, uint64_t num_input_docs,
                    const lda_doc_topics *form, size_t chunk_slots, lda_error *err);

#endif
