// word_lists.cuh — the collapsed model's word–topic counts n[w,k] as lists, for the sparse
// draw's long lists (zplan.h, LDA_ZPLAN_WORD_LIST_RATIO): each word's non-zero counts, topics
// increasing, written by the word tables' kernel (sparse_table.cuh) as it reads n[w,k]: each
// lane its own word's, in order of k.
//
// Why: at the first token of a run of one word the draw weighs every topic of the document's
// list by φ[w,k], formed from n[w,k]. Gathered from the V × K counts, each 4-byte count costs a
// 32-byte sector from memory (Nsight Compute, wikimix at K = 4096: 90% of the long lists'
// kernel's stalls). A word's list is read in step with the document's, 32 entries a load, both
// increasing; all the lists together hold at most one entry a token, so they stay in L2.
// The counts read are the same numbers, so the draw's sums are the same bits.
#ifndef LDA_WORD_LISTS_CUH
#define LDA_WORD_LISTS_CUH

#include <stdint.h>

#include "warp.cuh"

// Word w lists len[w] topics at topics[offset[w] ..], their counts at counts[offset[w] ..], with
// room to offset[w + 1]; a word whose non-zero counts outnumber its room (counts that are not
// its corpus's: a shard's, the tests') has WORD_LIST_OVERFLOW, and the draw gathers instead.
struct word_lists {
    const uint64_t *offset; // V + 1
    uint32_t *topics, *counts;
    uint32_t *len; // V; NULL: no word lists
};

#define WORD_LIST_OVERFLOW UINT32_MAX

// n[w,k] for each lane's topic k of a chunk of a document's list (topics increasing over the
// lanes; `listed` lanes hold one, the chunk's last `last`), from word w's list (its topics wt,
// counts wc, wlen entries) from entry *p on; *p moves past the entries up to `last`, so the next
// chunk starts there. Each load is 32 entries; each lane finds its topic among them by a
// binary search over the lanes.
__device__ __forceinline__ uint32_t word_list_count(const uint32_t *wt, const uint32_t *wc, uint32_t wlen, uint32_t &p,
                                                    uint32_t k, uint32_t last, uint32_t lane)
{
    uint32_t n = 0;
    while (p < wlen) {
        const uint32_t at = p + lane;
        const bool in = at < wlen;
        const uint32_t wk = in ? wt[at] : UINT32_MAX, wn = in ? wc[at] : 0u;
        uint32_t lo = 0; // the lanes' topics below k, at most 31
#pragma unroll
        for (uint32_t step = LDA_WARP / 2; step; step >>= 1)
            if (__shfl_sync(LDA_FULL_WARP, wk, lo + step - 1) < k)
                lo += step;
        const uint32_t found = __shfl_sync(LDA_FULL_WARP, wk, lo), count = __shfl_sync(LDA_FULL_WARP, wn, lo);
        if (found == k)
            n = count;
        const uint32_t passed = __popc(__ballot_sync(LDA_FULL_WARP, wk <= last));
        p += passed;
        if (passed < LDA_WARP)
            break; // the list went past the chunk (or ended)
    }
    return n;
}

#endif
