// count_lists.cuh — rows of counts kept sparse on the device: the sparse draw's document–topic
// counts n[m,k] (one list a slot) and its cut documents' counts when a pass began (one a cut
// document), so that device memory grows with the tokens, not with D × K.
//
// Row r lists len[r] topics, increasing, at topics[offset[r] ..], their counts at
// counts[offset[r] ..], with room to offset[r + 1]. Between z passes no listed count is zero:
// a list is the row's non-zero topics, in the order the CPU's draw lists them
// (core/sparse_draw.h), so the GPU's lanes' order is the CPU's.
//
// What reads dense rows (θ, the joint log-likelihood, the priors' histograms, fetch) gets a
// window of them formed from the lists (doc_counts.cu, cuda_doc_rows).
#ifndef LDA_COUNT_LISTS_CUH
#define LDA_COUNT_LISTS_CUH

#include <stdint.h>

#include "backend/layout.h" // LDA_WARP
#include "warp.cuh"

struct count_lists {
    const uint64_t *offset;
    uint32_t *topics, *counts, *len;
};

// Chunks of 32 counts a lane loads before the warp lists any of them: one warp a row (the cut
// documents' joins, a few hundred rows) otherwise waits on one load at a time, K / 32 of them.
#define COUNT_LIST_LOADS_AHEAD 8u

// The warp writes the non-zero entries of a dense row of K counts as list r; returns its
// length (in every lane). The list's room must hold them.
__device__ __forceinline__ uint32_t count_list_from_row(const uint32_t *row, uint32_t K, const count_lists &l,
                                                        size_t r, uint32_t lane)
{
    const uint64_t at = l.offset[r];
    const uint32_t below = (1u << lane) - 1u;
    uint32_t m = 0;
    for (uint32_t k0 = 0; k0 < K; k0 += LDA_WARP * COUNT_LIST_LOADS_AHEAD) {
        uint32_t c[COUNT_LIST_LOADS_AHEAD];
#pragma unroll
        for (uint32_t u = 0; u < COUNT_LIST_LOADS_AHEAD; u++) {
            const uint32_t k = k0 + u * LDA_WARP + lane;
            c[u] = k < K ? row[k] : 0u;
        }
#pragma unroll
        for (uint32_t u = 0; u < COUNT_LIST_LOADS_AHEAD; u++) {
            const uint32_t mask = __ballot_sync(LDA_FULL_WARP, c[u] != 0);
            if (c[u]) {
                const uint64_t i = at + m + __popc(mask & below);
                l.topics[i] = k0 + u * LDA_WARP + lane;
                l.counts[i] = c[u];
            }
            m += __popc(mask);
        }
    }
    if (lane == 0)
        l.len[r] = m;
    return m;
}

// The warp writes list r as a dense row of K counts.
__device__ __forceinline__ void count_list_to_row(const count_lists &l, size_t r, uint32_t K, uint32_t *row,
                                                  uint32_t lane)
{
    for (uint32_t k = lane; k < K; k += LDA_WARP)
        row[k] = 0;
    __syncwarp(); // the zeros before the counts
    const uint64_t at = l.offset[r];
    const uint32_t m = l.len[r];
    for (uint32_t j = lane; j < m; j += LDA_WARP)
        row[l.topics[at + j]] = l.counts[at + j];
}

// The warp copies list r of `from` into list d of `to` (whose room holds it).
__device__ __forceinline__ void count_list_copy(const count_lists &from, size_t r, const count_lists &to, size_t d,
                                                uint32_t lane)
{
    const uint32_t m = from.len[r];
    const uint64_t src = from.offset[r], at = to.offset[d];
    for (uint32_t j = lane; j < m; j += LDA_WARP) {
        to.topics[at + j] = from.topics[src + j];
        to.counts[at + j] = from.counts[src + j];
    }
    if (lane == 0)
        to.len[d] = m;
}

// The warp drops list r's entries of count zero, keeping the order (a draw leaves them where a
// topic's count fell to zero); returns the new length.
__device__ __forceinline__ uint32_t count_list_compact(const count_lists &l, size_t r, uint32_t m, uint32_t lane)
{
    const uint64_t at = l.offset[r];
    const uint32_t below = (1u << lane) - 1u;
    uint32_t out = 0;
    for (uint32_t j0 = 0; j0 < m; j0 += LDA_WARP) {
        const uint32_t j = j0 + lane;
        const uint32_t k = j < m ? l.topics[at + j] : 0u, c = j < m ? l.counts[at + j] : 0u;
        const uint32_t mask = __ballot_sync(LDA_FULL_WARP, c != 0);
        __syncwarp(); // the chunk read before any lane writes over it
        if (c) { // to an entry at or before j: read already, by this chunk or an earlier one
            l.topics[at + out + __popc(mask & below)] = k;
            l.counts[at + out + __popc(mask & below)] = c;
        }
        out += __popc(mask);
        __syncwarp();
    }
    if (lane == 0)
        l.len[r] = out;
    return out;
}

// Where topic stands in list r of m entries, increasing: the first entry not below it (m if
// none), by a 32-way search of the warp (every lane gets it).
__device__ __forceinline__ uint32_t count_list_find(const uint32_t *topics, uint32_t m, uint32_t topic,
                                                    uint32_t lane)
{
    uint32_t lo = 0, hi = m; // the answer is in [lo, hi]
    while (hi - lo > LDA_WARP) {
        const uint32_t step = (hi - lo + LDA_WARP - 1) / LDA_WARP, probe = lo + lane * step;
        const uint32_t c = __popc(__ballot_sync(LDA_FULL_WARP, probe < hi && topics[probe] < topic));
        if (c == 0)
            return lo;
        const uint32_t next_hi = lo + c * step; // probe c, if there is one, is not below the topic
        lo += (c - 1) * step + 1;               // probe c - 1 is below it
        if (next_hi < hi)
            hi = next_hi;
    }
    const uint32_t j = lo + lane;
    return lo + __popc(__ballot_sync(LDA_FULL_WARP, j < hi && topics[j] < topic));
}

// Inserts topic with count 1 at position p of list r (m entries): the warp moves the entries
// from p up by one, last chunk first.
__device__ __forceinline__ void count_list_insert(const count_lists &l, size_t r, uint32_t m, uint32_t p,
                                                  uint32_t topic, uint32_t lane)
{
    uint32_t *topics = l.topics + l.offset[r], *counts = l.counts + l.offset[r];
    for (uint32_t end = m; end > p;) {
        const uint32_t start = end - p > LDA_WARP ? end - LDA_WARP : p, j = start + lane;
        const bool mine = j < end;
        const uint32_t k = mine ? topics[j] : 0u, c = mine ? counts[j] : 0u;
        __syncwarp(); // this chunk read before any lane writes over it
        if (mine) {
            topics[j + 1] = k;
            counts[j + 1] = c;
        }
        __syncwarp();
        end = start;
    }
    if (lane == 0) {
        topics[p] = topic;
        counts[p] = 1;
    }
}

#endif
