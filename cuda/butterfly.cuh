// butterfly.cuh — the two building blocks of Steele & Tristan's Algorithm 7 that work on
// registers, shared by both butterfly samplers.
//
// butterfly_steps: Algorithm 8 lines 18-30 in the add-subtract variant. Lane r enters with
// a_reg[k] = the weight of document k (lane k) at topic j+r of a 32-topic block; after the
// log2(W) steps lane r's column of the butterfly-patterned table is in a_reg: a_reg[d] is
// table row d for d < W-1 (each row is final once written and never touched again), and
// a_reg[W-1] is the lane's own block total. `row(d, value)` is called as each row becomes
// final (the stored-table sampler writes it to memory; the register sampler ignores it).
//
// butterfly_search: Algorithm 10. `entry(d, mask)` is the table entry this lane holds in
// row d for the tree it serves at that step; each step passes it on with one
// __shfl_xor_sync by `flip` (errata 7: a different flip on each lane is legal) and either
// adds the node to lowValue or subtracts it from highValue, most significant bit first
// (errata 3). Returns the offset in the block. butterfly_search_registers is the case where
// every lane's column of the table it needs is in its registers (the table of "its" block,
// which may differ from lane to lane: entry (d, r) belongs to the lane whose tree it is part
// of, and was built from that lane's block).
#ifndef LDA_BUTTERFLY_CUH
#define LDA_BUTTERFLY_CUH

#include <stdint.h>

#include "warp.cuh"

#define BFLY_W 32u
#define BFLY_LOG_W 5u

template <typename REAL, typename RowFn>
__device__ __forceinline__ void butterfly_steps(REAL (&a_reg)[BFLY_W], uint32_t r, RowFn row)
{
#pragma unroll
    for (uint32_t b = 0; b < BFLY_LOG_W; b++) {
        const uint32_t bit = 1u << b;
#pragma unroll
        for (uint32_t i = 0; i < BFLY_W / (2 * bit); i++) {
            const uint32_t d = 2 * bit * i + (bit - 1);
            const REAL h = (r & bit) ? a_reg[d] : a_reg[d + bit];
            const REAL v = __shfl_xor_sync(LDA_FULL_WARP, h, bit);
            if (r & bit)
                a_reg[d] = a_reg[d + bit];
            a_reg[d + bit] = a_reg[d] + v;
            row(d, a_reg[d]);
        }
    }
}

template <typename REAL, typename EntryFn>
__device__ __forceinline__ uint32_t butterfly_search(uint32_t r, REAL target, REAL low, REAL high, EntryFn entry)
{
    uint32_t flip = 0;
#pragma unroll
    for (uint32_t b = 0; b < BFLY_LOG_W; b++) {
        const uint32_t bit = (BFLY_W / 2) >> b;
        const uint32_t mask = ((BFLY_W - 1) * (2 * bit)) & (BFLY_W - 1);
        REAL y = 0;
#pragma unroll
        for (uint32_t i = 0; i < BFLY_W / (2 * bit); i++) {
            const uint32_t d = (bit - 1) + 2 * bit * i;
            const REAL t = __shfl_xor_sync(LDA_FULL_WARP, (REAL)entry(d, mask), flip);
            if (((r ^ d) & mask) == 0)
                y = t;
        }
        const REAL compare = (r & bit) ? high - y : low + y;
        if (target < compare) {
            high = compare;
            flip ^= bit & r;
        } else {
            low = compare;
            flip ^= bit & ~r;
        }
    }
    return flip ^ r;
}

template <typename REAL>
__device__ __forceinline__ uint32_t butterfly_search_registers(const REAL (&table)[BFLY_W], uint32_t r, REAL target,
                                                               REAL low, REAL high)
{
    return butterfly_search(r, target, low, high, [&](uint32_t d, uint32_t) { return table[d]; });
}

#endif
