// zsample.cuh — what every z-sampling kernel receives, and the launcher table.
//
// The token layout is layout.h's: warps of 32 documents sorted by length, tokens
// interleaved so lane r's i-th word is at warp_offset[q] + i*32 + r. θ is num_slots × K
// row-major (a document's topics contiguous), φ is V × K (a word's topics contiguous).
// Each kernel writes z at the positions of real tokens only.
//
// Two kinds of document weights (zsample_args::theta_collapsed):
//  - θ given (uncollapsed, mean-for-mode): the weight of topic k in document m is θ[m,k];
//  - θ collapsed: it is n[m,k] + α_k, where n_mk holds the counts of the document's other
//    tokens: before drawing token i its current topic z[i] is removed from n_mk, after the
//    draw the new topic is added. One warp owns a document group, so this is exact; z
//    must hold the previous topics on entry. Token rows are then never split over warps.
#ifndef LDA_ZSAMPLE_CUH
#define LDA_ZSAMPLE_CUH

#include <stddef.h>
#include <stdint.h>

#include "backend/zplan.h"
#include "core/error.h"
#include "core/params.h"
#include "count_lists.cuh"
#include "word_lists.cuh"

struct zsample_args {
    const uint32_t *words;
    const size_t *warp_offset;
    const uint32_t *warp_len;
    const uint32_t *slot_len;
    const uint64_t *slot_token_base;
    union { // one or the other: the struct must stay within 128 bytes (below)
        const float *theta; // θ given: num_slots × K
        const float *alpha; // θ collapsed: K, the prior of each topic, added to its count
    };
    uint32_t *n_mk; // θ collapsed: document-topic counts, updated token by token
    int theta_collapsed;
    const float *phi;
    uint32_t *z;
    void *scratch; // per-thread tables, zsample_scratch_bytes() of them
    uint32_t K;
    uint16_t part, part_count; // --refresh (butterfly): only document groups q with q mod part_count = part; 0: all
    size_t num_slots;
    size_t num_warps;
    uint64_t seed;
    uint32_t iteration;
    uint32_t split; // warps sharing a document group's token rows (the plan's warps_per_group)
};

// Measured on the H100: one more field, making the struct 136 bytes instead of 128, made the
// butterfly z kernel 5x slower with the same instruction mix and memory requests (latency-
// bound: Nsight Compute shows 4x the L1TEX stall per instruction). The PTX differs only in
// taking the parameter's address; the cause below that was not pinned down. Keep it at 128.
static_assert(sizeof(zsample_args) <= 128, "zsample_args must stay within 128 bytes");

// What the staged butterfly kernel (one block a document group, θ staged in shared memory;
// zsample_butterfly.cuh) can do in the same pass besides drawing z, as the plan says. It is kept out of
// zsample_args (see above). Both leave the draws unchanged.
//  - theta_mean: θ staged is formed from n_mk as the mean update forms it, θ[m,k] =
//    (n[m,k] + α_k) / (len_m + Σα) in double (len_m: the whole document's, slot_doc_len), rounded to float (mean-for-mode): no θ update
//    kernel an iteration, and a.theta is not read.
//  - n_wk, n_k non-NULL: the counts n[m,k] (a.n_mk), n[w,k] and n[k] are brought from the
//    topics z held on entry to the ones drawn, token by token where they differ: no count
//    update kernel, and no copy of z to compare against.
struct zsample_fused {
    uint32_t *n_wk, *n_k;
    const uint32_t *slot_doc_len; // theta_mean: the whole document's tokens, the mean's denominator
    const double *alpha;          // theta_mean: K, the prior of each topic (learned); NULL: symmetric, ...
    double alpha_symmetric;       // ... this one for every topic
    double alpha_sum;             // theta_mean: Σ_k α_k
    int theta_mean;
};

// The sparse draw's tables (zsample_sparse.cuh), carved from the plan's scratch as
// lda_sparse_scratch_plan (backend/sampler_sparse.h) lays it out; the caller has written the
// list offsets. The word tables (sparse_table.cuh) are built by the launcher before each draw.
struct zsample_sparse_tables {
    void *table;                   // V × lda_sparse_blocks(K) REALs
    // The document–topic counts, kept sparse: slot s lists list_len[s] topics, increasing, at
    // lists[list_offset[s] ..], with their counts at counts[list_offset[s] ..] (doc_counts.cuh).
    const uint64_t *list_offset;   // num_slots + 1
    uint32_t *lists;
    uint32_t *counts;
    uint32_t *list_len;            // num_slots
    const uint32_t *slot_doc_len;  // a slot shorter than its document is a piece: its row lists its topics
    uint32_t V;
    lda_precision precision;       // the table's REAL
    // The plan's phi_from_counts: φ[w,k] formed from n[w,k] as read (core/phi_mean.h), not
    // read from a.phi. NULL n_wk: φ read.
    const uint32_t *n_wk;          // V × K
    const float *phi_scale;        // K: s_k
    float beta;
    // The plan's z_marks_changes: a changed token's z is written as topic | (old topic + 1) << 16,
    // which the count update (cuda_count_changes) reads in place of z_prev and clears. (Here, in
    // the room beside beta: at the struct's end it made the kernel's parameters 8 bytes longer.)
    bool z_marks_changes;
    // With phi_from_counts, the plan's word lists (zplan.h sparse_word_lists; word_lists.cuh),
    // written with the tables, read for a word whose list is at most word_list_ratio times the
    // document's, and the document's has at most word_list_doc_most topics; words.len NULL: none.
    word_lists words;
    uint32_t word_list_ratio, word_list_doc_most;
};
static_assert(sizeof(zsample_sparse_tables) == 120, "zsample_sparse_tables grew: see z_marks_changes");

// The slots' lists as count_lists (count_lists.cuh).
__host__ __device__ inline count_lists sparse_count_lists(const zsample_sparse_tables &t)
{
    return count_lists{t.list_offset, t.lists, t.counts, t.list_len};
}

// The tables of a sparse plan over `scratch` (its plan.scratch_bytes, on the device): writes
// the list offsets of L's slots there (synchronously) and fills `out`; slot_doc_len is the
// device's copy of L->slot_doc_len. Any other plan: `out` all empty. word_scratch non-NULL (the
// tokens streamed): scratch holds only the part before the slots' lists (lda_sparse_scratch's
// lists_at bytes), word_scratch the word lists' part (from word_offsets_at on), and the slots'
// lists are left NULL for each chunk's view to point at.
int zsample_sparse_prepare(const lda_zplan &plan, const lda_layout *L, void *scratch, void *word_scratch,
                           const uint32_t *slot_doc_len, zsample_sparse_tables *out, lda_error *err);

// Launches the kernel `plan` names (zplan.h: the plan made every choice and sized the
// scratch; a.split is taken from it) on `stream`; -1 with err on a launch failure. fused: what
// the staged kernel does besides drawing (used by the staged kernel only; its n_wk is NULL
// when the plan does not fuse the counts). sparse: the sparse kernel's tables (else unused).
int zsample_launch(const lda_zplan &plan, const zsample_args &a, const zsample_fused &fused,
                   const zsample_sparse_tables &sparse, cudaStream_t stream, lda_error *err);

// The sparse plan's two steps apart (zsample_launch runs both): the word tables from φ and α
// as they are now, and the draw of every document group of a.num_warps warps against tables
// built before. A chunked pass (stream_pass.cu) builds the tables once and draws a chunk of
// warps at a time, a's arrays pointed at the chunk.
int zsample_sparse_tables_launch(const lda_zplan &plan, const zsample_args &a, const zsample_sparse_tables &t,
                                 cudaStream_t stream, lda_error *err);
int zsample_sparse_draw_launch(const lda_zplan &plan, const zsample_args &a, const zsample_sparse_tables &t,
                               cudaStream_t stream, lda_error *err);

#endif
