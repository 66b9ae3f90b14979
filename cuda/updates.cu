// updates.cu — everything in an iteration after the z draw, on the GPU: the initial z,
// the counts n[m,k], n[w,k], n[k], and the θ/φ updates. Each mirrors its CPU reference in
// src/updates_cpu.c (same random streams, same chunking of the φ column sums), so the two
// backends agree up to the last bits of their libm.
#include <cuda_runtime.h>

#include "check.cuh"
#include "core/gamma.h"
#include "core/phi_mean.h"
#include "core/rng.h"
#include "core/z_start.h"
#include "device_state.cuh"
#include "warp.cuh"


// Grid over the warps of the layout: block b handles warps b, b+grid, ...; its threads
// walk the warp's token rows 32 lanes at a time.
static unsigned warp_grid(size_t num_warps)
{
    return (unsigned)(num_warps < 4096 ? num_warps : 4096);
}

__global__ void init_z_kernel(const size_t *warp_offset, const uint32_t *slot_len, const uint64_t *slot_token_base,
                              const uint32_t *slot_doc, size_t num_warps, uint32_t K, uint64_t seed,
                              uint32_t start_topics, uint32_t *z)
{
    const uint32_t lane = threadIdx.x % 32;
    for (size_t q = blockIdx.x; q < num_warps; q += gridDim.x) {
        const size_t s = q * 32 + lane;
        const uint32_t len = slot_len[s];
        for (uint32_t i = threadIdx.x / 32; i < len; i += blockDim.x / 32)
            z[warp_offset[q] + (size_t)i * 32 + lane] =
                lda_start_topic(seed, slot_doc[s], slot_token_base[s] + i, K, start_topics);
    }
}

int cuda_init_z(const device_state &s, uint64_t seed, uint32_t start_topics, lda_error *err)
{
    init_z_kernel<<<warp_grid(s.num_warps), 256, 0, s.stream>>>(s.warp_offset, s.slot_len, s.slot_token_base,
                                                               s.slot_doc, s.num_warps, s.K, seed, start_topics, s.z);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

// n[k]'s changes gather in shared memory, a block's K of them added to n[k] once at its end,
// where K fits in the 48 KiB a block may take without asking (K <= 12,288): otherwise each
// token's change is an atomic on one of K much-contended global addresses. Measured on the H100
// in one run (10^9 generated tokens, K = 10^4, 40 KiB): with the bound at 32 KiB, iteration 30
// took 1.0178 s (updates 0.110), with it here 1.0023 (0.094); wikimix's updates at K = 10^4
// 0.147 -> 0.101 ms with the rounds below (results/scale/counts-shared-1e9/).
static bool topic_counts_in_shared(size_t K)
{
    return K * sizeof(uint32_t) <= 48 * 1024;
}

// Counts by atomics; n[k] first accumulates in shared memory (topic_counts_in_shared), which
// turns millions of contended global atomics into K per block.
__global__ void count_kernel(const uint32_t *words, const uint32_t *z, const size_t *warp_offset,
                             const uint32_t *slot_len, size_t num_warps, uint32_t K, bool shared_topics,
                             uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k)
{
    extern __shared__ uint32_t topic_hist[];
    if (shared_topics)
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            topic_hist[k] = 0;
    __syncthreads();
    const uint32_t lane = threadIdx.x % 32;
    for (size_t q = blockIdx.x; q < num_warps; q += gridDim.x) {
        const size_t s = q * 32 + lane;
        const uint32_t len = slot_len[s];
        for (uint32_t i = threadIdx.x / 32; i < len; i += blockDim.x / 32) {
            const size_t pos = warp_offset[q] + (size_t)i * 32 + lane;
            const uint32_t k = z[pos];
            if (n_mk) // NULL: kept as lists, counted apart (cuda_count_doc_lists)
                atomicAdd(&n_mk[s * K + k], 1u);
            atomicAdd(&n_wk[(size_t)words[pos] * K + k], 1u);
            atomicAdd(shared_topics ? &topic_hist[k] : &n_k[k], 1u);
        }
    }
    __syncthreads();
    if (shared_topics)
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            if (topic_hist[k])
                atomicAdd(&n_k[k], topic_hist[k]);
}

int cuda_count_add(const device_state &s, lda_error *err)
{
    const size_t K = s.K;
    const bool shared_topics = topic_counts_in_shared(K);
    const unsigned grid = (unsigned)(s.num_warps < 1024 ? s.num_warps : 1024);
    if (grid) {
        count_kernel<<<grid, 256, shared_topics ? K * sizeof(uint32_t) : 0, s.stream>>>(
            s.words, s.z, s.warp_offset, s.slot_len, s.num_warps, s.K, shared_topics, s.n_mk, s.own_wk, s.own_k);
        LAUNCH_TRY();
    }
    return counts_are_lists(s) ? cuda_count_doc_lists(s, err) : 0;
fail:
    return -1;
}

int cuda_count(const device_state &s, lda_error *err)
{
    const size_t K = s.K;
    if (s.n_mk)
        CUDA_TRY(cudaMemsetAsync(s.n_mk, 0, s.num_slots * K * sizeof(uint32_t), s.stream));
    CUDA_TRY(cudaMemsetAsync(s.own_wk, 0, (size_t)s.V * K * sizeof(uint32_t), s.stream));
    CUDA_TRY(cudaMemsetAsync(s.own_k, 0, K * sizeof(uint32_t), s.stream));
    return cuda_count_add(s, err);
fail:
    return -1;
}

// The count update takes a lane's tokens CHANGES_AT_ONCE at a time. Measured on the H100 in one
// run (ms of updates an iteration at K = 1024): wiki43k 0.083 -> 0.062, wikimix 0.115 -> 0.097;
// at 10^9 tokens no change (there its atomics' traffic to n[w,k] bounds it).
#define CHANGES_AT_ONCE 4
// Only tokens whose topic changed touch the counts: after the first iterations most keep
// theirs, and the full recount's memsets and atomics cost more than the draw's updates.
// n[k] (few, much-contended addresses) gathers its changes in shared memory first. Where the
// plan files n[w,k]'s by word (s.changes, zplan.h's counts_by_word), a change goes to its word's
// room in φ's words (`records`), and cuda_word_changes_add adds them up after this kernel.
__global__ void count_changes_kernel(const uint32_t *__restrict__ words, const uint32_t *__restrict__ z_prev,
                                     uint32_t *__restrict__ z, const size_t *warp_offset, const uint32_t *slot_len, size_t num_warps,
                                     uint32_t part, uint32_t part_count, uint32_t K, bool theta_collapsed,
                                     bool shared_topics, const word_changes filed, uint32_t *records,
                                     uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k)
{
    extern __shared__ uint32_t topic_delta[]; // modulo 2^32: adding it to n[k] subtracts too
    if (shared_topics)
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            topic_delta[k] = 0;
    __syncthreads();
    uint32_t *delta = shared_topics ? topic_delta : n_k;
    const uint32_t lane = threadIdx.x % 32, step = blockDim.x / 32;
    for (size_t q = part + (size_t)blockIdx.x * part_count; q < num_warps; q += (size_t)gridDim.x * part_count) {
        const size_t s = q * 32 + lane, first = warp_offset[q] + lane;
        const uint32_t len = slot_len[s];
        // CHANGES_AT_ONCE of the lane's tokens a round: their topics' loads first, then their
        // words', then their counts' atomics, so that each round waits on two loads, not each token
        for (uint32_t i0 = threadIdx.x / 32; i0 < len; i0 += step * CHANGES_AT_ONCE) {
            uint32_t old_k[CHANGES_AT_ONCE], new_k[CHANGES_AT_ONCE], w[CHANGES_AT_ONCE];
#pragma unroll
            for (uint32_t r = 0; r < CHANGES_AT_ONCE; r++) {
                const uint32_t i = i0 + r * step;
                const size_t pos = first + (size_t)i * 32;
                new_k[r] = i < len ? z[pos] : 0u;
                old_k[r] = i >= len ? 0u : z_prev ? z_prev[pos] : (new_k[r] >> 16) - 1; // else the draw's mark
            }
#pragma unroll
            for (uint32_t r = 0; r < CHANGES_AT_ONCE; r++) {
                const size_t pos = first + (size_t)(i0 + r * step) * 32;
                if (!z_prev) { // the draw's mark (zsample_sparse_tables): old topic + 1 above the topic
                    const bool marked = new_k[r] >> 16 != 0;
                    new_k[r] &= 0xffffu;
                    if (marked)
                        z[pos] = new_k[r];
                    else
                        old_k[r] = new_k[r];
                }
                w[r] = old_k[r] != new_k[r] ? words[pos] : 0u;
            }
#pragma unroll
            for (uint32_t r = 0; r < CHANGES_AT_ONCE; r++) {
                if (old_k[r] == new_k[r])
                    continue;
                const size_t row = (size_t)w[r] * K;
                if (!theta_collapsed) {
                    atomicSub(&n_mk[s * K + old_k[r]], 1u);
                    atomicAdd(&n_mk[s * K + new_k[r]], 1u);
                }
                bool in_room = false; // filed under its word, added to n[w,k] by cuda_word_changes_add
                if (filed.offsets) {
                    const uint32_t at = filed.offsets[w[r]], room = filed.offsets[w[r] + 1] - at;
                    const uint32_t nth = atomicAdd(&filed.fill[w[r]], 1u);
                    in_room = nth < room;
                    if (in_room)
                        records[at + nth] = old_k[r] << 16 | new_k[r];
                }
                if (!in_room) {
                    atomicSub(&n_wk[row + old_k[r]], 1u);
                    atomicAdd(&n_wk[row + new_k[r]], 1u);
                }
                atomicSub(&delta[old_k[r]], 1u);
                atomicAdd(&delta[new_k[r]], 1u);
            }
        }
    }
    __syncthreads();
    if (shared_topics)
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            if (topic_delta[k])
                atomicAdd(&n_k[k], topic_delta[k]);
}

int cuda_count_changes(const device_state &s, bool theta_collapsed, uint32_t part, uint32_t part_count,
                       lda_error *err)
{
    const size_t groups = lda_part_warps(s.num_warps, part, part_count);
    if (groups == 0)
        return 0; // a part with no document groups
    const bool shared_topics = topic_counts_in_shared(s.K), by_word = s.changes.offsets != NULL;
    const unsigned grid = (unsigned)(groups < 528 ? groups : 528);
    if (by_word)
        CUDA_TRY(cudaMemsetAsync(s.changes.fill, 0, s.V * sizeof *s.changes.fill, s.stream));
    count_changes_kernel<<<grid, 256, shared_topics ? s.K * sizeof(uint32_t) : 0, s.stream>>>(
        s.words, s.z_prev, s.z, s.warp_offset, s.slot_len, s.num_warps, part, part_count, s.K, theta_collapsed,
        shared_topics, s.changes, (uint32_t *)s.phi, s.n_mk, s.own_wk, s.own_k);
    LAUNCH_TRY();
    return by_word ? cuda_word_changes_add(s, err) : 0;
fail:
    return -1;
}

// Joining a cut document's counts (lda_layout_join_cut_counts) in three steps, so that a
// document of thousands of pieces is not summed by one thread: blocks take chunks of at most
// LDA_JOIN_CHUNK pieces (block y × threads: topics) and add their pieces' changes from the base
// into cut_delta (integer atomics: the sum does not depend on their order); then every piece's
// row becomes base + delta; then the base takes the delta and the delta is cleared.
__global__ void join_gather_kernel(const cut_chunk *chunks, const uint32_t *cut_slots, uint32_t K, bool from_scratch,
                                   const uint32_t *n_mk, const uint32_t *base, uint32_t *delta)
{
    const cut_chunk ch = chunks[blockIdx.x];
    const uint32_t k = blockIdx.y * blockDim.x + threadIdx.x;
    if (k >= K)
        return;
    const uint32_t before = from_scratch ? 0u : base[(size_t)ch.doc * K + k];
    uint32_t sum = 0;
    for (uint32_t p = 0; p < ch.count; p++)
        sum += n_mk[(size_t)cut_slots[ch.first + p] * K + k] - before; // modulo 2^32, like the CPU's
    if (sum)
        atomicAdd(&delta[(size_t)ch.doc * K + k], sum);
}

__global__ void join_scatter_kernel(const cut_chunk *chunks, const uint32_t *cut_slots, uint32_t K, bool from_scratch,
                                    uint32_t *n_mk, const uint32_t *base, const uint32_t *delta)
{
    const cut_chunk ch = chunks[blockIdx.x];
    const uint32_t k = blockIdx.y * blockDim.x + threadIdx.x;
    if (k >= K)
        return;
    const size_t i = (size_t)ch.doc * K + k;
    const uint32_t total = (from_scratch ? 0u : base[i]) + delta[i];
    for (uint32_t p = 0; p < ch.count; p++)
        n_mk[(size_t)cut_slots[ch.first + p] * K + k] = total;
}

__global__ void join_settle_kernel(size_t entries, bool from_scratch, uint32_t *base, uint32_t *delta)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < entries; i += (size_t)gridDim.x * blockDim.x) {
        base[i] = (from_scratch ? 0u : base[i]) + delta[i];
        delta[i] = 0;
    }
}

int cuda_join_cut_counts(const device_state &s, bool from_scratch, lda_error *err)
{
    if (s.num_cut_docs == 0)
        return 0;
    if (counts_are_lists(s))
        return cuda_join_cut_lists(s, from_scratch, err);
    const unsigned threads = 256;
    const dim3 grid((unsigned)s.num_cut_chunks, (s.K + threads - 1) / threads);
    const size_t entries = s.num_cut_docs * s.K;
    join_gather_kernel<<<grid, threads, 0, s.stream>>>(s.cut_chunks, s.cut_slots, s.K, from_scratch, s.n_mk,
                                                      s.cut_base, s.cut_delta);
    LAUNCH_TRY();
    join_scatter_kernel<<<grid, threads, 0, s.stream>>>(s.cut_chunks, s.cut_slots, s.K, from_scratch, s.n_mk,
                                                       s.cut_base, s.cut_delta);
    LAUNCH_TRY();
    join_settle_kernel<<<(unsigned)((entries + threads - 1) / threads < 1024 ? (entries + threads - 1) / threads : 1024),
                         threads, 0, s.stream>>>(entries, from_scratch, s.cut_base, s.cut_delta);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

// One warp per document slot. Draw: log-Gamma variates in single precision (gamma.h; kept
// in θ meanwhile), then exp(x - max) and the normalisation, all within the warp.
__global__ void theta_kernel(const uint32_t *n_mk, const uint32_t *slot_doc, const uint32_t *slot_doc_len,
                             size_t num_slots, uint32_t K, const double *alpha, double alpha_sum, bool mean,
                             uint64_t seed, uint32_t iteration, float *theta)
{
    const size_t s = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x % 32;
    if (s >= num_slots)
        return;
    const uint32_t *n = n_mk + s * K;
    float *row = theta + s * K;
    const uint32_t doc = slot_doc[s];
    if (doc == LDA_NO_DOC) {
        for (uint32_t k = lane; k < K; k += 32)
            row[k] = 1.0f / (float)K;
        return;
    }
    if (mean) {
        const double denom = (double)slot_doc_len[s] + alpha_sum;
        for (uint32_t k = lane; k < K; k += 32)
            row[k] = (float)((n[k] + alpha[k]) / denom);
        return;
    }
    // Pass 1: the log-variates, with a running maximum and the sum of exp(x - maximum)
    // rescaled as the maximum grows; pass 2 writes exp(x - max) / sum.
    float top = -INFINITY, sum = 0.0f;
    for (uint32_t k = lane; k < K; k += 32) {
        lda_rng rng;
        lda_rng_init(&rng, seed, LDA_RNG_THETA, iteration, (uint64_t)doc * K + k);
        const float lg = lda_log_gamma_variate_float(&rng, (float)n[k] + (float)alpha[k]);
        row[k] = lg;
        if (lg > top) {
            sum = sum * __expf(top - lg) + 1.0f;
            top = lg;
        } else if (lg > -INFINITY) { /* -inf - -inf would be NaN */
            sum += __expf(lg - top);
        }
    }
    const float warp_top = warp_max(top);
    const float scale = 1.0f / warp_sum(top == -INFINITY ? 0.0f : sum * __expf(top - warp_top));
    for (uint32_t k = lane; k < K; k += 32)
        row[k] = __expf(row[k] - warp_top) * scale;
}

// θ of slots first .. first + count - 1 into rows (count × K).
static int theta_of_slots(const device_state &s, size_t first, size_t count, lda_update update, uint64_t seed,
                          uint32_t iteration, float *rows, lda_error *err)
{
    if (count == 0)
        return 0;
    const unsigned threads = 256, blocks = (unsigned)((count * 32 + threads - 1) / threads);
    const uint32_t *n = NULL;
    if (cuda_doc_rows(s, first, count, &n, err))
        return -1;
    theta_kernel<<<blocks, threads, 0, s.stream>>>(n, s.slot_doc + first, s.slot_doc_len + first,
                                                   count, s.K, s.alpha, s.alpha_sum, update == LDA_UPDATE_MEAN, seed,
                                                   iteration, rows);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int cuda_update_theta(const device_state &s, lda_update update, uint64_t seed, uint32_t iteration, lda_error *err)
{
    return theta_of_slots(s, 0, s.num_slots, update, seed, iteration, s.theta, err);
}

size_t cuda_theta_rows_at_once(const device_state &s)
{
    return s.theta ? s.num_slots : s.theta_chunk_slots;
}

int cuda_theta_rows(const device_state &s, size_t first, size_t count, const float **rows, lda_error *err)
{
    if (s.theta) {
        *rows = s.theta + first * s.K;
        return 0;
    }
    if (count > s.theta_chunk_slots) {
        lda_error_fail(err, "internal error: %zu rows of θ asked for at once, room for %zu", count,
                       s.theta_chunk_slots);
        return -1;
    }
    *rows = s.theta_chunk;
    return theta_of_slots(s, first, count, LDA_UPDATE_MEAN, 0, 0, s.theta_chunk, err);
}

// φ draw, pass 1: block = a chunk of LDA_PHI_CHUNK words; each thread owns topics k, k+256, ...
// and sums its chunk's variates in double, in word order.
__global__ void phi_draw_kernel(const uint32_t *n_wk, uint32_t V, uint32_t K, double beta, uint64_t seed,
                                uint32_t iteration, float *phi, double *partial)
{
    const uint32_t chunk = blockIdx.x;
    uint32_t w0, w1;
    lda_phi_chunk_words(chunk, V, &w0, &w1);
    const float beta_f = (float)beta;
    for (uint32_t k = threadIdx.x; k < K; k += blockDim.x) {
        double acc = 0.0;
        for (uint32_t w = w0; w < w1; w++) {
            const size_t i = (size_t)w * K + k;
            lda_rng rng;
            lda_rng_init(&rng, seed, LDA_RNG_PHI, iteration, (uint64_t)i);
            const float g = __expf(lda_log_gamma_variate_float(&rng, (float)n_wk[i] + beta_f));
            phi[i] = g;
            acc += g;
        }
        partial[(size_t)chunk * K + k] = acc;
    }
}

// Pass 2: column totals. One block a topic: each thread adds a fixed subset of the chunks,
// then a fixed tree adds the threads' sums, so the totals are the same on every run.
#define SCALE_THREADS 128
__global__ void __launch_bounds__(SCALE_THREADS) phi_scale_kernel(const double *partial, size_t chunks, uint32_t K,
                                                                  double *scale)
{
    __shared__ double sums[SCALE_THREADS];
    const uint32_t k = blockIdx.x;
    double total = 0.0;
    for (size_t c = threadIdx.x; c < chunks; c += SCALE_THREADS)
        total += partial[c * K + k];
    sums[threadIdx.x] = total;
    __syncthreads();
    for (uint32_t half = SCALE_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        scale[k] = sums[0] > 0.0 ? 1.0 / sums[0] : 0.0;
}

// Pass 3: normalise; a column that underflowed entirely becomes uniform. (V·K < 2^32:
// the backend refuses larger φ, so 32-bit indices serve.)
__global__ void phi_normalise_kernel(float *phi, uint32_t V, uint32_t K, const double *scale)
{
    const uint32_t n = V * K;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float sc = (float)scale[i % K];
        phi[i] = sc > 0.0f ? phi[i] * sc : 1.0f / (float)V;
    }
}

// φ's mean (n[w,k] + β) / (n[k] + V β), in the CPU's operations (updates_cpu.c): rounded
// separately, never fused into an FMA, so the GPU's φ is the CPU's to the bit.
// φ's mean (core/phi_mean.h): the scales s_k, then every entry from its count.
__global__ void phi_mean_scale_kernel(const uint32_t *n_k, uint32_t V, uint32_t K, double beta, float *scale)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < K)
        scale[k] = lda_phi_mean_scale(n_k[k], V, beta);
}

__global__ void phi_mean_kernel(const uint32_t *n_wk, const float *scale, uint32_t V, uint32_t K, float beta, float *phi)
{
    const uint32_t n = V * K;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        phi[i] = lda_phi_mean_value(n_wk[i], beta, scale[i % K]);
}

int cuda_update_phi_mean_scale(const device_state &s, lda_error *err)
{
    phi_mean_scale_kernel<<<(s.K + 255) / 256, 256, 0, s.stream>>>(s.n_k, s.V, s.K, s.beta, s.phi_mean_scale);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int cuda_update_phi(const device_state &s, lda_update update, uint64_t seed, uint32_t iteration, lda_error *err)
{
    const double beta = s.beta;
    const unsigned elementwise_grid = 132 * 8;
    if (update == LDA_UPDATE_MEAN) {
        if (cuda_update_phi_mean_scale(s, err))
            return -1;
        phi_mean_kernel<<<elementwise_grid, 256, 0, s.stream>>>(s.n_wk, s.phi_mean_scale, s.V, s.K, (float)beta, s.phi);
        LAUNCH_TRY();
        return 0;
    }
    phi_draw_kernel<<<(unsigned)lda_phi_chunks(s.V), 256, 0, s.stream>>>(s.n_wk, s.V, s.K, beta, seed, iteration,
                                                                       s.phi, s.phi_partial);
    LAUNCH_TRY();
    phi_scale_kernel<<<s.K, SCALE_THREADS, 0, s.stream>>>(s.phi_partial, lda_phi_chunks(s.V), s.K, s.phi_scale);
    LAUNCH_TRY();
    phi_normalise_kernel<<<elementwise_grid, 256, 0, s.stream>>>(s.phi, s.V, s.K, s.phi_scale);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}
