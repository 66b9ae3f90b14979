// backend_cuda_internal.cuh — what the CUDA backend's two files share: backend_cuda.cu (the
// backend of one device, its start and iterate) and backend_cuda_shard.cu (its step
// operations, for a backend that is one shard of several: backend.h, backend_sharded.c).
#ifndef LDA_BACKEND_CUDA_INTERNAL_CUH
#define LDA_BACKEND_CUDA_INTERNAL_CUH

#include "backend/backend.h"
#include "device_state.cuh"

struct cuda_impl {
    device_state s;
    int device; // every operation runs on it (cuda_enter): shards of one process sit on several
};

// Makes b's device the current one; every operation begins with it.
int cuda_enter(lda_backend *b, lda_error *err);

// The start's z (given, or drawn from the start topics), its counts and the cut documents'
// lists joined from scratch, over the device's own arrays (into own_wk, own_k).
int cuda_start_counts(lda_backend *b, const uint32_t *z, lda_error *err);

// The pieces of an iteration (backend_cuda.cu), queued on b's stream; b's device current.
// z of the document groups of local part `part` (lda_layout_local_part) of iteration's draw.
int cuda_backend_zsample(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err);
// The draw's arguments over the arrays of s: b's state, or a chunk's view of it (stream_pass.cu).
void cuda_zsample_args(const lda_backend *b, const device_state &s, uint32_t iteration, uint32_t part,
                       zsample_args *a, zsample_sparse_tables *sparse);
// φ from the counts, from the stream phi_stream (params.h, lda_phi_stream).
int cuda_backend_update_phi(lda_backend *b, uint32_t phi_stream, lda_error *err);
// θ and φ as at the end of `iteration`.
int cuda_backend_update_model(lda_backend *b, uint32_t iteration, lda_error *err);
// θ made current where the z kernel left it to be formed when read.
int cuda_backend_ensure_theta(lda_backend *b, lda_error *err);
int cuda_backend_ensure_phi(lda_backend *b, lda_error *err);

// The shard steps (backend_cuda_shard.cu); backend.h says what each does.
int cuda_become_shard(lda_backend *b, size_t doc_rows, lda_shard_counts *out, lda_error *err);
int cuda_set_z(lda_backend *b, const uint32_t *z, lda_error *err);
int cuda_draw_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err);
int cuda_counts_summed(lda_backend *b, lda_error *err);
int cuda_update_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err);
int cuda_eval_terms(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                    double *word_chunks, lda_error *err);
int cuda_finish(lda_backend *b, lda_error *err);

#endif
