// zsample_transpose.cuh — Algorithm 4 of Steele & Tristan with the register transpose of their
// Fig. 2 (--sampler transpose): the baseline the butterfly is measured against.
//
// θ is cached in θ_local by Algorithm 5 (theta_cache.cuh); for each 32-topic block lane r
// loads a_reg[k] = θ_local[j+k] · φ[word of lane k, j+r] (coalesced), then the 32 × 32
// register matrix is transposed across the warp: log2(32) steps, each exchanging with
// __shfl_xor_sync the registers whose numbers differ by 2^i between lanes whose numbers
// differ by 2^i (16 shuffles a step). Lane r then holds its own 32 weights, adds them into
// its full prefix-sum table p_local (thread-interleaved scratch, after θ_local), and the
// draw is Algorithm 3's binary search over all K entries.
#ifndef LDA_ZSAMPLE_TRANSPOSE_CUH
#define LDA_ZSAMPLE_TRANSPOSE_CUH

#include "butterfly.cuh"
#include "real.cuh"
#include "theta_cache.cuh"
#include "zsample.cuh"

template <typename REAL> __device__ __forceinline__ void register_transpose(REAL (&a_reg)[BFLY_W], uint32_t r)
{
#pragma unroll
    for (uint32_t b = 0; b < BFLY_LOG_W; b++) {
        const uint32_t bit = 1u << b;
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++) {
            if (k & bit)
                continue;
            const REAL send = (r & bit) ? a_reg[k] : a_reg[k | bit];
            const REAL got = __shfl_xor_sync(LDA_FULL_WARP, send, bit);
            if (r & bit)
                a_reg[k] = got;
            else
                a_reg[k | bit] = got;
        }
    }
}

// Smallest j with target < p[j * T] (Algorithm 3 over a thread-interleaved table).
template <typename REAL>
__device__ __forceinline__ uint32_t strided_binary_search(const REAL *p, uint32_t K, size_t T, REAL target)
{
    uint32_t j = 0, k = K - 1;
    while (j < k) {
        const uint32_t mid = (j + k) >> 1;
        if (target < p[mid * T])
            k = mid;
        else
            j = mid + 1;
    }
    return j;
}

template <typename REAL> __global__ void __launch_bounds__(128, 2) zsample_transpose_kernel(zsample_args a)
{
    const size_t m = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t q = m / BFLY_W;
    if (q >= a.num_warps)
        return;
    const uint32_t r = threadIdx.x % BFLY_W, K = a.K, R = K % BFLY_W;
    const size_t T = a.num_slots;
    float *theta_local = static_cast<float *>(a.scratch) + m;
    REAL *p = reinterpret_cast<REAL *>(static_cast<float *>(a.scratch) + (size_t)K * T) + m;
    cache_theta_transposed(a, q, r, theta_local, T);

    const uint32_t len = a.slot_len[m], rows = a.warp_len[q];
    const uint32_t *warp_words = a.words + a.warp_offset[q];
    uint32_t *warp_z = a.z + a.warp_offset[q];
    for (uint32_t row = 0; row < rows; row++) {
        const uint32_t row_offset = warp_words[(size_t)row * BFLY_W + r] * K;
        uint32_t c_warp[BFLY_W];
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++)
            c_warp[k] = __shfl_sync(LDA_FULL_WARP, row_offset, k);
        REAL sum = 0;
        for (uint32_t j = 0; j < R; j++) {
            sum += (REAL)theta_local[j * T] * (REAL)a.phi[row_offset + j];
            p[j * T] = sum;
        }
        for (uint32_t j = R; j < K; j += BFLY_W) {
            REAL a_reg[BFLY_W];
            const float *theta_block = theta_local + (size_t)j * T;
#pragma unroll
            for (uint32_t k = 0; k < BFLY_W; k++)
                a_reg[k] = (REAL)theta_block[k * T] * (REAL)a.phi[c_warp[k] + j + r];
            register_transpose(a_reg, r);
            REAL *p_block = p + (size_t)j * T;
#pragma unroll
            for (uint32_t k = 0; k < BFLY_W; k++) {
                sum += a_reg[k];
                p_block[k * T] = sum;
            }
        }
        const uint32_t i = row < len ? row : (len ? len - 1 : 0);
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, a.slot_token_base[m] + i);
        const REAL target = scaled_target(sum, uniform_from_bits<REAL>(bits));
        if (row < len)
            warp_z[(size_t)row * BFLY_W + r] = strided_binary_search(p, K, T, target);
    }
}

#endif
