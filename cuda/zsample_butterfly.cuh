// zsample_butterfly.cuh — Algorithm 7 of Steele & Tristan (000_e24edcbece0b8c44.txt) with the
// butterfly table kept in registers: the default sampler (--sampler butterfly).
//
// The published algorithm writes all K rows of every lane's butterfly-patterned table to
// per-thread memory and then reads about log2(K) of them. On an H100 those writes cost as
// many bytes as reading φ itself (zsample_butterfly_stored.cuh keeps that version). Here
// each token row is done in two passes over the same data:
//  1. For every 32-topic block, lane r loads a_reg[k] = w(doc k, topic j+r) · φ[word k, j+r]
//     (transposed, coalesced: the 32 lanes read one φ row segment) and runs Algorithm 8's
//     butterfly steps; only row W-1 is kept — the running total of the lane's own weights
//     through the block — in shared memory. The remnant (K mod 32 topics, at the front) is
//     summed linearly by each lane for its own document.
//  2. Algorithm 9's block search over those totals picks each lane's block. Then a_reg is
//     rebuilt from the block *each* document chose (lane r loads topic b_k + r of document
//     k: still one contiguous segment per k, and cached: pass 1 just read it), and the same
//     butterfly steps give, in registers, every table entry Algorithm 10 will read: the
//     entry in row d of column r belongs to one lane's tree and was built from that lane's
//     block. Algorithm 10 then runs unchanged, fetching tree nodes with __shfl_xor_sync by
//     `flip`. Partial sums are bit-identical to the stored table's, so the draw is the same.
// A lane whose u' falls in the remnant re-sums it linearly (the same additions in the same
// order) and searches there.
//
// Token rows of a document group are independent given θ and φ, so `split` warps share a
// group, warp s taking rows s, s+split, ...: the paper's one-warp loop leaves an H100 mostly
// idle on a corpus of 43K documents (shared/docs/perf-notes.md). Every row reads all K
// weights of the group's 32 documents, as many bytes as its φ rows; read through L1/L2 that
// is a third of the kernel's L2 traffic. So by default (THETA_STAGED) one block of warps
// takes one group and first copies its θ rows (32 × K floats) into shared memory, once;
// the rows then read θ from there. Where that copy does not fit in shared memory, or
// --split asks for a given number of warps, θ is read from global memory as before. The
// weights, and so the draws, are the same either way. With θ collapsed a
// document's tokens are drawn in order by its own lane (counts change token by token), so
// split is 1: lane r removes its token's old topic from n[m,·] before the row and adds the
// new one after; __syncwarp() makes both visible to the lanes that read them next.
#ifndef LDA_ZSAMPLE_BUTTERFLY_CUH
#define LDA_ZSAMPLE_BUTTERFLY_CUH

#include <cuda_pipeline.h>

#include "backend/zplan.h"
#include "butterfly.cuh"
#include "real.cuh"
#include "weights.cuh"
#include "zsample.cuh"


// A document group's weights: θ (or n[m,k]) rows of its 32 documents, K apart (document
// k's topic j is at k * K + j), and, θ collapsed, the prior of each topic.
struct group_weights {
    const float *theta;
    uint32_t *n_mk;
    const float *alpha;
    uint32_t K;
};

template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL group_weight(const group_weights &g, uint32_t doc, uint32_t topic)
{
    return doc_weight_at<REAL, COLLAPSED>(g.theta, g.n_mk, g.alpha, (size_t)doc * g.K + topic, topic);
}

// Pass 1 over the remnant and every block; returns the total, leaves the remnant's total in
// *remnant_total and the running totals in totals[b * 32 + r].
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL butterfly_block_totals(const zsample_args &a, const group_weights &g, uint32_t r,
                                                       uint32_t row_offset, REAL *totals, REAL *remnant_total)
{
    const uint32_t K = a.K, R = K % BFLY_W, blocks = K / BFLY_W;
    REAL sum = 0;
    for (uint32_t j = 0; j < R; j++)
        sum += group_weight<REAL, COLLAPSED>(g, r, j) * (REAL)a.phi[row_offset + j];
    *remnant_total = sum;
    if (blocks == 0)
        return sum;
    uint32_t c_warp[BFLY_W]; // each lane's φ row offset (word * K), by shuffles
#pragma unroll
    for (uint32_t k = 0; k < BFLY_W; k++)
        c_warp[k] = __shfl_sync(LDA_FULL_WARP, row_offset, k);
    for (uint32_t b = 0; b < blocks; b++) {
        const uint32_t j = R + b * BFLY_W + r;
        REAL a_reg[BFLY_W];
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++)
            a_reg[k] = group_weight<REAL, COLLAPSED>(g, k, j) * (REAL)a.phi[c_warp[k] + j];
        butterfly_steps(a_reg, r, [](uint32_t, REAL) {});
        sum += a_reg[BFLY_W - 1];
        totals[b * BFLY_W + r] = sum;
    }
    return sum;
}

// Pass 2 and Algorithms 9-10; returns the drawn topic.
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ uint32_t butterfly_draw(const zsample_args &a, const group_weights &g, uint32_t r,
                                                   uint32_t row_offset, const REAL *totals, REAL remnant_total,
                                                   REAL target)
{
    const uint32_t K = a.K, R = K % BFLY_W, blocks = K / BFLY_W;
    uint32_t topic = K - 1, block = 0;
    if (blocks > 0) {
        int lo = 0, hi = (int)blocks - 1; // Algorithm 9
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (target < totals[mid * BFLY_W + r])
                hi = mid;
            else
                lo = mid + 1;
        }
        block = (uint32_t)lo;
        const uint32_t block_base = R + block * BFLY_W;
        REAL a_reg[BFLY_W];
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++) {
            const uint32_t his_base = __shfl_sync(LDA_FULL_WARP, block_base, k) + r;
            const uint32_t his_row = __shfl_sync(LDA_FULL_WARP, row_offset, k);
            a_reg[k] = group_weight<REAL, COLLAPSED>(g, k, his_base) *
                       (REAL)a.phi[his_row + his_base];
        }
        butterfly_steps(a_reg, r, [](uint32_t, REAL) {});
        const REAL low = block > 0 ? totals[(block - 1) * BFLY_W + r] : remnant_total;
        const REAL high = totals[block * BFLY_W + r];
        topic = block_base + butterfly_search_registers(a_reg, r, target, low, high); // Algorithm 10
    }
    if (R > 0 && block == 0 && target < remnant_total) { // in the remnant after all
        REAL sum = 0;
        for (uint32_t j = 0; j < R; j++) {
            sum += group_weight<REAL, COLLAPSED>(g, r, j) * (REAL)a.phi[row_offset + j];
            if (target < sum) {
                topic = j;
                break;
            }
        }
    }
    return topic < K ? topic : K - 1; // never walk off the table
}

// θ of the mean update from the counts staged in place, documents w, w + warps, ... by warp w:
// one denominator each. PER_TOPIC: learned α (f.alpha); else the symmetric α, in a register
// (the load of α[j] for every entry measured 1-2% of a mean-for-mode iteration).
template <bool PER_TOPIC>
__device__ __forceinline__ void counts_to_theta_mean(const zsample_fused &f, size_t q, uint32_t K, float *staged)
{
    const uint32_t warps = blockDim.x / BFLY_W;
    for (uint32_t k = threadIdx.x / BFLY_W; k < BFLY_W; k += warps) {
        const double denom = (double)f.slot_doc_len[q * BFLY_W + k] + f.alpha_sum;
        for (uint32_t j = threadIdx.x % BFLY_W; j < K; j += BFLY_W)
            staged[k * K + j] =
                (float)((__float_as_uint(staged[k * K + j]) + (PER_TOPIC ? f.alpha[j] : f.alpha_symmetric)) / denom);
    }
}

// Copies the group's θ rows into shared memory (32 · K floats, a multiple of 4; the group's
// first row is 128 · K bytes into θ) with asynchronous 16-byte copies, all in flight at once;
// or, theta_mean, copies the counts n[m,k] the same way and turns them in place into θ
// exactly as the mean θ update does (updates.cu, theta_kernel).
__device__ __forceinline__ void stage_group_theta(const zsample_args &a, const zsample_fused &f, size_t q,
                                                  float *staged)
{
    const uint32_t K = a.K;
    const size_t group_base = q * BFLY_W * (size_t)K;
    const char *from = f.theta_mean ? reinterpret_cast<const char *>(a.n_mk + group_base)
                                    : reinterpret_cast<const char *>(a.theta + group_base);
    char *to = reinterpret_cast<char *>(staged);
    for (uint32_t i = threadIdx.x; i < BFLY_W * K / 4; i += blockDim.x)
        __pipeline_memcpy_async(to + 16 * (size_t)i, from + 16 * (size_t)i, 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if (f.theta_mean) {
        __syncthreads();
        if (f.alpha)
            counts_to_theta_mean<true>(f, q, K, staged);
        else
            counts_to_theta_mean<false>(f, q, K, staged);
    }
}

// A token of document m (lane r of the group) moved from old_k to new_k: n[m,k] and n[w,k]
// in global memory (other warps of the block share the document), n[k] in the block's tally.
__device__ __forceinline__ void count_move(const zsample_args &a, const zsample_fused &f, size_t m,
                                           uint32_t row_offset, uint32_t old_k, uint32_t new_k, uint32_t *topic_delta)
{
    atomicSub(&a.n_mk[m * a.K + old_k], 1u);
    atomicAdd(&a.n_mk[m * a.K + new_k], 1u);
    atomicSub(&f.n_wk[row_offset + old_k], 1u);
    atomicAdd(&f.n_wk[row_offset + new_k], 1u);
    atomicSub(&topic_delta[old_k], 1u); // modulo 2^32: adding the tally to n[k] subtracts too
    atomicAdd(&topic_delta[new_k], 1u);
}

// STAGED: one block a document group (blockDim.x / 32 warps share its rows), θ read from
// its copy in shared memory, and `fused` (zsample.cuh) done on the way. Otherwise `split`
// warps a group, LDA_ZPLAN_WARPS_PER_BLOCK a block, θ read from global memory. totals:
// shared memory (totals_global == NULL) or, when K is too large for it, a global region per
// warp (never when staged).
template <typename REAL, bool COLLAPSED, bool STAGED>
__device__ __forceinline__ void butterfly_sample_rows(const zsample_args &a, REAL *totals_global,
                                                      const zsample_fused &fused)
{
    extern __shared__ __align__(16) unsigned char butterfly_smem[];
    const uint32_t r = threadIdx.x % BFLY_W, warp_in_block = threadIdx.x / BFLY_W;
    const uint32_t K = a.K, blocks = K / BFLY_W;
    size_t gw, q;
    uint32_t split, first_row;
    if (STAGED) {
        gw = 0; // unused: totals are in shared memory
        q = blockIdx.x * (size_t)a.part_count + a.part;
        split = blockDim.x / BFLY_W;
        first_row = warp_in_block;
    } else {
        gw = blockIdx.x * (size_t)LDA_ZPLAN_WARPS_PER_BLOCK + warp_in_block;
        split = COLLAPSED ? 1 : a.split;
        q = gw / split * a.part_count + a.part; // the group, within this part (--refresh)
        first_row = (uint32_t)(gw % split);
    }
    if (q >= a.num_warps) // whole warps (and, staged, whole blocks) leave together
        return;
    const size_t m = q * BFLY_W + r, group_base = q * BFLY_W * (size_t)K;
    float *theta_staged = reinterpret_cast<float *>(butterfly_smem);
    REAL *totals_smem = reinterpret_cast<REAL *>(butterfly_smem + (STAGED ? (size_t)BFLY_W * K * sizeof(float) : 0));
    REAL *totals = totals_global ? totals_global + gw * (size_t)blocks * BFLY_W
                                 : totals_smem + warp_in_block * blocks * BFLY_W;
    uint32_t *topic_delta = reinterpret_cast<uint32_t *>(totals_smem + split * blocks * BFLY_W);
    const bool counting = STAGED && fused.n_wk != NULL;
    if (STAGED) {
        stage_group_theta(a, fused, q, theta_staged);
        if (counting)
            for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
                topic_delta[k] = 0;
        __syncthreads();
    }
    const group_weights g = {COLLAPSED ? NULL : STAGED ? theta_staged : a.theta + group_base, a.n_mk + group_base,
                             COLLAPSED ? a.alpha : NULL, K};
    const uint32_t len = a.slot_len[m], rows = a.warp_len[q];
    const uint32_t *warp_words = a.words + a.warp_offset[q];
    uint32_t *warp_z = a.z + a.warp_offset[q];
    const uint64_t first_token = a.slot_token_base[m];
    for (uint32_t row = first_row; row < rows; row += split) {
        const bool live = row < len; // a finished lane repeats its last word and writes nothing
        const uint32_t row_offset = warp_words[(size_t)row * BFLY_W + r] * K;
        const uint32_t old_k = counting && live ? warp_z[(size_t)row * BFLY_W + r] : 0;
        if (COLLAPSED) {
            if (live)
                g.n_mk[(size_t)r * K + warp_z[(size_t)row * BFLY_W + r]]--;
            __syncwarp();
        }
        REAL remnant_total;
        const REAL total = butterfly_block_totals<REAL, COLLAPSED>(a, g, r, row_offset, totals, &remnant_total);
        const uint32_t i = live ? row : (len ? len - 1 : 0);
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, first_token + i);
        const REAL target = scaled_target(total, uniform_from_bits<REAL>(bits));
        const uint32_t topic = butterfly_draw<REAL, COLLAPSED>(a, g, r, row_offset, totals, remnant_total, target);
        if (live) {
            if (counting && old_k != topic)
                count_move(a, fused, m, row_offset, old_k, topic, topic_delta);
            warp_z[(size_t)row * BFLY_W + r] = topic;
        }
        if (COLLAPSED) {
            if (live)
                g.n_mk[(size_t)r * K + topic]++;
            __syncwarp();
        }
    }
    if (counting) {
        __syncthreads();
        for (uint32_t k = threadIdx.x; k < K; k += blockDim.x)
            if (topic_delta[k])
                atomicAdd(&fused.n_k[k], topic_delta[k]);
    }
}

// The kernels. Register budgets differ (checked in the build's resource report: no stack
// frame, so a_reg and c_warp stay in registers): the float kernel with rows split over warps
// gets the compiler's default (168 registers, 3 blocks an SM: occupancy hides latency);
// with θ collapsed (one warp a group, few warps) and in double there is room for every load
// of a block in flight at once (2 blocks an SM). The staged kernels hold one group's θ, up to
// 128 KiB at K = 1024, so one block an SM: as many warps as the registers allow (12 in
// float at 168 registers, 8 in double).

static __global__ void __launch_bounds__(LDA_ZPLAN_WARPS_PER_BLOCK * 32) zsample_butterfly_float_split(zsample_args a,
                                                                                                float *totals)
{
    butterfly_sample_rows<float, false, false>(a, totals, zsample_fused{});
}

static __global__ void __launch_bounds__(LDA_ZPLAN_WARPS_PER_BLOCK * 32, 2) zsample_butterfly_float_collapsed(zsample_args a,
                                                                                                     float *totals)
{
    butterfly_sample_rows<float, true, false>(a, totals, zsample_fused{});
}

template <bool COLLAPSED>
__global__ void __launch_bounds__(LDA_ZPLAN_WARPS_PER_BLOCK * 32, 2) zsample_butterfly_double(zsample_args a,
                                                                                             double *totals)
{
    butterfly_sample_rows<double, COLLAPSED, false>(a, totals, zsample_fused{});
}

static __global__ void __launch_bounds__(LDA_ZPLAN_STAGED_WARPS_FLOAT * 32, 1) zsample_butterfly_float_staged(zsample_args a,
                                                                                                     zsample_fused f)
{
    butterfly_sample_rows<float, false, true>(a, NULL, f);
}

static __global__ void __launch_bounds__(LDA_ZPLAN_STAGED_WARPS_DOUBLE * 32, 1) zsample_butterfly_double_staged(zsample_args a,
                                                                                                       zsample_fused f)
{
    butterfly_sample_rows<double, false, true>(a, NULL, f);
}

template <typename REAL, bool COLLAPSED> struct butterfly_kernel;
template <bool COLLAPSED> struct butterfly_kernel<float, COLLAPSED> {
    static constexpr void (*fn)(zsample_args, float *) =
        COLLAPSED ? zsample_butterfly_float_collapsed : zsample_butterfly_float_split;
};
template <bool COLLAPSED> struct butterfly_kernel<double, COLLAPSED> {
    static constexpr void (*fn)(zsample_args, double *) = zsample_butterfly_double<COLLAPSED>;
};

// θ given, one group a block with θ in shared memory: the kernel and its warps a block.
template <typename REAL> struct butterfly_staged_kernel;
template <> struct butterfly_staged_kernel<float> {
    static constexpr void (*fn)(zsample_args, zsample_fused) = zsample_butterfly_float_staged;
    static constexpr uint32_t warps = LDA_ZPLAN_STAGED_WARPS_FLOAT;
};
template <> struct butterfly_staged_kernel<double> {
    static constexpr void (*fn)(zsample_args, zsample_fused) = zsample_butterfly_double_staged;
    static constexpr uint32_t warps = LDA_ZPLAN_STAGED_WARPS_DOUBLE;
};

#endif
