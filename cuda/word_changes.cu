// word_changes.cu — the count update by word (backend/word_changes.h, zplan.h's counts_by_word):
// the rooms set up from each word's tokens on the device, and the kernel that adds each word's
// filed changes to its row of n[w,k]. The count update files them (updates.cu,
// count_changes_kernel) into φ's words, dead from the end of the draw to the mean's pass.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "check.cuh"
#include "device_state.cuh"

static_assert(LDA_ZPLAN_COUNTS_BY_WORD_MOST_K * sizeof(uint32_t) <= 48 * 1024,
              "a word's K changes fit the shared memory a block takes without asking");
static_assert(LDA_ZPLAN_COUNTS_BY_WORD_MOST_K <= 0xffffu, "a change's two topics share 32 bits");

// Each word's tokens on this device (its rooms' measure).
__global__ void word_tokens_kernel(const uint32_t *words, const size_t *warp_offset, const uint32_t *slot_len,
                                   size_t num_warps, uint32_t *tokens)
{
    const uint32_t lane = threadIdx.x % 32;
    for (size_t q = blockIdx.x; q < num_warps; q += gridDim.x) {
        const uint32_t len = slot_len[q * 32 + lane];
        for (uint32_t i = threadIdx.x / 32; i < len; i += blockDim.x / 32)
            atomicAdd(&tokens[words[warp_offset[q] + (size_t)i * 32 + lane]], 1u);
    }
}

int cuda_word_changes_setup(device_state &s, const lda_word_changes_settings *settings, lda_error *err)
{
    word_changes &c = s.changes;
    const uint64_t space = (uint64_t)s.V * s.K; // φ's words
    uint32_t *tokens = (uint32_t *)malloc(s.V * sizeof *tokens), *offsets = (uint32_t *)malloc((s.V + 1) * sizeof *offsets);
    lda_word_chunk *chunks = NULL;
    size_t n = 0;
    if (!tokens || !offsets) {
        lda_error_fail(err, "out of memory");
        goto fail;
    }
    CUDA_TRY(cudaMalloc(&c.fill, s.V * sizeof *c.fill));
    CUDA_TRY(cudaMemsetAsync(c.fill, 0, s.V * sizeof *c.fill, s.stream));
    if (s.num_warps) {
        word_tokens_kernel<<<(unsigned)(s.num_warps < 1024 ? s.num_warps : 1024), 256, 0, s.stream>>>(
            s.words, s.warp_offset, s.slot_len, s.num_warps, c.fill);
        LAUNCH_TRY();
    }
    CUDA_TRY(cudaMemcpyAsync(tokens, c.fill, s.V * sizeof *tokens, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    n = lda_word_changes_plan(tokens, s.V, space, settings, offsets, NULL);
    if (n > INT32_MAX) { // a grid's blocks (only a switch's tiny chunk gives so many)
        lda_error_input(err, "%s: %zu chunks of %u changes, more than a launch takes", LDA_WORD_CHANGES_ENV, n,
                        settings->chunk);
        goto fail;
    }
    if (n && !(chunks = (lda_word_chunk *)malloc(n * sizeof *chunks))) {
        lda_error_fail(err, "out of memory");
        goto fail;
    }
    lda_word_changes_plan(tokens, s.V, space, settings, offsets, chunks);
    CUDA_TRY(cudaMalloc(&c.offsets, (s.V + 1) * sizeof *c.offsets));
    CUDA_TRY(cudaMemcpy(c.offsets, offsets, (s.V + 1) * sizeof *offsets, cudaMemcpyHostToDevice));
    if (n) {
        CUDA_TRY(cudaMalloc(&c.chunks, n * sizeof *c.chunks));
        CUDA_TRY(cudaMemcpy(c.chunks, chunks, n * sizeof *chunks, cudaMemcpyHostToDevice));
    }
    c.num_chunks = n;
    c.chunk = settings->chunk;
    free(tokens);
    free(offsets);
    free(chunks);
    return 0;
fail:
    free(tokens);
    free(offsets);
    free(chunks);
    return -1; // the arrays allocated are freed with the state
}

// Block b adds up chunk b's changes (at most `chunk` of one word's, as filed) and adds them to
// the word's row: in shared memory, K of them, and then one atomic a topic that moved (the
// word's other chunks add theirs too); a chunk of fewer changes than K / 32 goes to the row
// directly, two atomics a change, rather than clear and read K shared counts.
__global__ void word_changes_add_kernel(const lda_word_chunk *chunks, const uint32_t *offsets, const uint32_t *fill,
                                        const uint32_t *records, uint32_t chunk, uint32_t K, uint32_t *n_wk)
{
    extern __shared__ uint32_t moved[]; // modulo 2^32: adding it to n[w,k] subtracts too
    const lda_word_chunk c = chunks[blockIdx.x];
    const uint32_t at = offsets[c.word], room = offsets[c.word + 1] - at;
    const uint32_t filed = fill[c.word] < room ? fill[c.word] : room; // the rest went to n[w,k] directly
    if (c.first >= filed)
        return; // the whole block
    const uint32_t end = filed - c.first < chunk ? filed : c.first + chunk;
    uint32_t *row = n_wk + (size_t)c.word * K;
    if ((size_t)(end - c.first) * 32 < K) {
        for (uint32_t i = c.first + threadIdx.x; i < end; i += blockDim.x) {
            const uint32_t r = records[at + i];
            atomicSub(&row[r >> 16], 1u);
            atomicAdd(&row[r & 0xffffu], 1u);
        }
        return;
    }
    for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
        moved[k] = 0;
    __syncthreads();
    for (uint32_t i = c.first + threadIdx.x; i < end; i += blockDim.x) {
        const uint32_t r = records[at + i];
        atomicSub(&moved[r >> 16], 1u);
        atomicAdd(&moved[r & 0xffffu], 1u);
    }
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
        if (moved[k])
            atomicAdd(&row[k], moved[k]);
}

int cuda_word_changes_add(const device_state &s, lda_error *err)
{
    const word_changes &c = s.changes;
    if (c.num_chunks) {
        word_changes_add_kernel<<<(unsigned)c.num_chunks, 256, s.K * sizeof(uint32_t), s.stream>>>(
            c.chunks, c.offsets, c.fill, (const uint32_t *)s.phi, c.chunk, s.K, s.own_wk);
        LAUNCH_TRY();
    }
    return 0;
fail:
    return -1;
}
