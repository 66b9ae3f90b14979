// zsample_butterfly_stored.cuh — Algorithm 7 of Steele & Tristan (000_e24edcbece0b8c44.txt) as
// published (--sampler butterfly-stored): the whole butterfly-patterned partial-sums table is
// written to per-thread memory, then searched with the block and butterfly searches.
//
// One document per thread, 32 documents of similar length per warp (layout.h). Per warp:
//  - Algorithm 5: θ is cached per thread in θ_local, loaded with transposed, coalesced
//    reads: for a block of topics j..j+31, lane r fetches θ[doc k of the warp, topic j+r]
//    for k = 0..31 and keeps it at θ_local[j+k]. The remnant (K mod 32 topics, at the
//    front) is cached untransposed.
//  - The master-index loop (Algorithm 4): all lanes step through token rows together up to
//    the warp's longest document; a finished lane re-reads its last word (the layout
//    repeats it) and writes nothing, so every shuffle has all 32 lanes (errata 6).
//  - Algorithm 8: c_warp[k] = the word of lane k, by shuffles. For each block, lane r
//    computes a_reg[k] = θ_local[j+k] · φ[c_warp[k], j+r] (document k's weight of topic
//    j+r; the 32 lanes read one φ row contiguously), then 5 butterfly steps in the
//    add-subtract variant (the paper's faster one) turn a_reg into the block's butterfly
//    table, stored in the thread's p'. Row j+31 of every block holds the running total
//    from topic 0 (errata 1: p'[j+W-1], not p'[W-1]).
//  - Algorithm 9: u' = u·total; a binary search over the blocks' last rows picks a block;
//    Algorithm 10 searches inside it: each step fetches the needed tree node from the lane
//    that holds it (__shfl_sync of the block base, __shfl_xor_sync by `flip`) and either
//    adds it to lowValue or subtracts it from highValue; the remnant is searched linearly
//    when u' falls below it. K < 32 has no blocks and only the linear search runs.
// a_reg and c_warp are register arrays: every index into them is a compile-time constant
// after unrolling (check the build's resource report: no stack frame).
//
// θ_local and p' are per-thread arrays of K entries. CUDA local arrays need a size known
// at compile time, so they live in global scratch, interleaved by thread exactly as local
// memory is: entry k of thread m is at [k * num_slots + m], which keeps the per-k accesses
// of a warp coalesced.
#ifndef LDA_ZSAMPLE_BUTTERFLY_STORED_CUH
#define LDA_ZSAMPLE_BUTTERFLY_STORED_CUH

#include "butterfly.cuh"
#include "real.cuh"
#include "theta_cache.cuh"
#include "zsample.cuh"

// Algorithm 8: the butterfly-patterned table of one token row; returns the total.
// c_warp holds each lane's φ row offset (word·K, 32-bit: the backend refuses V·K >= 2^32)
// rather than the word itself, which saves a multiply per load and half the registers
// 64-bit row pointers would take.
template <typename REAL>
__device__ __forceinline__ REAL stored_table(const zsample_args &a, uint32_t r, uint32_t word,
                                                const float *theta_local, REAL *pt, size_t T)
{
    const uint32_t K = a.K, R = K % BFLY_W;
    const uint32_t row_offset = word * K;
    uint32_t c_warp[BFLY_W];
#pragma unroll
    for (uint32_t k = 0; k < BFLY_W; k++)
        c_warp[k] = __shfl_sync(LDA_FULL_WARP, row_offset, k);

    REAL sum = 0;
    const float *phi_word = a.phi + row_offset;
    for (uint32_t j = 0; j < R; j++) { // the remnant, untransposed
        sum += (REAL)theta_local[j * T] * (REAL)phi_word[j];
        pt[j * T] = sum;
    }
    for (uint32_t j = R; j < K; j += BFLY_W) {
        const float *phi_block = a.phi + j + r;
        const float *theta_block = theta_local + (size_t)j * T;
        REAL *pt_block = pt + (size_t)j * T;
        REAL a_reg[BFLY_W];
#pragma unroll
        for (uint32_t k = 0; k < BFLY_W; k++) // transposed access to φ
            a_reg[k] = (REAL)theta_block[k * T] * (REAL)phi_block[c_warp[k]];
        butterfly_steps(a_reg, r, [&](uint32_t d, REAL value) { pt_block[d * T] = value; });
        sum += a_reg[BFLY_W - 1];
        pt_block[(BFLY_W - 1) * T] = sum;
    }
    return sum;
}

// Algorithms 9 and 10: the index drawn for target u' (< total) from the table.
template <typename REAL>
__device__ __forceinline__ uint32_t stored_search(uint32_t K, uint32_t r, REAL target, const REAL *pt, size_t T)
{
    const uint32_t R = K % BFLY_W;
    // Algorithm 9: binary search over the last row of each block.
    int lo = 0, hi = (int)(K / BFLY_W) - 1;
    const uint32_t search_base = R + (BFLY_W - 1);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (target < pt[(size_t)(mid * BFLY_W + search_base) * T])
            hi = mid;
        else
            lo = mid + 1;
    }
    const uint32_t block_base = R + (uint32_t)lo * BFLY_W;
    uint32_t result = K - 1;
    if (K >= BFLY_W) { // every lane joins: the shuffles need all 32
        REAL low = block_base > 0 ? pt[(size_t)(block_base - 1) * T] : (REAL)0;
        REAL high = pt[(size_t)(block_base + BFLY_W - 1) * T];
        // Algorithm 10: the node of row d this lane serves lies in the block lane `him` chose.
        result = block_base + butterfly_search(r, target, low, high, [&](uint32_t d, uint32_t mask) {
                     const uint32_t him = (d & mask) + (r & ~mask);
                     return pt[(size_t)(__shfl_sync(LDA_FULL_WARP, block_base, him) + d) * T];
                 });
    }
    if (block_base > 0 && target < pt[(size_t)(block_base - 1) * T]) { // in the remnant after all
        for (uint32_t i = 0; i < R; i++)
            if (target < pt[(size_t)i * T]) {
                result = i;
                break;
            }
    }
    return result < K ? result : K - 1; // never walk off the table
}

template <typename REAL>
__global__ void __launch_bounds__(128) zsample_butterfly_stored_kernel(zsample_args a)
{
    const size_t m = blockIdx.x * (size_t)blockDim.x + threadIdx.x; // document slot
    const size_t q = m / BFLY_W;
    if (q >= a.num_warps) // whole warps leave together
        return;
    const uint32_t r = threadIdx.x % BFLY_W;
    const size_t T = a.num_slots;
    float *theta_local = static_cast<float *>(a.scratch) + m;
    REAL *pt = reinterpret_cast<REAL *>(static_cast<float *>(a.scratch) + (size_t)a.K * T) + m;

    cache_theta_transposed(a, q, r, theta_local, T);

    const uint32_t len = a.slot_len[m];
    const uint32_t rows = a.warp_len[q];
    const uint32_t *warp_words = a.words + a.warp_offset[q];
    uint32_t *warp_z = a.z + a.warp_offset[q];
    const uint64_t first_token = a.slot_token_base[m];
    for (uint32_t row = 0; row < rows; row++) { // the master index
        const uint32_t word = warp_words[(size_t)row * BFLY_W + r];
        const REAL total = stored_table<REAL>(a, r, word, theta_local, pt, T);
        const uint32_t i = row < len ? row : (len ? len - 1 : 0);
        const uint32_t bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, first_token + i);
        const REAL target = scaled_target(total, uniform_from_bits<REAL>(bits));
        const uint32_t topic = stored_search<REAL>(a.K, r, target, pt, T);
        if (row < len)
            warp_z[(size_t)row * BFLY_W + r] = topic;
    }
}

#endif
