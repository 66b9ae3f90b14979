/* run_memory.h — the host memory a training run will take, planned once its corpus is laid
 * out and before the backend allocates anything, so that a run too large for the machine
 * (K = 200,000 on a large corpus) is refused at once with what it needs and what there is,
 * as the CUDA backend does for its device memory, instead of failing half way or paging. */
#ifndef LDA_RUN_MEMORY_H
#define LDA_RUN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"
#include "model/doc_topics.h"

/* Bytes beyond the corpus and layout already held: the CPU backend's state (on_cpu), and
 * saving the model (the fetched state and the model's own copies, in input order; θ in the
 * resolved form doc_topics, from chunks of the backend's rows: theta_fetch.h). */
uint64_t lda_run_host_bytes(const lda_layout *L, const lda_params *p, int on_cpu, uint64_t num_input_docs,
                            const lda_doc_topics *doc_topics, int holdout);

/* The host bytes of the CPU backend's state for layout L (what lda_cpu_backend_create
 * allocates; a shard's also its own word-topic counts and its copy of its layout). */
uint64_t lda_run_cpu_state_bytes(const lda_layout *L, const lda_params *p, int shard);

/* Refuses (status 1) a run whose lda_run_host_bytes exceed the memory available (memory.h). */
int lda_run_check_memory(const lda_layout *L, const lda_params *p, uint64_t num_input_docs,
                         const lda_doc_topics *doc_topics, int holdout, lda_error *err);

#endif
