// stream_read.cu — what reads the documents' lists between passes where the tokens are streamed
// (stream_pass.cuh): θ's rows (the model's θ, --doc-topics), the rows of n[m,k], the
// log-likelihoods' terms and the priors' histograms, each over the chunks in order, a chunk's
// lists (and words) copied into buffer 0 and its pieces given their documents' lists there. The
// same kernels as in device memory, on the chunk's view, so the same numbers.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "stream_pass.cuh"

static stream_state &chunked(lda_backend *b)
{
    return *((cuda_impl *)b->impl)->s.chunked;
}

size_t cuda_stream_chunk_of_slot(const stream_state &st, size_t slot)
{
    size_t lo = 0, hi = st.num_chunks; // chunks[lo].s0 <= slot < chunks[hi].s0
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (st.chunks[mid].s0 <= slot)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The chunk's rows of `rows` slots from `first` on: how many of them fall in chunk i.
static size_t rows_in_chunk(const stream_chunk &c, size_t first, size_t rows)
{
    const size_t end = c.w1 * LDA_WARP;
    return end - first < rows ? end - first : rows;
}

// Every chunk in order, each loaded with its words where asked: fn(view, its first warp).
template <typename FN> static int each_chunk(lda_backend *b, bool words, FN fn, lda_error *err)
{
    for (size_t i = 0; i < chunked(b).num_chunks; i++) {
        device_state v;
        if (cuda_stream_load(b, i, words, &v, err) || fn(v, chunked(b).chunks[i].w0))
            return -1;
    }
    return 0;
}

int cuda_stream_theta_to_host(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    const stream_state &st = chunked(b);
    const size_t K = ((cuda_impl *)b->impl)->s.K;
    for (size_t done = 0; done < count;) {
        const size_t i = cuda_stream_chunk_of_slot(st, first + done);
        const stream_chunk &c = st.chunks[i];
        const size_t here = rows_in_chunk(c, first + done, count - done);
        device_state v;
        if (cuda_stream_load(b, i, false, &v, err))
            return -1;
        for (size_t k = 0, step = cuda_theta_rows_at_once(v); k < here; k += step) {
            const size_t n = here - k < step ? here - k : step;
            const float *rows = NULL;
            if (cuda_theta_rows(v, first + done + k - c.s0, n, &rows, err))
                return -1;
            CUDA_TRY(cudaMemcpyAsync(theta + (done + k) * K, rows, n * K * sizeof *theta, cudaMemcpyDeviceToHost,
                                     v.stream));
            CUDA_TRY(cudaStreamSynchronize(v.stream)); // the chunk of rows is reused by the next rows
        }
        done += here;
    }
    return 0;
fail:
    return -1;
}

int cuda_stream_doc_rows_to_host(lda_backend *b, uint32_t *n_mk, lda_error *err)
{
    const size_t K = ((cuda_impl *)b->impl)->s.K;
    return each_chunk(
        b, false,
        [&](const device_state &v, size_t w0) {
            for (size_t first = 0, step = cuda_doc_rows_at_once(v); first < v.num_slots; first += step) {
                const size_t n = v.num_slots - first < step ? v.num_slots - first : step;
                const uint32_t *rows = NULL;
                if (cuda_doc_rows(v, first, n, &rows, err))
                    return -1;
                CUDA_TRY(cudaMemcpyAsync(n_mk + (w0 * LDA_WARP + first) * K, rows, n * K * sizeof *n_mk,
                                         cudaMemcpyDeviceToHost, v.stream));
                CUDA_TRY(cudaStreamSynchronize(v.stream)); // the window is reused by the next rows
            }
            return 0;
        fail:
            return -1;
        },
        err);
}

int cuda_stream_eval_terms(lda_backend *b, double *pred_warps, double *doc_warps, lda_error *err)
{
    if (!pred_warps && !doc_warps)
        return 0;
    return each_chunk(
        b, pred_warps != NULL,
        [&](const device_state &v, size_t w0) {
            if (pred_warps &&
                cuda_loglik_terms(v, v.words, v.warp_offset, v.warp_len, v.slot_len, pred_warps + w0, err))
                return -1;
            return doc_warps ? cuda_joint_doc_terms(v, doc_warps + w0, err) : 0;
        },
        err);
}

int cuda_stream_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    const device_state &s = ((cuda_impl *)b->impl)->s;
    if (cuda_hist_begin(s, err) ||
        each_chunk(b, false, [&](const device_state &v, size_t) { return cuda_hist_documents(v, err); }, err))
        return -1;
    return cuda_hist_end(s, h, err);
}
