// topic_totals.cu — the check that no topic's total n[k] passed 2^32 - 1 tokens, in the runs
// whose n[k] could (zplan.h, lda_gpu_max_tokens; docs/scale.md, "Memory and limits").
//
// n[k] stays 32-bit and is checked rather than widened. Its updates are 32-bit atomics, so a
// topic past 2^32 - 1 leaves it right modulo 2^32 and every real token is counted in exactly one
// topic: Σ_k n[k] summed in 64 bits equals the tokens counted unless a topic wrapped, and then
// falls short by a multiple of 2^32. That sum costs one warp over K counts and eight bytes
// written to pinned host memory, once a pass, read after the wait that ends every iteration. A
// 64-bit n[k] would change every kernel that reads or counts it (the count updates' atomics, φ's
// scales, the butterfly draws' totals, which share these kernels with the other samplers) and
// the backends' interface and model files, which take 32-bit totals; and the CPU's n[k] is 32-bit
// and stops at the same point in the same words (updates_cpu.h), so both backends refuse the same
// runs. No n[w,k] wraps (a word of more than 2^32 - 1 tokens is refused: layout.h), so where the
// sum falls short the topic is named from its column of n[w,k], summed in 64 bits.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "backend/updates_cpu.h" // lda_topic_total_error
#include "check.cuh"
#include "device_state.cuh"
#include "warp.cuh"

#define TOTALS_THREADS 256u
#define COLUMN_WORDS 1024u // words a thread adds in the naming pass

// Σ_k n[k] in 64 bits into *sum (one warp: K is at most a few tens of thousands of counts).
__global__ void topic_sum_kernel(const uint32_t *n_k, uint32_t K, unsigned long long *sum)
{
    unsigned long long total = 0;
    for (uint32_t k = threadIdx.x; k < K; k += LDA_WARP)
        total += n_k[k];
    total = warp_sum(total);
    if (threadIdx.x == 0)
        *sum = total;
}

// totals[k] += Σ over a block of words of n[w,k], in 64 bits (totals zeroed before).
__global__ void topic_column_kernel(const uint32_t *n_wk, uint32_t V, uint32_t K, unsigned long long *totals)
{
    const uint32_t k = blockIdx.x * TOTALS_THREADS + threadIdx.x;
    if (k >= K)
        return;
    const size_t w0 = (size_t)blockIdx.y * COLUMN_WORDS, w1 = w0 + COLUMN_WORDS < V ? w0 + COLUMN_WORDS : V;
    unsigned long long total = 0;
    for (size_t w = w0; w < w1; w++)
        total += n_wk[w * K + k];
    atomicAdd(&totals[k], total);
}

int cuda_topic_totals_setup(device_state &s, bool chunked, lda_error *err)
{
    s.topic_tokens = s.num_tokens;
    // where a topic may pass 2^32 - 1, and every pass over chunks (the streamed runs, which are
    // the large ones: the suite's chunked runs take the check at every scale)
    if (!chunked && s.num_tokens <= UINT32_MAX)
        return 0;
    CUDA_TRY(cudaHostAlloc((void **)&s.topic_sum, sizeof *s.topic_sum, cudaHostAllocMapped));
    *s.topic_sum = s.topic_tokens;
    return 0;
fail:
    return -1;
}

int cuda_topic_totals_queue(const device_state &s, lda_error *err)
{
    if (!s.topic_sum)
        return 0;
    unsigned long long *sum = NULL;
    CUDA_TRY(cudaHostGetDevicePointer((void **)&sum, s.topic_sum, 0));
    topic_sum_kernel<<<1, LDA_WARP, 0, s.stream>>>(s.n_k, s.K, sum);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

// Each topic's total from its column of n[w,k], into totals (K, host).
static int column_totals(const device_state &s, unsigned long long *totals, lda_error *err)
{
    unsigned long long *sums = NULL;
    const dim3 grid((s.K + TOTALS_THREADS - 1) / TOTALS_THREADS, (s.V + COLUMN_WORDS - 1) / COLUMN_WORDS);
    int rc = -1;
    CUDA_TRY(cudaMalloc((void **)&sums, s.K * sizeof *sums));
    CUDA_TRY(cudaMemsetAsync(sums, 0, s.K * sizeof *sums, s.stream));
    topic_column_kernel<<<grid, TOTALS_THREADS, 0, s.stream>>>(s.n_wk, s.V, s.K, sums);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(totals, sums, s.K * sizeof *sums, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    rc = 0;
fail:
    if (sums)
        cudaFree(sums);
    return rc;
}

int cuda_topic_totals_verify(const device_state &s, lda_error *err)
{
    if (!s.topic_sum || *(volatile unsigned long long *)s.topic_sum == s.topic_tokens)
        return 0;
    unsigned long long *totals = (unsigned long long *)lda_malloc_array(s.K, sizeof *totals, "topic totals", err);
    uint32_t k = 0;
    if (totals && column_totals(s, totals, err) == 0) {
        while (k < s.K && totals[k] <= UINT32_MAX)
            k++;
        if (k < s.K)
            lda_topic_total_error(err, k, totals[k]);
        else
            lda_error_fail(err, "internal error: the topic totals add up to %llu tokens, %llu were counted",
                           *s.topic_sum, (unsigned long long)s.topic_tokens);
    }
    free(totals);
    return -1;
}
