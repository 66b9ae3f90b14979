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
// idle on a corpus of 43K documents (shared/docs/perf-notes.md). With θ collapsed a
// document's tokens are drawn in order by its own lane (counts change token by token), so
// split is 1: lane r removes its token's old topic from n[m,·] before the row and adds the
// new one after; __syncwarp() makes both visible to the lanes that read them next.
#ifndef LDA_ZSAMPLE_BUTTERFLY_CUH
#define LDA_ZSAMPLE_BUTTERFLY_CUH

#include "butterfly.cuh"
#include "real.cuh"
#include "weights.cuh"
#include "zsample.cuh"

#define BUTTERFLY_WARPS_PER_BLOCK 4u

// Pass 1 over the remnant and every block; returns the total, leaves the remnant's total in
// *remnant_total and the running totals in totals[b * 32 + r].
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ REAL butterfly_block_totals(const zsample_args &a, uint32_t r, size_t m, size_t group_base,
                                                       uint32_t row_offset, REAL *totals, REAL *remnant_total)
{
    const uint32_t K = a.K, R = K % BFLY_W, blocks = K / BFLY_W;
    REAL sum = 0;
    for (uint32_t j = 0; j < R; j++)
        sum += doc_weight<REAL, COLLAPSED>(a, m * K + j) * (REAL)a.phi[row_offset + j];
    *remnant_total = sum;
    if (blocks == 0)
        return sum;
    uint32_t c_warp[BFLY_W]; // each lane's φ row offset (word * K), by shuffles
#pragma unroll
    for (uint32_t k = 0; k < BFLY_W; k++)
        c_warp[k] = __shfl_sync(BFLY_FULL, row_offset, k);
    for (uint32_t b = 0; b < blocks; b++) {
        const uint32_t j = R + b * BFLY_W + r;
        REAL a_reg[BFLY_W];
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++)
            a_reg[k] = doc_weight<REAL, COLLAPSED>(a, group_base + (size_t)k * K + j) * (REAL)a.phi[c_warp[k] + j];
        butterfly_steps(a_reg, r, [](uint32_t, REAL) {});
        sum += a_reg[BFLY_W - 1];
        totals[b * BFLY_W + r] = sum;
    }
    return sum;
}

// Pass 2 and Algorithms 9-10; returns the drawn topic.
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ uint32_t butterfly_draw(const zsample_args &a, uint32_t r, size_t m, size_t group_base,
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
            const uint32_t his_base = __shfl_sync(BFLY_FULL, block_base, k) + r;
            const uint32_t his_row = __shfl_sync(BFLY_FULL, row_offset, k);
            a_reg[k] = doc_weight<REAL, COLLAPSED>(a, group_base + (size_t)k * K + his_base) *
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
            sum += doc_weight<REAL, COLLAPSED>(a, m * K + j) * (REAL)a.phi[row_offset + j];
            if (target < sum) {
                topic = j;
                break;
            }
        }
    }
    return topic < K ? topic : K - 1; // never walk off the table
}

// totals: shared memory (totals_global == NULL) or, when K is too large for it, a global
// region per warp.
template <typename REAL, bool COLLAPSED>
__device__ __forceinline__ void butterfly_sample_rows(const zsample_args &a, REAL *totals_global)
{
    extern __shared__ __align__(16) unsigned char butterfly_smem[];
    const uint32_t r = threadIdx.x % BFLY_W, warp_in_block = threadIdx.x / BFLY_W;
    const size_t gw = blockIdx.x * (size_t)BUTTERFLY_WARPS_PER_BLOCK + warp_in_block;
    const uint32_t split = COLLAPSED ? 1 : a.split;
    const size_t q = gw / split * a.part_count + a.part; // the group, within this part (--refresh)
    if (q >= a.num_warps) // whole warps leave together
        return;
    const uint32_t first_row = (uint32_t)(gw % split);
    const uint32_t K = a.K, blocks = K / BFLY_W;
    REAL *totals = totals_global ? totals_global + gw * (size_t)blocks * BFLY_W
                                 : reinterpret_cast<REAL *>(butterfly_smem) + warp_in_block * blocks * BFLY_W;
    const size_t m = q * BFLY_W + r, group_base = q * BFLY_W * (size_t)K;
    const uint32_t len = a.slot_len[m], rows = a.warp_len[q];
    const uint32_t *warp_words = a.words + a.warp_offset[q];
    uint32_t *warp_z = a.z + a.warp_offset[q];
    const uint64_t first_token = a.slot_token_base[m];
    for (uint32_t row = first_row; row < rows; row += split) {
        const bool live = row < len; // a finished lane repeats its last word and writes nothing
        const uint32_t row_offset = warp_words[(size_t)row * BFLY_W + r] * K;
        if (COLLAPSED) {
            if (live)
                a.n_mk[m * K + warp_z[(size_t)row * BFLY_W + r]]--;
            __syncwarp();
        }
        REAL remnant_total;
        const REAL total = butterfly_block_totals<REAL, COLLAPSED>(a, r, m, group_base, row_offset, totals,
                                                                   &remnant_total);
        const uint32_t i = live ? row : (len ? len - 1 : 0);
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, first_token + i);
        const REAL target = scaled_target(total, uniform_from_bits<REAL>(bits));
        const uint32_t topic =
            butterfly_draw<REAL, COLLAPSED>(a, r, m, group_base, row_offset, totals, remnant_total, target);
        if (live)
            warp_z[(size_t)row * BFLY_W + r] = topic;
        if (COLLAPSED) {
            if (live)
                a.n_mk[m * K + topic]++;
            __syncwarp();
        }
    }
}

// The kernels. Register budgets differ (checked in the build's resource report: no stack
// frame, so a_reg and c_warp stay in registers): the float kernel with rows split over warps
// gets the compiler's default (168 registers, 3 blocks an SM: occupancy hides latency);
// with θ collapsed (one warp a group, few warps) and in double there is room for every load
// of a block in flight at once (2 blocks an SM).
static __global__ void __launch_bounds__(BUTTERFLY_WARPS_PER_BLOCK * 32) zsample_butterfly_float_split(zsample_args a,
                                                                                                float *totals)
{
    butterfly_sample_rows<float, false>(a, totals);
}

static __global__ void __launch_bounds__(BUTTERFLY_WARPS_PER_BLOCK * 32, 2) zsample_butterfly_float_collapsed(zsample_args a,
                                                                                                     float *totals)
{
    butterfly_sample_rows<float, true>(a, totals);
}

template <bool COLLAPSED>
__global__ void __launch_bounds__(BUTTERFLY_WARPS_PER_BLOCK * 32, 2) zsample_butterfly_double(zsample_args a,
                                                                                             double *totals)
{
    butterfly_sample_rows<double, COLLAPSED>(a, totals);
}

template <typename REAL, bool COLLAPSED> struct butterfly_kernel;
template <bool COLLAPSED> struct butterfly_kernel<float, COLLAPSED> {
    static constexpr void (*fn)(zsample_args, float *) =
        COLLAPSED ? zsample_butterfly_float_collapsed : zsample_butterfly_float_split;
};
template <bool COLLAPSED> struct butterfly_kernel<double, COLLAPSED> {
    static constexpr void (*fn)(zsample_args, double *) = zsample_butterfly_double<COLLAPSED>;
};

#endif
