// device_state.cuh — everything the CUDA backend keeps on the GPU for one run.
// All iteration state stays here; the host only launches kernels and copies results back
// when asked (fetch). Arrays are in the layout's order (backend.h).
#ifndef LDA_DEVICE_STATE_CUH
#define LDA_DEVICE_STATE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/device_bytes.h" // struct cut_chunk, the arrays' sizes
#include "backend/layout.h"
#include "backend/optimize_priors.h"
#include "backend/word_changes.h"
#include "backend/zplan.h"
#include "core/params.h"
#include "core/phi_chunks.h"
#include "zsample.cuh"

// The count update by word (backend/word_changes.h; zplan.h's counts_by_word): each word's room
// in φ's words, offsets[w] .. offsets[w + 1], the changes filed there in this update (fill), and
// the chunks the adding kernel's blocks take. offsets NULL: the update by atomics on n[w,k].
struct word_changes {
    uint32_t *offsets, *fill;
    lda_word_chunk *chunks;
    size_t num_chunks;
    uint32_t chunk;
};

struct device_state {
    // corpus layout (read-only)
    uint32_t *words;
    size_t *warp_offset;
    uint32_t *warp_len;
    uint32_t *slot_len;
    uint32_t *slot_doc;
    uint32_t *slot_doc_len; // the whole document's tokens (θ's mean, the joint log-likelihood)
    uint32_t *slot_piece;   // 0: the piece that stands for its document where documents count once
    size_t *cut_offsets;    // cut documents' pieces (layout.h), num_cut_docs + 1
    uint32_t *cut_slots;
    uint32_t *cut_base;     // num_cut_docs × K: a cut document's counts when the z pass began
    uint32_t *cut_delta;    // num_cut_docs × K: their change in the pass (zero between joins)
    count_lists cut_lists;  // the sparse draw's cut_base, as lists (then cut_base, cut_delta are NULL)
    struct cut_chunk *cut_chunks; // the cut documents' pieces in chunks of at most LDA_JOIN_CHUNK
    size_t num_cut_chunks;
    uint64_t *slot_token_base;
    // model state
    float *theta; // num_slots × K; NULL for the θ-collapsed models (cuda_theta_rows)
    float *theta_chunk;       // θ-collapsed: room for theta_chunk_slots rows of θ, formed when read
    size_t theta_chunk_slots; // a multiple of 32
    float *phi;   // V × K
    uint32_t *z;  // num_positions
    uint32_t *z_prev; // z before the current draw, for the incremental count update; NULL where the
                      // draw marks a changed token's old topic in z itself (the plan's z_marks_changes)
    uint32_t *n_mk, *n_wk, *n_k; // n_wk, n_k: the totals, which φ, the histograms and the evaluation read
    // The sparse draw keeps n[m,k] as lists (sparse's, count_lists.cuh) and n_mk is NULL; what
    // reads rows of it reads them through cuda_doc_rows, formed into doc_window (doc_window_slots
    // rows, a multiple of 32).
    uint32_t *doc_window;
    size_t doc_window_slots;
    uint32_t *own_wk, *own_k;    // where the z passes count this backend's tokens: n_wk, n_k, but in a
                                 // shard, whose totals are every shard's (become_shard, backend.h)
    // A shard's pieces of the documents it shares with other shards (shards.h): piece i is slot
    // shared_slot[i], its document's row in the exchange shared_row[i]; own_docs, total_docs are
    // doc_rows × K, this shard's pieces' counts and every shard's.
    uint32_t *shared_slot, *shared_row;
    size_t num_shared_pieces, doc_rows;
    uint32_t *own_docs, *total_docs;
    word_changes changes;
    // work space
    void *scratch;         // z-sampler tables
    void *word_scratch;    // the tokens streamed: the sparse plan's word lists, apart (zsample_sparse_prepare)
    zsample_sparse_tables sparse; // the sparse plan's, carved from scratch (zsample.cuh)
    double *phi_partial;   // phi_chunks × K column sums of the Gamma variates
    double *phi_scale;     // K
    float *phi_mean_scale; // K: φ's mean's s_k (core/phi_mean.h)
    // the priors (core/priors.h), copied from the backend's at every change
    float *alpha_float;    // K: the θ-collapsed weights n[m,k] + α_k
    double *alpha, *lgamma_alpha; // K
    double alpha_sum, beta;
    // histograms for learning the priors (optimize_priors.h); allocated with --optimize-interval
    uint32_t *hist_doc, *hist_word; // K × LDA_HIST_CAP, LDA_HIST_CAP
    unsigned long long *hist_doc_over, *hist_over_count; // lists of large counts, and their lengths (2)
    uint32_t *hist_word_over;
    size_t hist_over_cap;
    double *partials;      // per-block partial sums for the log-likelihoods
    double *word_alpha;    // V: Σ_k α_k φ[w,k], the predictive term's from the lists (eval.cu); NULL without lists
    size_t partials_count;
    // sizes
    size_t num_slots, num_warps, num_positions, num_tokens, num_cut_docs;
    uint32_t V, K;
    cudaStream_t stream;
    cudaEvent_t ev_start, ev_updated;
    cudaEvent_t *ev_parts; // each of the --refresh parts' z draw begins and ends (2R events)
    uint32_t refresh;
    // θ is computed only when asked for (theta_stale says it is due) where nothing reads it while
    // training: the staged z kernel keeps the counts current itself and, with mean-for-mode,
    // forms θ from them too (the plan's fused_counts, fused_theta_mean).
    bool theta_stale;
    // The same for φ where the sparse draw forms it from the counts (the plan's
    // phi_from_counts): only the scales are updated, and φ is written when something reads it.
    bool phi_stale;
    // The z pass a chunk of warps at a time (stream_pass.cuh); NULL: the whole layout at once.
    struct stream_state *chunked;
    // The topic totals' check (topic_totals.cu): once a pass's counts settle, Σ_k n[k] in 64 bits
    // must be topic_tokens (the tokens counted); the device writes the sum into topic_sum (pinned
    // host memory, mapped). NULL: not checked (no topic can pass 2^32 - 1: cuda_topic_totals_setup).
    uint64_t topic_tokens;
    unsigned long long *topic_sum;
};


// Whether n[m,k] is kept as lists (the sparse draw's) rather than as the dense n_mk.
inline bool counts_are_lists(const device_state &s)
{
    return s.sparse.lists != NULL;
}

// Kernels launched by the backend (updates.cu, eval.cu); each returns -1 with err on failure.
int cuda_init_z(const device_state &s, uint64_t seed, uint32_t start_topics, lda_error *err); /* core/z_start.h */
int cuda_count(const device_state &s, lda_error *err);
// cuda_count's counting alone: s's tokens added to own_wk, own_k (and n_mk), its lists counted.
int cuda_count_add(const device_state &s, lda_error *err);
// Brings the counts from z_prev's to z's (z_prev NULL: from the old topics the draw marked in z,
// then cleared) by visiting only the tokens whose topic changed,
// in the document groups q with q mod part_count = part (θ collapsed: n[m,k] is already
// current, the z-sampler kept it).
int cuda_count_changes(const device_state &s, bool theta_collapsed, uint32_t part, uint32_t part_count,
                       lda_error *err);
// The count update by word: its rooms set up (word_changes.cu; its chunk needs K <=
// LDA_ZPLAN_COUNTS_BY_WORD_MOST_K), and each word's filed changes added to own_wk.
int cuda_word_changes_setup(device_state &s, const lda_word_changes_settings *settings, lda_error *err);
int cuda_word_changes_add(const device_state &s, lda_error *err);
// The chunks of the cut documents' pieces (malloc'ed; *count of them).
cut_chunk *cuda_cut_chunks(const lda_layout *L, size_t *count);

// The lists of n[m,k] (doc_counts.cu). Rows first .. first + count - 1 of n[m,k] on the device:
// n_mk's, or formed from the lists into doc_window (count at most cuda_doc_rows_at_once).
int cuda_doc_rows(const device_state &s, size_t first, size_t count, const uint32_t **rows, lda_error *err);
size_t cuda_doc_rows_at_once(const device_state &s);
// Lists first .. first + count - 1 of l from count dense rows of K, and back.
int cuda_lists_from_rows(const count_lists &l, const uint32_t *rows, size_t first, size_t count, uint32_t K,
                         cudaStream_t stream, lda_error *err);
int cuda_rows_from_lists(const count_lists &l, size_t first, size_t count, uint32_t K, uint32_t *rows,
                         cudaStream_t stream, lda_error *err);
// The lists counted from z, a window of slots at a time (cuda_count's part for lists).
int cuda_count_doc_lists(const device_state &s, lda_error *err);
// cuda_join_cut_counts for lists: every piece's list becomes its document's, through cut_lists.
int cuda_join_cut_lists(const device_state &s, bool from_scratch, lda_error *err);

// Brings the rows of every cut document's pieces in n[m,k] together (layout.h,
// lda_layout_join_cut_counts, its CPU reference): from_scratch after a recount (each row holds
// its piece's own tokens), else after a z pass (each row moved from cut_base by its piece).
int cuda_join_cut_counts(const device_state &s, bool from_scratch, lda_error *err);
int cuda_update_theta(const device_state &s, lda_update update, uint64_t seed, uint32_t iteration,
                      lda_error *err);
// Rows first .. first + count - 1 of θ on the device: s.theta's, or, for the θ-collapsed models,
// which keep no θ (their draws read n[m,k] + α; θ is the mean of the counts), formed into
// s.theta_chunk (count at most theta_chunk_slots). Either way the values of the mean update.
int cuda_theta_rows(const device_state &s, size_t first, size_t count, const float **rows, lda_error *err);
// The slots a call of cuda_theta_rows may ask for at once.
size_t cuda_theta_rows_at_once(const device_state &s);
int cuda_update_phi(const device_state &s, lda_update update, uint64_t seed, uint32_t iteration,
                    lda_error *err);
// φ's mean's scales alone, for a draw that forms φ from the counts.
int cuda_update_phi_mean_scale(const device_state &s, lda_error *err);

// The log-likelihoods' terms (eval_cpu.h), into host arrays: per warp, Σ log Σ_k θφ over the
// tokens of a layout with this state's slots (device arrays: this state's own, or another's);
// per warp, the joint's document terms; per vocabulary chunk, its word terms.
int cuda_loglik_terms(const device_state &s, const uint32_t *words, const size_t *warp_offset,
                      const uint32_t *warp_len, const uint32_t *slot_len, double *per_warp, lda_error *err);
int cuda_joint_doc_terms(const device_state &s, double *per_warp, lda_error *err);
int cuda_joint_word_terms(const device_state &s, double *per_chunk, lda_error *err);

// A shard's documents shared with other shards (shards.h; lda_shard_doc_sums and _spread are
// the CPU's): own_docs counted from z over its pieces of them, and the totals into every piece's row.
int cuda_shard_doc_sums(const device_state &s, lda_error *err);
int cuda_shard_doc_spread(const device_state &s, lda_error *err);
// The histograms of the current counts (optimize_priors.h: lda_count_hist_build is the CPU
// reference), lists sorted.
int cuda_count_histograms(const device_state &s, lda_count_hist *h, lda_error *err);
// The topic totals' check (topic_totals.cu): set up for a run of s's tokens (chunked: its z pass
// goes over chunks), where a topic could pass 2^32 - 1 tokens and wherever the pass is chunked;
// the sum of n[k] queued on s.stream once a pass's counts settle; and, once s.stream has reached
// it, checked: -1 with err (a run failure) naming the topic past 2^32 - 1.
int cuda_topic_totals_setup(device_state &s, bool chunked, lda_error *err);
int cuda_topic_totals_queue(const device_state &s, lda_error *err);
int cuda_topic_totals_verify(const device_state &s, lda_error *err);
// Its three steps, for states whose documents come a chunk at a time (stream_read.cu): zeroed;
// the documents' counts of s (a chunk's view) added; the words' counts, all to the host.
int cuda_hist_begin(const device_state &s, lda_error *err);
int cuda_hist_documents(const device_state &s, lda_error *err);
int cuda_hist_end(const device_state &s, lda_count_hist *h, lda_error *err);


#endif
