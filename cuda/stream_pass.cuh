// stream_pass.cuh — the collapsed sparse draw's z pass a chunk of warps at a time
// (backend/stream_plan.h; docs/scale.md, "Tokens streamed from host memory"): the word tables built once, then each
// chunk's cut pieces given their document's list, its draw, its count changes and its part of
// the cut documents' join; the totals n[w,k], n[k] the draws read stay as the pass began, the
// changes going to own_wk, own_k, copied over them when the pass ends. The chunks' tokens and
// lists are either the device's own arrays (a chunk is a view of them) or, streamed, copied in
// from pinned host memory into one of three buffers and back, on streams of their own.
#ifndef LDA_STREAM_PASS_CUH
#define LDA_STREAM_PASS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/stream_plan.h"
#include "device_state.cuh"

// A chunk of the layout's warps: its positions, slots and list entries, and its cut documents'
// rows (j) and pieces (p) in the chunks' concatenated arrays (stream_state).
struct stream_chunk {
    size_t w0, w1;  // warps
    size_t p0, p1;  // positions (warp_offset)
    size_t s0;      // first slot (32 w0)
    uint64_t e0, e1; // list entries (the slots' list offsets)
    uint64_t h0, h1; // the host's packed list entries (lda_stream_host_offsets)
    size_t j0, j1;  // rows of cut documents with pieces here
};

// A chunk buffer on the device (streamed): the chunk's words and z from position p0, its
// slots' lists from entry e0, their lengths from slot s0; and the host's form of z and of the
// whole documents' lists as they cross the bus (z16 from p0, packed from h0).
struct stream_buffer {
    uint32_t *words, *z, *topics, *counts, *len;
    uint16_t *z16;
    uint32_t *packed;
    cudaEvent_t copied_in, drawn, copied_out;
};

struct stream_state {
    size_t num_chunks;
    stream_chunk *chunks; // host
    // The chunks' cut documents and pieces (lda_stream_chunk_pieces), concatenated in chunk order:
    // row j is cut document row_doc[j], with the pieces piece_first[j] .. piece_first[j + 1] - 1
    // in its chunk; piece p is slot piece_slot[p], of row piece_row[p].
    uint32_t *row_doc, *piece_slot, *piece_row; // device
    size_t *row_first;                           // device: piece_first
    size_t *piece_first;                         // host, rows + 1
    // The cut documents' lists as the pass leaves them: begun as cut_lists (the pass's start), a
    // chunk's pieces' changes added after its draw, swapped with cut_lists at the pass's end.
    count_lists next;
    uint64_t cut_entries; // the cut documents' lists' room
    bool streamed;
    // Streamed: the host's pinned arrays (layout order; the layout's words registered in place:
    // z in 16 bits, the whole documents' lists packed, the slots' lengths; stream_plan.h), where
    // each slot's packed list starts (on the device), the buffers and their streams.
    const uint32_t *host_words;
    bool words_registered;
    uint16_t *host_z;
    uint32_t *host_packed, *host_len;
    uint64_t *packed_offset; // device, num_slots + 1
    stream_buffer buffers[LDA_STREAM_BUFFERS];
    cudaStream_t copy_in, copy_out;
    cudaEvent_t pass_done;
    // Timed on s.stream: the chunks' work began (after their copies in) and ended (packed), and
    // the pass's chunks began and ended (the copies back done): what the copies did not hide.
    cudaEvent_t *began, *ended; // num_chunks each
    cudaEvent_t chunks_began, chunks_ended;
    size_t loaded; // the chunk a reader has in buffer 0 (SIZE_MAX: none), until the next pass
    bool loaded_words; // ... with its words
};

// Makes b's state chunked as plan says (its chunks; streamed or in device memory), allocating
// own_wk, own_k and the second cut lists; streamed, the host arrays and the buffers too, the
// plan's chunks made again first where the buffers would not fit what is left
// (lda_stream_plan_refit).
int cuda_stream_setup(lda_backend *b, lda_stream_plan *plan, lda_error *err);
void cuda_stream_free(device_state &s);
// The first counts (z given, or drawn from the start), chunk by chunk where streamed.
int cuda_stream_start(lda_backend *b, const uint32_t *z, lda_error *err);
// One z pass and its counts; the totals updated when it ends.
int cuda_stream_pass(lda_backend *b, uint32_t iteration, lda_error *err);

// The host's form of chunk c in buf and the chunk's view v (stream_pack.cu), on v.stream:
// unpacked (z widened where with_z; where with_lists, the whole documents' lists from their packed
// entries and the lengths copied in; the pieces' lists are given by chunk_give), and packed back
// (z narrowed, the whole documents' lists).
int cuda_stream_unpack(const device_state &v, const stream_state &st, const stream_chunk &c,
                       const stream_buffer &buf, bool with_z, bool with_lists, lda_error *err);
int cuda_stream_pack(const device_state &v, const stream_state &st, const stream_chunk &c, const stream_buffer &buf,
                     lda_error *err);

// The readers of the slots' lists where the tokens are streamed (stream_read.cu): chunk i in
// buffer 0 (words too where asked), its pieces given their documents' lists, and its view; the
// chunks' first warps, slots, and the chunk holding a slot.
int cuda_stream_load(lda_backend *b, size_t i, bool words, device_state *view, lda_error *err);
size_t cuda_stream_chunk_of_slot(const stream_state &st, size_t slot);
// θ's rows first .. first + count - 1 to the host; every row of n[m,k]; the predictive (per warp,
// over the trained tokens) and the joint's document terms (either NULL: not asked); the
// histograms of the counts. Each over the chunks (stream_read.cu).
int cuda_stream_theta_to_host(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err);
int cuda_stream_doc_rows_to_host(lda_backend *b, uint32_t *n_mk, lda_error *err);
int cuda_stream_eval_terms(lda_backend *b, double *pred_warps, double *doc_warps, lda_error *err);
int cuda_stream_histograms(lda_backend *b, lda_count_hist *h, lda_error *err);

// Of the last pass's time, the milliseconds s.stream waited for the chunks' copies (streamed,
// once the pass is done).
int cuda_stream_waited_ms(const stream_state &st, float *ms, lda_error *err);

// Whether s's tokens are in host memory, passing through in chunks.
inline bool tokens_streamed(const device_state &s)
{
    return s.chunked && s.chunked->streamed;
}

#endif
