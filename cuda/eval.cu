// eval.cu — the terms of the predictive and joint per-token log-likelihoods on the GPU
// (formulas in core/loglik.h; the terms as eval_cpu.h defines them: per layout warp, per
// vocabulary chunk). Blocks write them in double; the host adds them in the whole layout's order
// (lda_backend_evaluate_from_terms), so the figures are deterministic and the same on one GPU
// as on several.
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "check.cuh"
#include "core/loglik.h"
#include "device_state.cuh"
#include "warp.cuh"
#include "zsample.cuh"
#include "zsample_butterfly.cuh"

#define EVAL_THREADS 256

__device__ __forceinline__ double block_sum(double v)
{
    __shared__ double warp_totals[EVAL_THREADS / 32];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0)
        warp_totals[threadIdx.x / 32] = v;
    __syncthreads();
    double total = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < EVAL_THREADS / 32; w++)
            total += warp_totals[w];
    return total; // meaningful in thread 0
}

// Block b: the tokens of slot b of the layout (a block a slot, not a layout warp: at K = 10,000
// θ's rows come 819 at a time (cuda_theta_rows), and a block a layout warp left the H100 with
// 25 blocks a launch: 65 s to evaluate 10^8 tokens); each warp of the block takes one token at
// a time and forms Σ_k θ[m,k] φ[w,k] with its 32 lanes striding over k.
__global__ void __launch_bounds__(EVAL_THREADS) loglik_pred_kernel(const uint32_t *words, const size_t *warp_offset,
                                                                   const uint32_t *slot_len, const float *theta,
                                                                   const float *phi, uint32_t K, double *partial)
{
    const size_t s = blockIdx.x, q = s / 32, r = s % 32;
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const float *th = theta + s * K;
    double total = 0.0;
    for (uint32_t i = warp; i < slot_len[s]; i += EVAL_THREADS / 32) {
        const float *ph = phi + (size_t)words[warp_offset[q] + (size_t)i * 32 + r] * K;
        double p = 0.0;
        for (uint32_t k = lane; k < K; k += 32)
            p += (double)th[k] * ph[k];
        p = warp_sum(p);
        total += lane == 0 ? log(p) : 0.0;
    }
    total = block_sum(total);
    if (threadIdx.x == 0)
        partial[s] = total;
}

// Σ_k α_k φ[w,k] of every word, in double, a warp a word: what θ's α gives each token of w in the
// predictive term formed from the documents' lists (loglik_pred_lists_kernel).
__global__ void word_alpha_kernel(const float *phi, const double *alpha, uint32_t V, uint32_t K, double *out)
{
    const size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x % 32;
    if (w >= V)
        return;
    const float *row = phi + w * K;
    double a = 0.0;
    for (uint32_t k = lane; k < K; k += 32)
        a += alpha[k] * row[k];
    a = warp_sum(a);
    if (lane == 0)
        out[w] = a;
}

// The predictive term where n[m,k] is kept as lists (the sparse draw's, count_lists.cuh) and θ is
// their mean, (n[m,k] + α_k) / (N_m + Σα): a token's Σ_k θ[m,k] φ[w,k] is
// (Σ_{k listed} n[m,k] φ[w,k] + Σ_k α_k φ[w,k]) / (N_m + Σα), the last sum the word's (word_alpha),
// so a token walks its document's list, not K topics. Block b: slot b (its list and length the
// state's, its words those of words, warp_offset and slot_len: a held-out layout's where one is
// scored), its warps a token at a time, the lanes over the list.
// θ is not rounded to float here, as the rows of θ the dense kernel reads are: the two agree to
// about 1e-8 of a token's term. Measured on the H100 (10^9 generated tokens, K = 10^4): an
// evaluation 23.3 s dense, 0.5 s from the lists (results/scale/eval-lists-1e9/).
__global__ void __launch_bounds__(EVAL_THREADS) loglik_pred_lists_kernel(
    const uint32_t *words, const size_t *warp_offset, const uint32_t *slot_len, const count_lists lists,
    const uint32_t *slot_doc_len, double alpha_sum, const double *word_alpha, const float *phi, uint32_t K,
    double *partial)
{
    const size_t s = blockIdx.x, q = s / 32, r = s % 32;
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32, len = slot_len[s];
    double total = 0.0;
    if (len) {
        const uint64_t at = lists.offset[s];
        const uint32_t m = lists.len[s];
        const uint32_t *topics = lists.topics + at, *counts = lists.counts + at;
        const double denom = (double)slot_doc_len[s] + alpha_sum;
        for (uint32_t i = warp; i < len; i += EVAL_THREADS / 32) {
            const uint32_t w = words[warp_offset[q] + (size_t)i * 32 + r];
            const float *ph = phi + (size_t)w * K;
            double p = 0.0;
            for (uint32_t j = lane; j < m; j += 32)
                p += (double)counts[j] * ph[topics[j]];
            p = warp_sum(p);
            total += lane == 0 ? log((p + word_alpha[w]) / denom) : 0.0;
        }
    }
    total = block_sum(total);
    if (threadIdx.x == 0)
        partial[s] = total;
}

// n partial sums to the host.
static int copy_partials(const device_state &s, size_t n, double *host, lda_error *err)
{
    CUDA_TRY(cudaMemcpyAsync(host, s.partials, n * sizeof *host, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    return 0;
fail:
    return -1;
}

// The same figure through the butterfly sampler's first pass (zsample_butterfly.cuh): each
// token's Σ_k θ[m,k] φ[w,k] is exactly the total the z draw normalises by, formed with the
// same transposed, coalesced loads, in double. One partial sum per warp.
__global__ void __launch_bounds__(LDA_ZPLAN_WARPS_PER_BLOCK * 32, 2) loglik_butterfly_kernel(zsample_args a,
                                                                                            double *partial)
{
    extern __shared__ __align__(16) unsigned char eval_smem[];
    const uint32_t r = threadIdx.x % BFLY_W, warp_in_block = threadIdx.x / BFLY_W;
    const size_t gw = blockIdx.x * (size_t)LDA_ZPLAN_WARPS_PER_BLOCK + warp_in_block;
    const size_t q = gw / a.split;
    if (q >= a.num_warps)
        return;
    double *totals = reinterpret_cast<double *>(eval_smem) + warp_in_block * (a.K / BFLY_W) * BFLY_W;
    const size_t m = q * BFLY_W + r;
    const group_weights g = {a.theta + q * BFLY_W * (size_t)a.K, NULL, NULL, a.K};
    const uint32_t len = a.slot_len[m], rows = a.warp_len[q];
    const uint32_t *warp_words = a.words + a.warp_offset[q];
    double acc = 0.0;
    for (uint32_t row = (uint32_t)(gw % a.split); row < rows; row += a.split) {
        double remnant_total;
        const double total = butterfly_block_totals<double, false>(
            a, g, r, warp_words[(size_t)row * BFLY_W + r] * a.K, totals, &remnant_total);
        if (row < len)
            acc += log(total);
    }
    acc = warp_sum(acc);
    if (r == 0)
        partial[gw] = acc;
}

// The butterfly kernel's partials for `warps` layout warps (the arrays and θ's rows from the
// first of them on): split of them a warp, added in order.
static int butterfly_terms(const device_state &s, const uint32_t *words, const size_t *warp_offset,
                           const uint32_t *warp_len, const uint32_t *slot_len, const float *theta, size_t warps,
                           size_t smem, double *per_warp, lda_error *err)
{
    zsample_args a;
    memset(&a, 0, sizeof a);
    a.words = words;
    a.warp_offset = warp_offset;
    a.warp_len = warp_len;
    a.slot_len = slot_len;
    a.theta = theta;
    a.phi = s.phi;
    a.K = s.K;
    a.num_slots = warps * 32;
    a.num_warps = warps;
    a.split = LDA_ZPLAN_DEFAULT_SPLIT;
    const size_t launched = warps * a.split;
    double *host = (double *)malloc(launched * sizeof *host);
    if (!host) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    CUDA_TRY(cudaMemsetAsync(s.partials, 0, launched * sizeof(double), s.stream));
    loglik_butterfly_kernel<<<(unsigned)((launched + LDA_ZPLAN_WARPS_PER_BLOCK - 1) / LDA_ZPLAN_WARPS_PER_BLOCK),
                              LDA_ZPLAN_WARPS_PER_BLOCK * 32, smem, s.stream>>>(a, s.partials);
    LAUNCH_TRY();
    if (copy_partials(s, launched, host, err))
        goto fail;
    for (size_t q = 0; q < warps; q++) {
        per_warp[q] = 0.0;
        for (uint32_t j = 0; j < a.split; j++)
            per_warp[q] += host[q * a.split + j];
    }
    free(host);
    return 0;
fail:
    free(host);
    return -1;
}

// The partials of `warps` warps' slots (a block a slot) to the host, each warp's term the sum of
// its slots' in order.
static int warp_terms_of_slots(const device_state &s, size_t warps, double *per_warp, lda_error *err)
{
    double *per_slot = (double *)malloc(warps * 32 * sizeof *per_slot + 1);
    if (!per_slot) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    if (copy_partials(s, warps * 32, per_slot, err)) {
        free(per_slot);
        return -1;
    }
    for (size_t q = 0; q < warps; q++) {
        per_warp[q] = 0.0;
        for (uint32_t r = 0; r < 32; r++)
            per_warp[q] += per_slot[q * 32 + r];
    }
    free(per_slot);
    return 0;
}

// The terms of `warps` layout warps, from the first of them on (large K: one warp a token,
// lanes across topics; a block a layout warp).
static int per_token_terms(const device_state &s, const uint32_t *words, const size_t *warp_offset,
                           const uint32_t *slot_len, const float *theta, size_t warps, double *per_warp,
                           lda_error *err)
{
    loglik_pred_kernel<<<(unsigned)(warps * 32), EVAL_THREADS, 0, s.stream>>>(words, warp_offset, slot_len, theta,
                                                                            s.phi, s.K, s.partials);
    LAUNCH_TRY();
    return warp_terms_of_slots(s, warps, per_warp, err);
fail:
    return -1;
}

// Every warp's terms from the documents' lists (loglik_pred_lists_kernel), in one launch.
static int list_terms(const device_state &s, const uint32_t *words, const size_t *warp_offset,
                      const uint32_t *slot_len, double *per_warp, lda_error *err)
{
    word_alpha_kernel<<<(unsigned)((s.V + 7) / 8), 256, 0, s.stream>>>(s.phi, s.alpha, s.V, s.K, s.word_alpha);
    LAUNCH_TRY();
    if (s.num_slots) {
        loglik_pred_lists_kernel<<<(unsigned)s.num_slots, EVAL_THREADS, 0, s.stream>>>(
            words, warp_offset, slot_len, sparse_count_lists(s.sparse), s.slot_doc_len, s.alpha_sum,
            s.word_alpha, s.phi, s.K, s.partials);
        LAUNCH_TRY();
    }
    return warp_terms_of_slots(s, s.num_warps, per_warp, err);
fail:
    return -1;
}

// A run of warps at a time: as many as θ's rows the state can give at once (cuda_theta_rows);
// where n[m,k] is kept as lists and θ is their mean, from the lists (list_terms).
int cuda_loglik_terms(const device_state &s, const uint32_t *words, const size_t *warp_offset,
                      const uint32_t *warp_len, const uint32_t *slot_len, double *per_warp, lda_error *err)
{
    if (counts_are_lists(s) && !s.theta && s.word_alpha)
        return list_terms(s, words, warp_offset, slot_len, per_warp, err);
    const size_t smem = lda_butterfly_smem_bytes(s.K, LDA_ZPLAN_WARPS_PER_BLOCK, 0, sizeof(double));
    const size_t step = cuda_theta_rows_at_once(s) / 32 ? cuda_theta_rows_at_once(s) / 32 : 1;
    for (size_t q0 = 0; q0 < s.num_warps; q0 += step) {
        const size_t warps = s.num_warps - q0 < step ? s.num_warps - q0 : step;
        const float *theta = NULL;
        if (cuda_theta_rows(s, q0 * 32, warps * 32, &theta, err) ||
            (smem <= 48 * 1024 ? butterfly_terms(s, words, warp_offset + q0, warp_len + q0, slot_len + q0 * 32, theta,
                                                 warps, smem, per_warp + q0, err)
                               : per_token_terms(s, words, warp_offset + q0, slot_len + q0 * 32, theta, warps,
                                                 per_warp + q0, err)))
            return -1;
    }
    return 0;
}

// The joint log-likelihood's terms (eval_cpu.h): a block a layout warp, over its slots' counts
// (each real document once, at its first piece, with its normaliser at topic 0); a block a
// vocabulary chunk (phi_chunks.h), over its words' counts. Each block's sum is formed in one fixed
// order (block_sum), so the terms, and the figure the host adds from them, are the same for any
// split of the warps over shards.
// Warps first_warp .. first_warp + num_warps - 1, their rows of n[m,k] in `rows` (cuda_doc_rows).
__global__ void __launch_bounds__(EVAL_THREADS) joint_doc_terms_kernel(
    const uint32_t *rows, const uint32_t *slot_doc, const uint32_t *slot_doc_len, const uint32_t *slot_piece,
    size_t first_warp, size_t num_warps, uint32_t K, const double *alpha, const double *lgamma_alpha,
    double alpha_sum, double *partial)
{
    for (size_t q = first_warp + blockIdx.x; q < first_warp + num_warps; q += gridDim.x) {
        double total = 0.0;
        for (size_t i = threadIdx.x; i < (size_t)32 * K; i += EVAL_THREADS) {
            const size_t s = q * 32 + i / K, k = i % K;
            if (slot_doc[s] == LDA_NO_DOC || slot_piece[s] != 0) // a document once, at its first piece
                continue;
            total += lda_joint_count_term(rows[(s - first_warp * 32) * K + k], alpha[k], lgamma_alpha[k]);
            if (k == 0)
                total += lda_joint_norm_term(slot_doc_len[s], alpha_sum);
        }
        total = block_sum(total);
        if (threadIdx.x == 0)
            partial[q] = total;
        __syncthreads(); // block_sum's shared totals are reused by the next warp
    }
}

// The same terms where the counts are lists (the collapsed sparse draw's): a count of zero adds
// nothing (lda_joint_count_term), so a document's terms are its list's entries, not K of them
// (at K = 10^4 and 5 x 10^9 tokens the dense rows took minutes). A warp a slot's list.
__global__ void __launch_bounds__(EVAL_THREADS) joint_doc_list_terms_kernel(
    count_lists lists, const uint32_t *slot_doc, const uint32_t *slot_doc_len, const uint32_t *slot_piece,
    size_t num_warps, const double *alpha, const double *lgamma_alpha, double alpha_sum, double *partial)
{
    const uint32_t lane = threadIdx.x % LDA_WARP;
    for (size_t q = blockIdx.x; q < num_warps; q += gridDim.x) {
        double total = 0.0;
        for (uint32_t r = threadIdx.x / LDA_WARP; r < LDA_WARP; r += EVAL_THREADS / LDA_WARP) {
            const size_t s = q * LDA_WARP + r;
            if (slot_doc[s] == LDA_NO_DOC || slot_piece[s] != 0) // a document once, at its first piece
                continue;
            const uint64_t at = lists.offset[s];
            for (uint32_t j = lane; j < lists.len[s]; j += LDA_WARP) {
                const uint32_t k = lists.topics[at + j];
                total += lda_joint_count_term(lists.counts[at + j], alpha[k], lgamma_alpha[k]);
            }
            if (lane == 0)
                total += lda_joint_norm_term(slot_doc_len[s], alpha_sum);
        }
        total = block_sum(total);
        if (threadIdx.x == 0)
            partial[q] = total;
        __syncthreads(); // block_sum's shared totals are reused by the next warp
    }
}

__global__ void __launch_bounds__(EVAL_THREADS) joint_word_terms_kernel(const uint32_t *n_wk, uint32_t V, uint32_t K,
                                                                        double beta, double *partial)
{
    const double lg_beta = lgamma(beta);
    const size_t chunks = lda_phi_chunks(V);
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        uint32_t w0, w1;
        lda_phi_chunk_words(c, V, &w0, &w1);
        double total = 0.0;
        for (size_t i = (size_t)w0 * K + threadIdx.x; i < (size_t)w1 * K; i += EVAL_THREADS)
            total += lda_joint_count_term(n_wk[i], beta, lg_beta);
        total = block_sum(total);
        if (threadIdx.x == 0)
            partial[c] = total;
        __syncthreads();
    }
}

static unsigned eval_grid(size_t blocks)
{
    return (unsigned)(blocks < 8192 ? blocks : 8192);
}

static int joint_doc_list_terms(const device_state &s, double *per_warp, lda_error *err)
{
    joint_doc_list_terms_kernel<<<eval_grid(s.num_warps), EVAL_THREADS, 0, s.stream>>>(
        sparse_count_lists(s.sparse), s.slot_doc, s.slot_doc_len, s.slot_piece, s.num_warps, s.alpha, s.lgamma_alpha,
        s.alpha_sum, s.partials);
    LAUNCH_TRY();
    return copy_partials(s, s.num_warps, per_warp, err);
fail:
    return -1;
}

int cuda_joint_doc_terms(const device_state &s, double *per_warp, lda_error *err)
{
    if (s.num_warps == 0)
        return 0;
    if (counts_are_lists(s))
        return joint_doc_list_terms(s, per_warp, err);
    const size_t step = cuda_doc_rows_at_once(s) / 32; // warps of rows at a time
    for (size_t q0 = 0; q0 < s.num_warps; q0 += step) {
        const size_t n = s.num_warps - q0 < step ? s.num_warps - q0 : step;
        const uint32_t *rows = NULL;
        if (cuda_doc_rows(s, q0 * 32, n * 32, &rows, err))
            return -1;
        joint_doc_terms_kernel<<<eval_grid(n), EVAL_THREADS, 0, s.stream>>>(rows, s.slot_doc, s.slot_doc_len,
                                                                           s.slot_piece, q0, n, s.K, s.alpha,
                                                                           s.lgamma_alpha, s.alpha_sum, s.partials);
        LAUNCH_TRY();
    }
    return copy_partials(s, s.num_warps, per_warp, err);
fail:
    return -1;
}

int cuda_joint_word_terms(const device_state &s, double *per_chunk, lda_error *err)
{
    const size_t chunks = lda_phi_chunks(s.V);
    if (chunks == 0)
        return 0;
    joint_word_terms_kernel<<<eval_grid(chunks), EVAL_THREADS, 0, s.stream>>>(s.n_wk, s.V, s.K, s.beta, s.partials);
    LAUNCH_TRY();
    return copy_partials(s, chunks, per_chunk, err);
fail:
    return -1;
}
