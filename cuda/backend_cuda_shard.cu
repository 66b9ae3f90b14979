// backend_cuda_shard.cu — the CUDA backend's step operations (backend.h): its start and
// iterate cut where a backend that is one shard of several hands its counts to the all-reduce
// (backend_sharded.c). The cuts are cuda_iterate's own: a part's draw and its count updates;
// then, the totals in, φ (and after the last part θ). The steps only queue work on the
// backend's stream, so the shards' devices work side by side; finish waits.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "stream_pass.cuh"

static device_state &state(lda_backend *b)
{
    return ((cuda_impl *)b->impl)->s;
}

// The shard's pieces of shared documents, flattened (layout.h: shared_offsets, shared_slots).
static int upload_shared_pieces(device_state &s, const lda_layout *L, lda_error *err)
{
    const size_t n = L->num_shared_docs ? L->shared_offsets[L->num_shared_docs] : 0;
    uint32_t *rows = (uint32_t *)malloc((n ? n : 1) * sizeof *rows);
    if (!rows) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (size_t j = 0; j < L->num_shared_docs; j++)
        for (size_t i = L->shared_offsets[j]; i < L->shared_offsets[j + 1]; i++)
            rows[i] = L->shared_row[j];
    s.num_shared_pieces = n;
    CUDA_TRY(cudaMalloc(&s.shared_slot, (n ? n : 1) * sizeof *s.shared_slot));
    CUDA_TRY(cudaMalloc(&s.shared_row, (n ? n : 1) * sizeof *s.shared_row));
    if (n) {
        CUDA_TRY(cudaMemcpy(s.shared_slot, L->shared_slots, n * sizeof *s.shared_slot, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(s.shared_row, rows, n * sizeof *s.shared_row, cudaMemcpyHostToDevice));
    }
    free(rows);
    return 0;
fail:
    free(rows);
    return -1;
}

int cuda_become_shard(lda_backend *b, size_t doc_rows, lda_shard_counts *out, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = state(b);
    const size_t K = s.K;
    if (s.own_wk != s.n_wk) {
        lda_error_fail(err, "internal error: a shard made a shard again");
        return -1;
    }
    s.own_wk = NULL; // free_state frees what is allocated, and own_* only where they are not n_*
    s.own_k = NULL;
    CUDA_TRY(cudaMalloc(&s.own_wk, (size_t)s.V * K * sizeof *s.own_wk + 16));
    CUDA_TRY(cudaMalloc(&s.own_k, K * sizeof *s.own_k + 16));
    CUDA_TRY(cudaMalloc(&s.own_docs, doc_rows * K * sizeof *s.own_docs + 16));
    CUDA_TRY(cudaMalloc(&s.total_docs, doc_rows * K * sizeof *s.total_docs + 16));
    s.doc_rows = doc_rows;
    if (upload_shared_pieces(s, b->layout, err))
        return -1;
    *out = lda_shard_counts{s.own_wk, s.own_k, s.n_wk, s.n_k, s.own_docs, s.total_docs, 1,
                            ((cuda_impl *)b->impl)->device, (void *)s.stream};
    return 0;
fail:
    return -1;
}

// After z changed: the cut documents' rows joined (those wholly in this shard), and this
// shard's part of the shared ones' counts for the all-reduce.
static int after_z_pass(const device_state &s, bool from_scratch, lda_error *err)
{
    return cuda_join_cut_counts(s, from_scratch, err) || cuda_shard_doc_sums(s, err) ? -1 : 0;
}

int cuda_set_z(lda_backend *b, const uint32_t *z, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = state(b);
    if (z)
        CUDA_TRY(cudaMemcpyAsync(s.z, z, s.num_positions * sizeof(uint32_t), cudaMemcpyHostToDevice, s.stream));
    else if (cuda_init_z(s, b->params.seed, lda_params_start_topics(&b->params), err))
        return -1;
    if (cuda_count(s, err) || after_z_pass(s, true, err))
        return -1;
    if (z) // the host array may change once this returns
        CUDA_TRY(cudaStreamSynchronize(s.stream));
    return 0;
fail:
    return -1;
}

int cuda_draw_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = state(b);
    const uint32_t R = b->params.refresh, local = lda_layout_local_part(b->layout, part, R);
    const bool fused_counts = b->zplan.fused_counts;
    if (part == 0 && !fused_counts && s.z_prev) // the topics the iteration began with (cuda_iterate)
        CUDA_TRY(cudaMemcpyAsync(s.z_prev, s.z, s.num_positions * sizeof *s.z, cudaMemcpyDeviceToDevice, s.stream));
    if (cuda_backend_zsample(b, iteration, local, err) ||
        (!fused_counts && cuda_count_changes(s, b->params.theta_collapsed, local, R, err)) ||
        after_z_pass(s, false, err))
        return -1;
    return 0;
fail:
    return -1;
}

int cuda_counts_summed(lda_backend *b, lda_error *err)
{
    return cuda_enter(b, err) || cuda_shard_doc_spread(state(b), err) ? -1 : 0;
}

int cuda_update_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    const uint32_t R = b->params.refresh;
    if (part + 1 < R)
        return cuda_backend_update_phi(b, lda_phi_stream(iteration, part, R), err);
    return cuda_backend_update_model(b, iteration, err);
}

int cuda_finish(lda_backend *b, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    CUDA_TRY(cudaStreamSynchronize(state(b).stream));
    return 0;
fail:
    return -1;
}

// Σ log Σ_k θφ per warp over the tokens of `scored` (its arrays copied to the device for the
// call), which has this backend's slots.
static int scored_terms(lda_backend *b, const lda_layout *scored, double *per_warp, lda_error *err)
{
    const device_state &s = state(b);
    uint32_t *words = NULL, *slot_len = NULL, *warp_len = NULL;
    size_t *warp_offset = NULL;
    int rc = -1;
    if (scored->num_slots != s.num_slots) {
        lda_error_fail(err, "internal error: scoring a layout of %zu slots against %zu", scored->num_slots,
                       s.num_slots);
        return -1;
    }
    CUDA_TRY(cudaMalloc(&words, scored->num_positions * sizeof *words + 16));
    CUDA_TRY(cudaMalloc(&warp_offset, (scored->num_warps + 1) * sizeof *warp_offset));
    CUDA_TRY(cudaMalloc(&slot_len, scored->num_slots * sizeof *slot_len + 16));
    CUDA_TRY(cudaMalloc(&warp_len, scored->num_warps * sizeof *warp_len + 16));
    CUDA_TRY(cudaMemcpy(words, scored->words, scored->num_positions * sizeof *words, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(warp_offset, scored->warp_offset, (scored->num_warps + 1) * sizeof *warp_offset,
                        cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(slot_len, scored->slot_len, scored->num_slots * sizeof *slot_len, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(warp_len, scored->warp_len, scored->num_warps * sizeof *warp_len, cudaMemcpyHostToDevice));
    rc = cuda_loglik_terms(s, words, warp_offset, warp_len, slot_len, per_warp, err);
fail:
    cudaFree(warp_len);
    cudaFree(words);
    cudaFree(warp_offset);
    cudaFree(slot_len);
    return rc;
}

int cuda_eval_terms(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                    double *word_chunks, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    const device_state &s = state(b);
    if (tokens_streamed(s)) {
        if (scored) { // the trainer refuses --holdout first (lda_backend.tokens_streamed)
            lda_error_fail(err, "internal error: a held-out layout scored against streamed tokens");
            return -1;
        }
        if ((pred_warps && cuda_backend_ensure_phi(b, err)) || cuda_stream_eval_terms(b, pred_warps, doc_warps, err))
            return -1;
        return word_chunks ? cuda_joint_word_terms(s, word_chunks, err) : 0;
    }
    if (pred_warps) {
        if (cuda_backend_ensure_theta(b, err) || cuda_backend_ensure_phi(b, err))
            return -1;
        if (scored ? scored_terms(b, scored, pred_warps, err)
                   : cuda_loglik_terms(s, s.words, s.warp_offset, s.warp_len, s.slot_len, pred_warps, err))
            return -1;
    }
    if (doc_warps && cuda_joint_doc_terms(s, doc_warps, err))
        return -1;
    if (word_chunks && cuda_joint_word_terms(s, word_chunks, err))
        return -1;
    return 0;
}
