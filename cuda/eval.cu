// eval.cu — the predictive and joint per-token log-likelihoods on the GPU (formulas in
// src/loglik.h). Blocks write partial sums in double; the host adds them in block order,
// so the figures are deterministic.
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "check.cuh"
#include "core/loglik.h"
#include "device_state.cuh"
#include "warp.cuh"
#include "zsample_butterfly.cuh"

#define EVAL_THREADS 256
#define JOINT_BLOCKS 2048

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

// Block q: the tokens of warp q of the layout; each warp of the block takes one token at
// a time and forms Σ_k θ[m,k] φ[w,k] with its 32 lanes striding over k.
__global__ void __launch_bounds__(EVAL_THREADS) loglik_pred_kernel(const uint32_t *words, const size_t *warp_offset,
                                                                   const uint32_t *slot_len, const float *theta,
                                                                   const float *phi, uint32_t K, double *partial)
{
    const size_t q = blockIdx.x;
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    double total = 0.0;
    for (uint32_t r = 0; r < 32; r++) {
        const size_t s = q * 32 + r;
        const float *th = theta + s * K;
        for (uint32_t i = warp; i < slot_len[s]; i += EVAL_THREADS / 32) {
            const float *ph = phi + (size_t)words[warp_offset[q] + (size_t)i * 32 + r] * K;
            double p = 0.0;
            for (uint32_t k = lane; k < K; k += 32)
                p += (double)th[k] * ph[k];
            p = warp_sum(p);
            total += lane == 0 ? log(p) : 0.0;
        }
    }
    total = block_sum(total);
    if (threadIdx.x == 0)
        partial[q] = total;
}

static int sum_partials(const device_state &s, size_t n, double *out, lda_error *err)
{
    double *host = (double *)malloc(n * sizeof *host);
    if (!host) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    CUDA_TRY(cudaMemcpyAsync(host, s.partials, n * sizeof *host, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    *out = 0.0;
    for (size_t i = 0; i < n; i++)
        *out += host[i];
    free(host);
    return 0;
fail:
    free(host);
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

int cuda_loglik_sum(const device_state &s, const uint32_t *words, const size_t *warp_offset, const uint32_t *warp_len,
                    const uint32_t *slot_len, double *out, lda_error *err)
{
    const size_t smem = lda_butterfly_smem_bytes(s.K, LDA_ZPLAN_WARPS_PER_BLOCK, 0, sizeof(double));
    if (smem > 48 * 1024) { // large K: one warp a token, lanes across topics
        loglik_pred_kernel<<<(unsigned)s.num_warps, EVAL_THREADS, 0, s.stream>>>(words, warp_offset, slot_len, s.theta,
                                                                               s.phi, s.K, s.partials);
        LAUNCH_TRY();
        return sum_partials(s, s.num_warps, out, err);
    }
    {
        zsample_args a;
        memset(&a, 0, sizeof a);
        a.words = words;
        a.warp_offset = warp_offset;
        a.warp_len = warp_len;
        a.slot_len = slot_len;
        a.theta = s.theta;
        a.phi = s.phi;
        a.K = s.K;
        a.num_slots = s.num_slots;
        a.num_warps = s.num_warps;
        a.split = LDA_ZPLAN_DEFAULT_SPLIT;
        const size_t warps = s.num_warps * a.split;
        CUDA_TRY(cudaMemsetAsync(s.partials, 0, warps * sizeof(double), s.stream));
        loglik_butterfly_kernel<<<(unsigned)((warps + LDA_ZPLAN_WARPS_PER_BLOCK - 1) / LDA_ZPLAN_WARPS_PER_BLOCK),
                                  LDA_ZPLAN_WARPS_PER_BLOCK * 32, smem, s.stream>>>(a, s.partials);
        LAUNCH_TRY();
        return sum_partials(s, warps, out, err);
    }
fail:
    return -1;
}

int cuda_loglik_pred(const device_state &s, double *out, lda_error *err)
{
    if (cuda_loglik_sum(s, s.words, s.warp_offset, s.warp_len, s.slot_len, out, err))
        return -1;
    *out /= (double)s.num_tokens;
    return 0;
}

// Joint log-likelihood: blocks stride over the non-zero counts of n[m,k] (real documents
// only) and n[w,k]; block 0 also adds the K topic normalisers and, per document, its
// normaliser is added by whichever thread sees the document's topic 0.
__global__ void __launch_bounds__(EVAL_THREADS) loglik_joint_kernel(
    const uint32_t *n_mk, const uint32_t *slot_doc, const uint32_t *slot_doc_len, const uint32_t *slot_piece,
    size_t num_slots, const uint32_t *n_wk, const uint32_t *n_k, uint32_t V, uint32_t K, const double *alpha,
    const double *lgamma_alpha, double alpha_sum, double beta, double *partial)
{
    const double lg_beta = lgamma(beta);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t start = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    double total = 0.0;
    for (size_t i = start; i < num_slots * K; i += stride) {
        const size_t s = i / K;
        if (slot_doc[s] == LDA_NO_DOC || slot_piece[s] != 0) // a document once, at its first piece
            continue;
        const size_t k = i % K;
        total += lda_joint_count_term(n_mk[i], alpha[k], lgamma_alpha[k]);
        if (k == 0)
            total += lda_joint_norm_term(slot_doc_len[s], alpha_sum);
    }
    for (size_t i = start; i < (size_t)V * K; i += stride)
        total += lda_joint_count_term(n_wk[i], beta, lg_beta);
    for (size_t k = start; k < K; k += stride)
        total += lda_joint_norm_term(n_k[k], V * beta);
    total = block_sum(total);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

int cuda_loglik_joint(const device_state &s, double *out, lda_error *err)
{
    loglik_joint_kernel<<<JOINT_BLOCKS, EVAL_THREADS, 0, s.stream>>>(s.n_mk, s.slot_doc, s.slot_doc_len, s.slot_piece,
                                                                    s.num_slots, s.n_wk, s.n_k, s.V, s.K, s.alpha,
                                                                    s.lgamma_alpha, s.alpha_sum, s.beta, s.partials);
    LAUNCH_TRY();
    if (sum_partials(s, JOINT_BLOCKS, out, err))
        return -1;
    *out /= (double)s.num_tokens;
    return 0;
fail:
    return -1;
}

size_t cuda_eval_partials(size_t num_warps, size_t num_slots, uint32_t V, uint32_t K)
{
    (void)num_slots;
    (void)V;
    (void)K;
    const size_t warps = num_warps * LDA_ZPLAN_DEFAULT_SPLIT;
    return warps > JOINT_BLOCKS ? warps : JOINT_BLOCKS;
}
