// count_hist.cu — the histograms of the counts that learning the priors reads
// (backend/optimize_priors.h; lda_count_hist_build is the CPU reference). Counts below
// LDA_HIST_CAP are binned with atomics, larger ones appended to a list with an atomic
// counter; the host sorts the lists, so the result does not depend on the order of the
// atomics.
#include <cuda_runtime.h>

#include "check.cuh"
#include "device_state.cuh"

#define HIST_THREADS 256

// n[m,k] of each document's first piece (a document once): [k][c] documents with c tokens of k;
// slots first .. first + count - 1, their rows in `rows` (cuda_doc_rows).
__global__ void doc_topic_hist_kernel(const uint32_t *rows, const uint32_t *slot_doc, const uint32_t *slot_piece,
                                      size_t first, size_t count, uint32_t K, uint32_t *hist,
                                      unsigned long long *over, unsigned long long *over_count, size_t over_cap)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count * K; i += stride) {
        const uint32_t c = rows[i];
        const size_t s = first + i / K;
        if (c == 0 || slot_doc[s] == LDA_NO_DOC || slot_piece[s] != 0)
            continue;
        const uint32_t k = (uint32_t)(i % K);
        if (c < LDA_HIST_CAP) {
            atomicAdd(&hist[(size_t)k * LDA_HIST_CAP + c], 1u);
        } else {
            const unsigned long long at = atomicAdd(over_count, 1ull);
            if (at < over_cap)
                over[at] = (unsigned long long)k << 32 | c;
        }
    }
}

// n[w,k] of every pair: [c] pairs of c tokens; a block's bins gather in shared memory first
// (c = 1 is most pairs, and one contended address).
__global__ void word_topic_hist_kernel(const uint32_t *n_wk, size_t entries, uint32_t *hist, uint32_t *over,
                                       unsigned long long *over_count, size_t over_cap)
{
    __shared__ uint32_t local[LDA_HIST_CAP];
    for (uint32_t c = threadIdx.x; c < LDA_HIST_CAP; c += blockDim.x)
        local[c] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < entries; i += stride) {
        const uint32_t c = n_wk[i];
        if (c == 0)
            continue;
        if (c < LDA_HIST_CAP) {
            atomicAdd(&local[c], 1u);
        } else {
            const unsigned long long at = atomicAdd(over_count, 1ull);
            if (at < over_cap)
                over[at] = c;
        }
    }
    __syncthreads();
    for (uint32_t c = threadIdx.x; c < LDA_HIST_CAP; c += blockDim.x)
        if (local[c])
            atomicAdd(&hist[c], local[c]);
}

int cuda_hist_begin(const device_state &s, lda_error *err)
{
    if (!s.hist_doc) {
        lda_error_fail(err, "internal error: count histograms asked of a run without --optimize-interval");
        return -1;
    }
    CUDA_TRY(cudaMemsetAsync(s.hist_doc, 0, (size_t)s.K * LDA_HIST_CAP * sizeof *s.hist_doc, s.stream));
    CUDA_TRY(cudaMemsetAsync(s.hist_word, 0, LDA_HIST_CAP * sizeof *s.hist_word, s.stream));
    CUDA_TRY(cudaMemsetAsync(s.hist_over_count, 0, 2 * sizeof *s.hist_over_count, s.stream));
    return 0;
fail:
    return -1;
}

int cuda_hist_documents(const device_state &s, lda_error *err)
{
    for (size_t first = 0, step = cuda_doc_rows_at_once(s); first < s.num_slots; first += step) {
        const size_t n = s.num_slots - first < step ? s.num_slots - first : step;
        const uint32_t *rows = NULL;
        if (cuda_doc_rows(s, first, n, &rows, err))
            return -1;
        doc_topic_hist_kernel<<<1024, HIST_THREADS, 0, s.stream>>>(rows, s.slot_doc, s.slot_piece, first, n, s.K,
                                                                  s.hist_doc, s.hist_doc_over, s.hist_over_count,
                                                                  s.hist_over_cap);
        LAUNCH_TRY();
    }
    return 0;
fail:
    return -1;
}

int cuda_hist_end(const device_state &s, lda_count_hist *h, lda_error *err)
{
    const size_t doc_bins = (size_t)s.K * LDA_HIST_CAP;
    unsigned long long counts[2];
    word_topic_hist_kernel<<<1024, HIST_THREADS, 0, s.stream>>>(s.n_wk, (size_t)s.V * s.K, s.hist_word,
                                                               s.hist_word_over, s.hist_over_count + 1,
                                                               s.hist_over_cap);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(counts, s.hist_over_count, sizeof counts, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaMemcpyAsync(h->doc_topic, s.hist_doc, doc_bins * sizeof *h->doc_topic, cudaMemcpyDeviceToHost,
                             s.stream));
    CUDA_TRY(cudaMemcpyAsync(h->word_topic, s.hist_word, LDA_HIST_CAP * sizeof *h->word_topic, cudaMemcpyDeviceToHost,
                             s.stream));
    CUDA_TRY(cudaMemcpyAsync(h->topic, s.n_k, s.K * sizeof *h->topic, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    if (counts[0] > h->over_cap || counts[1] > h->over_cap || counts[0] > s.hist_over_cap) {
        lda_error_fail(err, "internal error: %llu and %llu large counts, room for %zu", counts[0], counts[1],
                       h->over_cap);
        return -1;
    }
    h->num_doc_over = (size_t)counts[0];
    h->num_word_over = (size_t)counts[1];
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "the list's entries are uint64_t");
    CUDA_TRY(cudaMemcpy(h->doc_topic_over, s.hist_doc_over, h->num_doc_over * sizeof *h->doc_topic_over,
                        cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(h->word_topic_over, s.hist_word_over, h->num_word_over * sizeof *h->word_topic_over,
                        cudaMemcpyDeviceToHost));
    lda_count_hist_sort(h);
    return 0;
fail:
    return -1;
}

int cuda_count_histograms(const device_state &s, lda_count_hist *h, lda_error *err)
{
    return cuda_hist_begin(s, err) || cuda_hist_documents(s, err) || cuda_hist_end(s, h, err) ? -1 : 0;
}
