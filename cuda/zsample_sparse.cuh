// zsample_sparse.cuh — the sparse z draw (--sampler sparse, θ collapsed) on the GPU: the
// split of core/sparse_draw.h (the CPU's draw, its reference), one warp a document. It
// searches every word's table of block-end prefix sums of α_k φ[w,k], built before it
// (sparse_table.cuh: the CPU's additions, so the tables are the CPU's to the bit).
//
// A document's counts are its list of topics and their counts in global memory
// (zsample_sparse_tables, count_lists.cuh: a slot's capacity, lda_sparse_list_capacity, is
// bounded by its tokens, so the lists grow with the corpus, not with D × K), which its warp
// alone writes. With φ formed from the counts, the long lists' compilation may read n[w,k] from
// the word's list (word_lists.cuh) at a run's first token instead of gathering it.
#ifndef LDA_ZSAMPLE_SPARSE_CUH
#define LDA_ZSAMPLE_SPARSE_CUH

#include "core/sparse_draw.h"
#include "count_lists.cuh"
#include "real.cuh"
#include "sparse_table.cuh" // sparse_mul, sparse_add: the CPU's rounding
#include "warp.cuh"
#include "word_lists.cuh"
#include "zsample.cuh"

__device__ __forceinline__ float below_real(float x)
{
    return lda_below_float(x);
}
__device__ __forceinline__ double below_real(double x)
{
    return lda_below_double(x);
}

// The inclusive prefix sum of v over the warp's lanes (Hillis–Steele with up-shuffles: the
// same additions in every run).
template <typename REAL> __device__ __forceinline__ REAL warp_inclusive_sum(REAL v, uint32_t lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        const REAL u = __shfl_up_sync(LDA_FULL_WARP, v, o);
        if (lane >= (uint32_t)o)
            v += u;
    }
    return v;
}

// A run of tokens of one word (core/sparse_draw.h, LDA_SPARSE_REUSE_AFTER): the lanes' sums of
// n[m,k] φ[w,k] need only the two entries that moved, the old topic's and the new one's, each
// moved by its lane. The long lists' compilation does this. Measured on the H100 in one run
// (collapsed, ms an iteration at K = 256, 1024, 4096, 10,000, wikimix): without it 1.73, 2.83,
// 6.80, 9.14; with it 1.74, 2.42, 4.65, 6.56. The short lists' compilation gains nothing from it
// (wiki43k's lists are short) and compiles to 48 registers instead of 40: wiki43k 1.51 against
// 1.38 ms at K = 256 (results/sparse/ab-session9-h100.txt).

// A lane's sum once one of its entries' counts went from c to c2: the entry's weight taken
// off and the new one added, each rounded as the full pass rounds it.
template <typename REAL> __device__ __forceinline__ REAL sparse_sum_moved(REAL sum, uint32_t c, uint32_t c2, REAL phi)
{
    return sparse_add(sparse_add(sum, -sparse_mul((REAL)c, phi)), sparse_mul((REAL)c2, phi));
}

// Where the draw's work goes (a developer's build: make NVFLAGS_EXTRA=-DLDA_DRAW_STATS): each
// warp counts in registers and adds its slot's totals once; draw_sparse prints and clears them
// after every launch. Without the macro the counts compile away.
enum draw_stat {
    DRAW_TOKENS,        // tokens drawn
    DRAW_AFRESH,        // ... whose document part was summed afresh (not carried along a run)
    DRAW_AFRESH_ENTRIES, // the list entries those sums walked
    DRAW_FROM_WORD_LIST, // afresh sums that read n[w,k] from the word's list
    DRAW_WORD_PART,     // tokens drawn from the word's part
    DRAW_SCAN_CHUNKS,   // chunks of 32 block ends a scan from the first block would have read
    DRAW_INSERTED,      // topics new to their document's list
    DRAW_STAT_COUNT
};
struct draw_stats {
#ifdef LDA_DRAW_STATS
    unsigned long long n[DRAW_STAT_COUNT] = {};
    __device__ void add(draw_stat i, unsigned long long v) { n[i] += v; }
    __device__ void flush(uint32_t lane) const;
#else
    __device__ void add(draw_stat, unsigned long long) {}
    __device__ void flush(uint32_t) const {}
#endif
};
#ifdef LDA_DRAW_STATS
__device__ unsigned long long lda_draw_stats[DRAW_STAT_COUNT];
__device__ void draw_stats::flush(uint32_t lane) const
{
    if (lane == 0)
        for (int i = 0; i < DRAW_STAT_COUNT; i++)
            atomicAdd(&lda_draw_stats[i], n[i]);
}
#endif

// The word part's block: the first b with tw < block_end[b] (blocks - 1 if none; every lane
// gets it). The block ends are prefix sums of non-negative terms, so they never decrease and
// the blocks that pass tw are a suffix. Up to 64 blocks (K <= 1024) the warp reads them 32 at
// a time from the first; beyond, it first reads the last block end of each of 32 equal
// segments, one load a lane, and then scans only the segment that holds the answer: two
// dependent loads where the scan from the first block read 10.3 chunks at K = 10,000 (10^9
// generated tokens, the draw's counts: LDA_DRAW_STATS below). The same block either way.
// Measured on the H100 in one run: wiki43k at K = 10^4 2.05 against 2.13 ms an iteration, wikimix
// the same (2.77), 10^9 tokens 1.077 against 1.085 s at iteration 45, where 1.1% of tokens
// draw from the word's part (results/scale/phi-written-1e9/).
template <typename REAL>
__device__ __forceinline__ uint32_t word_block_find_from(const REAL *block_end, uint32_t from, uint32_t end, REAL tw,
                                                         uint32_t lane, uint32_t none)
{
    for (uint32_t b0 = from; b0 < end; b0 += LDA_WARP) {
        const uint32_t hit = __ballot_sync(LDA_FULL_WARP, b0 + lane < end && tw < block_end[b0 + lane]);
        if (hit)
            return b0 + __ffs(hit) - 1;
    }
    return none;
}
template <typename REAL>
__device__ __forceinline__ uint32_t word_block_find(const REAL *block_end, uint32_t blocks, REAL tw, uint32_t lane)
{
    if (blocks <= 2 * LDA_WARP)
        return word_block_find_from(block_end, 0, blocks, tw, lane, blocks - 1);
    const uint32_t span = (blocks + LDA_WARP - 1) / LDA_WARP; // a segment's blocks
    const uint32_t last = (lane + 1) * span - 1 < blocks ? (lane + 1) * span - 1 : blocks - 1;
    const uint32_t passed = __ballot_sync(LDA_FULL_WARP, lane * span < blocks && tw < block_end[last]);
    if (!passed)
        return blocks - 1;
    const uint32_t seg = (uint32_t)__ffs(passed) - 1, from = seg * span;
    const uint32_t end = from + span < blocks ? from + span : blocks;
    return word_block_find_from(block_end, from, end, tw, lane, end - 1);
}

// One warp a document: warp w of a launch draws slot (w % 32) of the part's (w / 32)-th
// document group, its lanes sharing the work of each token. Its counts are its list
// (count_lists.cuh): the row's non-zero topics, increasing (the CPU's list), with their counts;
// each token's document part is each lane's sum over its own entries, a prefix sum over the
// lanes and, for a draw there, a prefix sum over the chosen lane's entries; the word part a
// ballot over the block ends, then a prefix sum of the 16 topics of the block.
// The sums are associated differently from the CPU's left-to-right ones, so the topics are
// the CPU's exactly where the sums are exact (integer weights), as for the other kernels.
// The token's old topic is taken from its count by the lane that holds its entry, as the lanes
// add; the new one is counted by lane 0 at the entry the draw found, or searched for (the word
// part) and inserted if missing. A topic whose count falls to zero stays listed until the
// slot is done, then the list is compacted: the CPU's list at the next pass.
//
// Its speed follows how it compiles, and no one compilation is best on both corpora: for long
// lists (LONG_LISTS, the plan's sparse_long_lists) the old topic's count is stored after the
// lanes' loop (58 registers then; 64 now, float, φ from the counts); for short ones inside it
// (40 then; 46 now). Measured on the H100 in one run (collapsed, ms an iteration at K = 256,
// 1024, 4096, 10,000): the long lists' form everywhere, wiki43k 1.60, 1.94, 3.20, 5.04,
// wikimix 1.98, 2.83, 6.78, 9.13; as the plan chooses, 1.39, 1.70, 3.06, 4.82 and 1.72, 2.83,
// 6.76, 9.14. The short lists' form everywhere took 3.99 on wikimix at 1024 (another run).
// Holding either to fewer registers, or fewer warps resident, was slower
// (results/sparse/ab-session8-h100.txt). Time wikimix after any change here.
template <typename REAL, bool FROM_COUNTS, bool LONG_LISTS>
__device__ __forceinline__ void sparse_draw_slot(const zsample_args &a, const zsample_sparse_tables &t,
                                                 const phi_source<FROM_COUNTS, LONG_LISTS> &phi, size_t q, uint32_t r,
                                                 uint32_t lane)
{
    const size_t s = q * LDA_WARP + r;
    const uint32_t len = a.slot_len[s], K = a.K, blocks = lda_sparse_blocks(K);
    if (len == 0)
        return;
    constexpr bool REUSE = LONG_LISTS; // sums carried along a run (LDA_SPARSE_REUSE_AFTER)
    // n[w,k] read from the word lists at a run's first token (the plan's, with φ from the counts)
    const bool WORD_LISTS = FROM_COUNTS && LONG_LISTS && t.words.len;
    const count_lists list = sparse_count_lists(t);
    uint32_t *topics = t.lists + t.list_offset[s], *counts = t.counts + t.list_offset[s];
    const REAL *table = (const REAL *)t.table;
    uint32_t m = t.list_len[s];
    const size_t base = a.warp_offset[q] + r;
    REAL mine = 0;                 // this lane's sum over its entries, for word `summed`
    uint32_t summed = UINT32_MAX;  // the word the lanes' sums stand for (none: UINT32_MAX)
    const uint64_t token_base = a.slot_token_base[s];
    // Token (i & ~31) + lane's word, old topic, random bits and word part's total: each lane
    // reads or forms one of the next 32 tokens' and the token takes its lane's. Philox's ten
    // rounds are a hundred instructions, which the warp issued for every token; the loads began
    // each token's chain of dependent loads. Measured on the H100, each step in one run (collapsed,
    // ms an iteration): the bits, wiki43k K = 1024 1.54 -> 1.36, wikimix 2.39 -> 2.32; the loads,
    // wikimix 2.31 -> 2.15 (results/sparse/ab-session11-h100.txt).
    uint32_t lane_word = 0, lane_old = 0, lane_bits = 0;
    REAL lane_dense = 0;
    // The topic and φ[w,k] of this lane's last entry in the token's pass: on a list of up to 32
    // topics its only one, which the draw takes where it picks this lane (below).
    uint32_t lane_topic = UINT32_MAX;
    REAL lane_phi = 0;
    draw_stats stats;
    for (uint32_t i = 0; i < len; i++) {
        stats.add(DRAW_TOKENS, 1);
        const size_t pos = base + (size_t)i * LDA_WARP;
        if (i % LDA_WARP == 0 && i + lane < len) {
            const size_t at = base + (size_t)(i + lane) * LDA_WARP;
            lane_word = a.words[at];
            lane_old = a.z[at];
            lane_bits = lda_rng_once(a.seed, LDA_RNG_Z, a.iteration, token_base + i + lane);
            lane_dense = table[(size_t)lane_word * blocks + blocks - 1];
        }
        const uint32_t w = __shfl_sync(LDA_FULL_WARP, lane_word, i % LDA_WARP);
        const uint32_t old = __shfl_sync(LDA_FULL_WARP, lane_old, i % LDA_WARP);
        const uint32_t bits = __shfl_sync(LDA_FULL_WARP, lane_bits, i % LDA_WARP);
        const REAL dense = __shfl_sync(LDA_FULL_WARP, lane_dense, i % LDA_WARP);
        const size_t row = (size_t)w * K; // φ[w, .]
        const REAL *block_end = table + (size_t)w * blocks;
        if (REUSE && w == summed && m > LDA_SPARSE_REUSE_AFTER) {
            // The previous token's word (a run, LDA_SPARSE_REUSE_AFTER): the lanes' sums stand
            // but for the old topic's count, which the lane that holds its entry takes off.
            // φ[w,old] is asked for before the search for its entry, so that its gather is in
            // flight during the search (every lane asks for the same word: one request).
            const REAL phi_old = (REAL)phi.at(row, old);
            const uint32_t j = count_list_find(topics, m, old, lane); // listed: it has a count
            if (lane == j % LDA_WARP) {
                const uint32_t c = counts[j];
                counts[j] = c - 1;
                mine = sparse_sum_moved(mine, c, c - 1, phi_old);
            }
        } else {
            // The lanes' order (sparse_draw.h): each lane adds its own entries, j ≡ lane (mod
            // 32), with no exchange inside the loop; one prefix sum over the lanes' totals
            // follows. The token leaves its topic: the lane that holds its entry counts it one
            // less. For long lists it writes that after the loop (a store inside it keeps the
            // loop's loads from running ahead of it); for short ones inside (the kernel
            // compiles to fewer registers, and more warps hide the latency instead).
            mine = 0;
            summed = w;
            stats.add(DRAW_AFRESH, 1);
            stats.add(DRAW_AFRESH_ENTRIES, m);
            // (not read past the lane's entries; without this store the short lists' kernel with φ
            // read compiled to 45 registers, not 40)
            lane_topic = UINT32_MAX;
            uint32_t old_at = UINT32_MAX, old_count = 0;
            // n[w,k] from the word's list where it is short beside the document's, and the
            // document's is sparse in K (zplan.h, LDA_ZPLAN_WORD_LIST_RATIO and _DOC_SHARE).
            // Measured on the H100 in one run (wikimix, collapsed, ms an iteration at K = 4096
            // and 10,000 after 30 iterations): gathered 4.58 and 6.10, from the lists 3.89 and
            // 4.96; the first 30 iterations 0.317 and 0.514 s against 0.272 and 0.427 s
            // (results/sparse/ab-session10-h100.txt).
            const uint32_t wlen = WORD_LISTS ? t.words.len[w] : WORD_LIST_OVERFLOW;
            if (WORD_LISTS && wlen != WORD_LIST_OVERFLOW && (uint64_t)wlen <= (uint64_t)t.word_list_ratio * m &&
                m <= t.word_list_doc_most) {
                // n[w,k] from the word's list, read in step with the document's (word_lists.cuh):
                // the same counts, the same additions in the same order
                stats.add(DRAW_FROM_WORD_LIST, 1);
                const uint32_t *wt = t.words.topics + t.words.offset[w], *wc = t.words.counts + t.words.offset[w];
                uint32_t p = 0;
                for (uint32_t j0 = 0; j0 < m; j0 += LDA_WARP) {
                    const uint32_t j = j0 + lane;
                    const bool listed = j < m;
                    const uint32_t k = listed ? topics[j] : UINT32_MAX;
                    uint32_t c = listed ? counts[j] : 0u;
                    if (k == old) {
                        old_at = j;
                        old_count = --c;
                    }
                    const uint32_t last = __shfl_sync(LDA_FULL_WARP, k, m - j0 < LDA_WARP ? m - j0 - 1 : LDA_WARP - 1);
                    const uint32_t n = word_list_count(wt, wc, wlen, p, k, last, lane);
                    if (listed) {
                        const REAL f = (REAL)phi.of_count(n, k);
                        mine = sparse_add(mine, sparse_mul((REAL)c, f));
                        lane_topic = k;
                        lane_phi = f;
                    }
                }
            } else {
                for (uint32_t j = lane; j < m; j += LDA_WARP) {
                    const uint32_t k = topics[j];
                    uint32_t c = counts[j];
                    if (k == old) {
                        --c;
                        if (LONG_LISTS) {
                            old_at = j;
                            old_count = c;
                        } else {
                            counts[j] = c;
                        }
                    }
                    const REAL f = (REAL)phi.at(row, k);
                    mine = sparse_add(mine, sparse_mul((REAL)c, f));
                    lane_topic = k;
                    lane_phi = f;
                }
            }
            if (LONG_LISTS && old_at != UINT32_MAX)
                counts[old_at] = old_count;
        }
        __syncwarp(); // the old topic's count before the search reads it
        const REAL upto = warp_inclusive_sum(mine, lane);
        const REAL sparse = __shfl_sync(LDA_FULL_WARP, upto, 31);
        const REAL target = scaled_target(sparse + dense, uniform_from_bits<REAL>(bits));
        uint32_t topic = 0, at = 0; // the topic drawn, and its entry
        REAL topic_phi = 0;         // REUSE: φ[w,topic] as the draw formed it, for the lane's carried sum
        bool inserted = false;      // ... new to the list, with its count of one
        const REAL before = __shfl_up_sync(LDA_FULL_WARP, upto, 1);
        bool in_document = target < sparse;
        if (in_document) {
            // the first lane whose running sum passes the target (one with weight: a lane of
            // none repeats the sum before it), then its entries' running sums from the sum
            // before it; where rounding leaves them short of the target, its last weighted entry
            const uint32_t lanes = __ballot_sync(LDA_FULL_WARP, mine > (REAL)0 && target < upto);
            const uint32_t L = lanes ? (uint32_t)__ffs(lanes) - 1
                                     : 31u - __clz(__ballot_sync(LDA_FULL_WARP, mine > (REAL)0));
            REAL carry = L ? __shfl_sync(LDA_FULL_WARP, before, L) : (REAL)0;
            bool found = false, any = false;
            if (m <= LDA_WARP) {
                // Each lane holds at most one entry, its sum formed afresh at this token (sums are
                // carried only on lists longer than LDA_SPARSE_REUSE_AFTER): the search below
                // would look at lane L's one entry alone and take it, hit or not, so its topic and
                // φ are taken from the lane's pass, not read and gathered again. With the drawn
                // topic's φ passed on below (not gathered again for the carried sum) and φ[w,old]
                // asked for early, measured on the H100 in one run, two rounds (collapsed, ms an
                // iteration at K = 256 / 1024 / 4096 / 10,000): wiki43k 1.10 / 1.31 / 2.26 / 2.96
                // -> 1.06 / 1.31 / 2.32 / 2.95, wikimix 1.45 / 2.12 / 3.37 / 3.86 -> 1.46 / 2.04 /
                // 3.28 / 3.76; the model the same to the bit (results/sparse/ab-session13-h100.txt).
                topic = __shfl_sync(LDA_FULL_WARP, lane_topic, L);
                if (REUSE)
                    topic_phi = __shfl_sync(LDA_FULL_WARP, lane_phi, L);
                at = L;
                found = any = true;
            }
            for (uint32_t j0 = L; j0 < m && !found; j0 += LDA_WARP * LDA_WARP) {
                const uint32_t j = j0 + lane * LDA_WARP, k = j < m ? topics[j] : 0;
                const REAL f = j < m ? (REAL)phi.at(row, k) : (REAL)0;
                const REAL weight = j < m ? sparse_mul((REAL)counts[j], f) : (REAL)0;
                const REAL v = carry + warp_inclusive_sum(weight, lane);
                const uint32_t hit = __ballot_sync(LDA_FULL_WARP, weight > (REAL)0 && target < v);
                const uint32_t weighted = __ballot_sync(LDA_FULL_WARP, weight > (REAL)0);
                if (hit || weighted) {
                    const uint32_t from = hit ? (uint32_t)__ffs(hit) - 1 : 31 - __clz(weighted);
                    topic = __shfl_sync(LDA_FULL_WARP, k, from);
                    if (REUSE)
                        topic_phi = __shfl_sync(LDA_FULL_WARP, f, from);
                    at = __shfl_sync(LDA_FULL_WARP, j, from);
                    found = hit != 0;
                    any = true;
                }
                carry = __shfl_sync(LDA_FULL_WARP, v, 31);
            }
            // A lane's sum carried along a run (LDA_SPARSE_REUSE_AFTER) may keep a rounding's
            // residue once its entries' weights are all zero; a target there draws from the
            // word's part. (A sum formed afresh is positive only with a weighted entry.)
            if (REUSE && !any) in_document = false;
        }
        if (!in_document) {
            REAL tw = REUSE && target < sparse ? (REAL)0 : target - sparse; // kept strictly below Q: rounding may reach it
            if (!(tw < dense))
                tw = below_real(dense);
            const uint32_t b = word_block_find(block_end, blocks, tw, lane);
            stats.add(DRAW_WORD_PART, 1);
            stats.add(DRAW_SCAN_CHUNKS, b / LDA_WARP + 1);
            const uint32_t k0 = b * LDA_SPARSE_BLOCK, k = k0 + lane;
            const bool in_block = lane < LDA_SPARSE_BLOCK && k < K;
            const REAL f = in_block ? (REAL)phi.at(row, k) : (REAL)0;
            const REAL v = (b ? block_end[b - 1] : (REAL)0) +
                           warp_inclusive_sum(in_block ? (REAL)a.alpha[k] * f : (REAL)0, lane);
            const uint32_t hit = __ballot_sync(LDA_FULL_WARP, in_block && tw < v);
            const uint32_t last = (K - k0 < LDA_SPARSE_BLOCK ? K - k0 : LDA_SPARSE_BLOCK) - 1;
            const uint32_t drawn = hit ? (uint32_t)__ffs(hit) - 1 : last;
            topic = k0 + drawn;
            if (REUSE)
                topic_phi = __shfl_sync(LDA_FULL_WARP, f, drawn);
            at = count_list_find(topics, m, topic, lane);
            if (at == m || topics[at] != topic) { // a topic the document has not listed
                count_list_insert(list, s, m, at, topic, lane);
                m++;
                stats.add(DRAW_INSERTED, 1);
                inserted = true;
                summed = UINT32_MAX; // the entries after it moved to the next lane
            }
        }
        if (lane == 0) // changed, and marked (zsample_sparse_tables): the count update's z_prev
            a.z[pos] = t.z_marks_changes && topic != old ? topic | (old + 1) << 16 : topic;
        if (!inserted && lane == (REUSE ? at % LDA_WARP : 0)) { // its entry's lane: its count, and its sum
            const uint32_t c = counts[at];
            counts[at] = c + 1;
            if (REUSE)
                mine = sparse_sum_moved(mine, c, c + 1, topic_phi);
        }
        __syncwarp(); // this token's writes before the next token's reads
    }
    count_list_compact(list, s, m, lane);
    stats.flush(lane);
}

// Warp v of the part's draws (v < slots_in_part) draws slot (v % 32) of the part's (v / 32)-th
// document group. The launch has a warp a slot, so each warp takes one turn; fewer warps
// looping over the slots were tried (8 to 32 a multiprocessor, H100): slower on wiki43k at
// every K, and on wikimix but at K >= 4096, so the launch keeps the warp a slot.
template <typename REAL, bool FROM_COUNTS, bool LONG_LISTS>
__device__ __forceinline__ void sparse_draw_part(const zsample_args &a, const zsample_sparse_tables &t,
                                                 size_t slots_in_part)
{
    const phi_source<FROM_COUNTS, LONG_LISTS> phi{a.phi, t.n_wk, t.phi_scale, t.beta};
    const size_t warps = ((size_t)gridDim.x * blockDim.x) / LDA_WARP;
    const uint32_t lane = threadIdx.x % LDA_WARP;
    for (size_t v = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / LDA_WARP; v < slots_in_part; v += warps) {
        const size_t q = (v / LDA_WARP) * a.part_count + a.part;
        if (q < a.num_warps)
            sparse_draw_slot<REAL, FROM_COUNTS, LONG_LISTS>(a, t, phi, q, (uint32_t)(v % LDA_WARP), lane);
    }
}

// The plan's two compilations (zplan.h, sparse_long_lists): the long lists' form is held to 64
// registers, 8 blocks of 128 threads an SM (under the bounds (128, 1) it took 64 until the word
// part's two-step search made it 66, and 7 blocks; when it took 58, under (128) alone, or none,
// it chose 40 or 48); the short lists' form takes 46 without bounds.
// Holding the short one to 40 (12 blocks an SM) was faster on wiki43k at K = 256 (1.04 against
// 1.07 ms) and slower at 4096 (2.44 against 2.32; results/sparse/ab-session13-h100.txt).
template <typename REAL, bool FROM_COUNTS>
__global__ void zsample_sparse_kernel(const zsample_args a, const zsample_sparse_tables t, size_t slots_in_part)
{
    sparse_draw_part<REAL, FROM_COUNTS, false>(a, t, slots_in_part);
}

template <typename REAL, bool FROM_COUNTS>
__global__ void __launch_bounds__(LDA_ZPLAN_PER_DOCUMENT_THREADS, 8)
    zsample_sparse_long_kernel(const zsample_args a, const zsample_sparse_tables t, size_t slots_in_part)
{
    sparse_draw_part<REAL, FROM_COUNTS, true>(a, t, slots_in_part);
}

#endif
