// stream_pass.cu — the z pass a chunk of warps at a time (stream_pass.cuh says what and why;
// docs/scale.md, "Tokens streamed from host memory", why the model is the in-memory pass's byte for byte).
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "join_block.cuh"
#include "stream_pass.cuh"

#define JOIN_WARPS 8u // warps a block

static unsigned warps_grid(size_t warps)
{
    return (unsigned)((warps + JOIN_WARPS - 1) / JOIN_WARPS);
}

static stream_state &chunked(lda_backend *b)
{
    return *((cuda_impl *)b->impl)->s.chunked;
}

// Chunk c as the kernels see it: s with its warp- and slot-indexed arrays from the chunk's
// first warp on, so that the chunk's warps are warps 0 .. w1 - w0 - 1 (its document groups keep
// their random keys, slot_token_base). The arrays indexed by position (words, z) and by list
// entry (the slots' lists) are indexed by the layout's own offsets (warp_offset, the lists'
// offsets), so a buffer holding the chunk's part alone is pointed at as if it held them all.
static device_state chunk_view(const device_state &s, const stream_chunk &c, const stream_buffer *buf)
{
    device_state v = s;
    v.warp_offset += c.w0;
    v.warp_len += c.w0;
    v.slot_len += c.s0;
    v.slot_doc += c.s0;
    v.slot_doc_len += c.s0;
    v.slot_piece += c.s0;
    v.slot_token_base += c.s0;
    v.sparse.list_offset += c.s0;
    v.sparse.slot_doc_len += c.s0;
    if (buf) {
        v.words = buf->words - c.p0;
        v.z = buf->z - c.p0;
        v.sparse.lists = buf->topics - c.e0;
        v.sparse.counts = buf->counts - c.e0;
        v.sparse.list_len = buf->len;
    } else {
        v.sparse.list_len += c.s0;
    }
    v.num_warps = c.w1 - c.w0;
    v.num_slots = v.num_warps * LDA_WARP;
    v.num_positions = c.p1 - c.p0;
    v.num_cut_docs = 0; // the chunk's share of the join is this file's (chunk_join)
    return v;
}

// Each of the chunk's pieces (p0 .. p0 + pieces - 1) takes its document's list in `from`.
__global__ void chunk_give_kernel(const uint32_t *piece_slot, const uint32_t *piece_row, const uint32_t *row_doc,
                                  size_t p0, size_t pieces, size_t s0, count_lists slots, count_lists from)
{
    const size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (i >= pieces)
        return;
    const size_t p = p0 + i;
    count_list_copy(from, row_doc[piece_row[p]], slots, piece_slot[p] - s0, threadIdx.x % LDA_WARP);
}

// The chunk's rows j0 .. j0 + n - 1 joined, a block a row (join_block.cuh): cut document c =
// row_doc[j]'s list of `next` (what the chunks before left), less (its P pieces here) × its list
// of `base` (from_scratch: no base; the pieces hold their own tokens), plus its pieces' lists
// here, modulo 2^32, becomes its list of `next`. Each block stages in its 2K words of `stage`.
struct chunk_join_items {
    const uint32_t *piece_slot;
    size_t c, first, s0;
    uint32_t pieces;
    bool from_scratch;
    count_lists slots, base, next;
    __device__ bool operator()(uint32_t i, count_lists *l, size_t *r, uint32_t *times) const
    {
        if (i < pieces) {
            *l = slots;
            *r = piece_slot[first + i] - s0;
            *times = 1u;
            return true;
        }
        *l = i == pieces ? next : base;
        *r = c;
        *times = i == pieces ? 1u : 0u - pieces; // modulo 2^32
        return i == pieces || !from_scratch;
    }
};

__global__ void __launch_bounds__(JOIN_BLOCK_WARPS * LDA_WARP)
    chunk_join_kernel(const uint32_t *row_doc, const size_t *row_first, const uint32_t *piece_slot, size_t j0,
                      size_t n, size_t s0, uint32_t K, bool from_scratch, count_lists slots, count_lists base,
                      count_lists next, uint32_t *stage)
{
    join_row row = join_row_begin(K);
    uint32_t *stage_topics = stage + (size_t)blockIdx.x * 2 * K, *stage_counts = stage_topics + K;
    for (size_t j = j0 + blockIdx.x; j < j0 + n; j += gridDim.x) {
        const size_t c = row_doc[j], first = row_first[j];
        const uint32_t pieces = (uint32_t)(row_first[j + 1] - first);
        const chunk_join_items items = {piece_slot, c, first, s0, pieces, from_scratch, slots, base, next};
        const uint32_t m = join_block_list(row, K, pieces + 2, items, stage_topics, stage_counts);
        if (threadIdx.x < LDA_WARP)
            join_give(stage_topics, stage_counts, m, next, c, threadIdx.x);
        __syncthreads(); // the stage given before the next row's is written
    }
}

// The chunk's pieces given their documents' lists of `from` (v: the chunk's view).
static int chunk_give(const device_state &v, const stream_state &st, const stream_chunk &c, const count_lists &from,
                      lda_error *err)
{
    const size_t p0 = st.piece_first[c.j0], pieces = st.piece_first[c.j1] - p0;
    if (pieces == 0)
        return 0;
    chunk_give_kernel<<<warps_grid(pieces), JOIN_WARPS * LDA_WARP, 0, v.stream>>>(
        st.piece_slot, st.piece_row, st.row_doc, p0, pieces, c.s0, sparse_count_lists(v.sparse), from);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

// The chunk's pieces' changes from `base` added into their documents' lists of st.next (the
// window of cuda_doc_rows, which nothing else reads meanwhile, their stage).
static int chunk_join(const device_state &v, const stream_state &st, const stream_chunk &c, const count_lists &base,
                      bool from_scratch, lda_error *err)
{
    unsigned grid = 0;
    if (c.j1 == c.j0)
        return 0;
    if (join_block_grid(chunk_join_kernel, v.K, c.j1 - c.j0, v.doc_window_slots * v.K, &grid, err))
        return -1;
    chunk_join_kernel<<<grid, JOIN_BLOCK_WARPS * LDA_WARP, join_block_shared_bytes(v.K), v.stream>>>(
        st.row_doc, st.row_first, st.piece_slot, c.j0, c.j1 - c.j0, c.s0, v.K, from_scratch,
        sparse_count_lists(v.sparse), base, st.next, v.doc_window);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

// st.next becomes the cut documents' lists, and they st.next's room.
static void swap_cut_lists(device_state &s, stream_state &st)
{
    count_lists t = s.cut_lists;
    s.cut_lists.topics = st.next.topics;
    s.cut_lists.counts = st.next.counts;
    s.cut_lists.len = st.next.len;
    st.next.topics = t.topics;
    st.next.counts = t.counts;
    st.next.len = t.len;
}

// The pass's counts become the totals the next pass draws against.
static int settle_counts(const device_state &s, lda_error *err)
{
    CUDA_TRY(cudaMemcpyAsync(s.n_wk, s.own_wk, (size_t)s.V * s.K * sizeof *s.n_wk, cudaMemcpyDeviceToDevice,
                             s.stream));
    CUDA_TRY(cudaMemcpyAsync(s.n_k, s.own_k, s.K * sizeof *s.n_k, cudaMemcpyDeviceToDevice, s.stream));
    return 0;
fail:
    return -1;
}

// st.next begun as the cut documents' lists (from_scratch: empty).
static int begin_next(const device_state &s, const stream_state &st, bool from_scratch, lda_error *err)
{
    if (s.num_cut_docs == 0)
        return 0;
    if (!from_scratch) {
        CUDA_TRY(cudaMemcpyAsync(st.next.topics, s.cut_lists.topics, st.cut_entries * sizeof(uint32_t),
                                 cudaMemcpyDeviceToDevice, s.stream));
        CUDA_TRY(cudaMemcpyAsync(st.next.counts, s.cut_lists.counts, st.cut_entries * sizeof(uint32_t),
                                 cudaMemcpyDeviceToDevice, s.stream));
        CUDA_TRY(cudaMemcpyAsync(st.next.len, s.cut_lists.len, s.num_cut_docs * sizeof(uint32_t),
                                 cudaMemcpyDeviceToDevice, s.stream));
    } else {
        CUDA_TRY(cudaMemsetAsync(st.next.len, 0, s.num_cut_docs * sizeof(uint32_t), s.stream));
    }
    return 0;
fail:
    return -1;
}

// Chunk i's tokens and lists queued into its buffer on the copy stream (streamed), in the host's
// form, and unpacked on s.stream once there: what the chunk's work on s.stream follows, once the
// buffer's last chunk was copied out. z from the host's copy (with_z) or, at the start without a
// z, left for the start to draw.
static int copy_chunk_in(const device_state &s, stream_state &st, size_t i, bool with_z, lda_error *err)
{
    const stream_chunk &c = st.chunks[i];
    stream_buffer &buf = st.buffers[i % LDA_STREAM_BUFFERS];
    const size_t positions = c.p1 - c.p0, slots = (c.w1 - c.w0) * LDA_WARP;
    CUDA_TRY(cudaStreamWaitEvent(st.copy_in, buf.copied_out, 0));
    CUDA_TRY(cudaMemcpyAsync(buf.words, st.host_words + c.p0, positions * sizeof(uint32_t), cudaMemcpyHostToDevice,
                             st.copy_in));
    if (with_z) {
        CUDA_TRY(cudaMemcpyAsync(buf.z16, st.host_z + c.p0, positions * sizeof(uint16_t), cudaMemcpyHostToDevice,
                                 st.copy_in));
        CUDA_TRY(cudaMemcpyAsync(buf.packed, st.host_packed + c.h0, (c.h1 - c.h0) * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, st.copy_in));
        CUDA_TRY(cudaMemcpyAsync(buf.len, st.host_len + c.s0, slots * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                 st.copy_in));
    }
    CUDA_TRY(cudaEventRecord(buf.copied_in, st.copy_in));
    CUDA_TRY(cudaStreamWaitEvent(s.stream, buf.copied_in, 0));
    CUDA_TRY(cudaEventRecord(st.began[i], s.stream));
    if (with_z && cuda_stream_unpack(chunk_view(s, c, &buf), st, c, buf, true, true, err))
        return -1;
    return 0;
fail:
    return -1;
}

// Chunk i packed into the host's form once its work on s.stream is done, and its z and lists
// back to the host (streamed).
static int copy_chunk_out(const device_state &s, stream_state &st, size_t i, lda_error *err)
{
    const stream_chunk &c = st.chunks[i];
    stream_buffer &buf = st.buffers[i % LDA_STREAM_BUFFERS];
    const size_t positions = c.p1 - c.p0, slots = (c.w1 - c.w0) * LDA_WARP;
    if (cuda_stream_pack(chunk_view(s, c, &buf), st, c, buf, err))
        return -1;
    CUDA_TRY(cudaEventRecord(st.ended[i], s.stream));
    CUDA_TRY(cudaEventRecord(buf.drawn, s.stream));
    CUDA_TRY(cudaStreamWaitEvent(st.copy_out, buf.drawn, 0));
    CUDA_TRY(cudaMemcpyAsync(st.host_z + c.p0, buf.z16, positions * sizeof(uint16_t), cudaMemcpyDeviceToHost,
                             st.copy_out));
    CUDA_TRY(cudaMemcpyAsync(st.host_packed + c.h0, buf.packed, (c.h1 - c.h0) * sizeof(uint32_t),
                             cudaMemcpyDeviceToHost, st.copy_out));
    CUDA_TRY(cudaMemcpyAsync(st.host_len + c.s0, buf.len, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                             st.copy_out));
    CUDA_TRY(cudaEventRecord(buf.copied_out, st.copy_out));
    return 0;
fail:
    return -1;
}

// Before the chunks' copies: whatever s.stream queued (a reader's use of a buffer, the tables)
// comes first. After them: s.stream waits for the last copies back, so that the host's arrays
// are whole once s.stream is.
static int copies_after_stream(const device_state &s, stream_state &st, lda_error *err)
{
    st.loaded = SIZE_MAX; // the reader's chunk is overwritten
    CUDA_TRY(cudaEventRecord(st.pass_done, s.stream));
    CUDA_TRY(cudaStreamWaitEvent(st.copy_in, st.pass_done, 0));
    CUDA_TRY(cudaEventRecord(st.chunks_began, s.stream));
    return 0;
fail:
    return -1;
}

static int stream_after_copies(const device_state &s, stream_state &st, lda_error *err)
{
    for (uint32_t i = 0; i < LDA_STREAM_BUFFERS; i++)
        CUDA_TRY(cudaStreamWaitEvent(s.stream, st.buffers[i].copied_out, 0));
    CUDA_TRY(cudaEventRecord(st.chunks_ended, s.stream));
    return 0;
fail:
    return -1;
}

int cuda_stream_waited_ms(const stream_state &st, float *ms, lda_error *err)
{
    *ms = 0;
    for (size_t i = 0; i <= st.num_chunks; i++) { // before each chunk's work, and after the last's
        float gap = 0;
        CUDA_TRY(cudaEventElapsedTime(&gap, i ? st.ended[i - 1] : st.chunks_began,
                                      i < st.num_chunks ? st.began[i] : st.chunks_ended));
        *ms += gap;
    }
    return 0;
fail:
    return -1;
}

// Chunk i's view: its buffer's where streamed, else the device's own arrays.
static device_state chunk_view_of(const device_state &s, const stream_state &st, size_t i)
{
    return chunk_view(s, st.chunks[i], st.streamed ? &st.buffers[i % LDA_STREAM_BUFFERS] : NULL);
}

int cuda_stream_pass(lda_backend *b, uint32_t iteration, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    stream_state &st = chunked(b);
    const lda_zplan &plan = b->zplan;
    zsample_args a;
    zsample_sparse_tables t;
    cuda_zsample_args(b, s, iteration, 0, &a, &t);
    if (zsample_sparse_tables_launch(plan, a, t, s.stream, err) || begin_next(s, st, false, err))
        return -1;
    if (st.streamed && copies_after_stream(s, st, err))
        return -1;
    for (size_t i = 0; i < st.num_chunks; i++) {
        const stream_chunk &c = st.chunks[i];
        if (st.streamed && copy_chunk_in(s, st, i, true, err))
            return -1;
        const device_state v = chunk_view_of(s, st, i);
        cuda_zsample_args(b, v, iteration, 0, &a, &t);
        if (chunk_give(v, st, c, s.cut_lists, err) || zsample_sparse_draw_launch(plan, a, t, v.stream, err) ||
            cuda_count_changes(v, true, 0, 1, err) || chunk_join(v, st, c, s.cut_lists, false, err))
            return -1;
        if (st.streamed && copy_chunk_out(s, st, i, err))
            return -1;
    }
    if (st.streamed && stream_after_copies(s, st, err))
        return -1;
    swap_cut_lists(s, st);
    for (size_t i = 0; !st.streamed && i < st.num_chunks; i++) // what reads the slots' lists reads the joined ones
        if (chunk_give(chunk_view(s, st.chunks[i], NULL), st, st.chunks[i], s.cut_lists, err))
            return -1;
    return settle_counts(s, err);
}

// Streamed: z (given, or drawn from the start) counted chunk by chunk: n[w,k] and n[k] into
// own_wk, own_k (zeroed), each slot's list, and the cut documents' lists joined from scratch.
static int start_streamed(lda_backend *b, const uint32_t *z, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    stream_state &st = chunked(b);
    if (z) // the host's form: K <= 65535, so a topic takes 16 bits
        for (size_t i = 0; i < s.num_positions; i++)
            st.host_z[i] = (uint16_t)z[i];
    CUDA_TRY(cudaMemsetAsync(s.own_wk, 0, (size_t)s.V * s.K * sizeof *s.own_wk, s.stream));
    CUDA_TRY(cudaMemsetAsync(s.own_k, 0, s.K * sizeof *s.own_k, s.stream));
    if (begin_next(s, st, true, err) || copies_after_stream(s, st, err))
        return -1;
    for (size_t i = 0; i < st.num_chunks; i++) {
        const stream_chunk &c = st.chunks[i];
        stream_buffer &buf = st.buffers[i % LDA_STREAM_BUFFERS];
        const size_t positions = c.p1 - c.p0;
        if (copy_chunk_in(s, st, i, false, err))
            return -1;
        const device_state v = chunk_view_of(s, st, i);
        if (z) {
            CUDA_TRY(cudaMemcpyAsync(buf.z16, st.host_z + c.p0, positions * sizeof(uint16_t), cudaMemcpyHostToDevice,
                                     s.stream));
            if (cuda_stream_unpack(v, st, c, buf, true, false, err)) // z alone: the lists are counted below
                return -1;
        }
        if ((!z && cuda_init_z(v, b->params.seed, lda_params_start_topics(&b->params), err)) ||
            cuda_count_add(v, err) || chunk_join(v, st, c, s.cut_lists, true, err) || copy_chunk_out(s, st, i, err))
            return -1;
    }
    if (stream_after_copies(s, st, err))
        return -1;
    swap_cut_lists(s, st);
    if (z) // the caller's z may change once this returns (it was read into the host's form above)
        CUDA_TRY(cudaStreamSynchronize(s.stream));
    return settle_counts(s, err);
fail:
    return -1;
}

int cuda_stream_start(lda_backend *b, const uint32_t *z, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (chunked(b).streamed)
        return start_streamed(b, z, err);
    return cuda_start_counts(b, z, err) || settle_counts(s, err) ? -1 : 0;
}

int cuda_stream_load(lda_backend *b, size_t i, bool words, device_state *view, lda_error *err)
{
    const device_state &s = ((cuda_impl *)b->impl)->s;
    stream_state &st = chunked(b);
    const stream_chunk &c = st.chunks[i];
    stream_buffer &buf = st.buffers[0];
    *view = chunk_view(s, c, &buf);
    if (st.loaded == i && (st.loaded_words || !words))
        return 0;
    const size_t positions = c.p1 - c.p0, slots = (c.w1 - c.w0) * LDA_WARP;
    // on s.stream: after the pass that wrote the host's arrays (it waits for their copies)
    if (words)
        CUDA_TRY(cudaMemcpyAsync(buf.words, st.host_words + c.p0, positions * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, s.stream));
    CUDA_TRY(cudaMemcpyAsync(buf.packed, st.host_packed + c.h0, (c.h1 - c.h0) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, s.stream));
    CUDA_TRY(cudaMemcpyAsync(buf.len, st.host_len + c.s0, slots * sizeof(uint32_t), cudaMemcpyHostToDevice,
                             s.stream));
    if (cuda_stream_unpack(*view, st, c, buf, false, true, err) || chunk_give(*view, st, c, s.cut_lists, err))
        return -1;
    st.loaded = i;
    st.loaded_words = words;
    return 0;
fail:
    return -1;
}

// The chunks of the plan, and their cut documents' rows and pieces, to the device.
static int upload_chunks(device_state &s, stream_state &st, const lda_layout *L, const lda_stream_plan *plan,
                         lda_error *err)
{
    const size_t n = plan->num_chunks;
    uint64_t *offsets = NULL, *host_offsets = NULL;
    lda_stream_chunk_pieces *pieces = (lda_stream_chunk_pieces *)calloc(n ? n : 1, sizeof *pieces);
    uint32_t *row_doc = NULL, *piece_slot = NULL, *piece_row = NULL;
    int rc = -1;
    st.chunks = (stream_chunk *)calloc(n ? n : 1, sizeof *st.chunks);
    offsets = (uint64_t *)malloc((L->num_slots + 1) * sizeof *offsets);
    host_offsets = (uint64_t *)malloc((L->num_slots + 1) * sizeof *host_offsets);
    if (!pieces || !st.chunks || !offsets || !host_offsets) {
        lda_error_fail(err, "out of memory");
        goto done;
    }
    lda_sparse_list_offsets(L, s.K, offsets);
    lda_stream_host_offsets(L, s.K, host_offsets);
    {
        size_t rows = 0, all = 0;
        for (size_t i = 0; i < n; i++) {
            if (lda_stream_chunk_pieces_make(L, plan->chunks[i].first_warp, plan->chunks[i].end_warp, &pieces[i], err))
                goto done;
            rows += pieces[i].num_docs;
            all += pieces[i].offsets[pieces[i].num_docs];
        }
        row_doc = (uint32_t *)malloc((rows + 1) * sizeof *row_doc);
        piece_slot = (uint32_t *)malloc((all + 1) * sizeof *piece_slot);
        piece_row = (uint32_t *)malloc((all + 1) * sizeof *piece_row);
        st.piece_first = (size_t *)malloc((rows + 1) * sizeof *st.piece_first);
        if (!row_doc || !piece_slot || !piece_row || !st.piece_first) {
            lda_error_fail(err, "out of memory");
            goto done;
        }
        size_t j = 0, p = 0;
        for (size_t i = 0; i < n; i++) {
            const lda_stream_chunk &pc = plan->chunks[i];
            stream_chunk &c = st.chunks[i];
            c.w0 = pc.first_warp;
            c.w1 = pc.end_warp;
            c.p0 = L->warp_offset[c.w0];
            c.p1 = L->warp_offset[c.w1];
            c.s0 = c.w0 * LDA_WARP;
            c.e0 = offsets[c.s0];
            c.e1 = offsets[c.w1 * LDA_WARP];
            c.h0 = host_offsets[c.s0];
            c.h1 = host_offsets[c.w1 * LDA_WARP];
            c.j0 = j;
            for (size_t d = 0; d < pieces[i].num_docs; d++, j++) {
                row_doc[j] = pieces[i].docs[d];
                st.piece_first[j] = p;
                for (size_t q = pieces[i].offsets[d]; q < pieces[i].offsets[d + 1]; q++, p++) {
                    piece_slot[p] = pieces[i].slots[q];
                    piece_row[p] = (uint32_t)j;
                }
            }
            c.j1 = j;
        }
        st.piece_first[j] = p;
        st.num_chunks = n;
        CUDA_TRY(cudaMalloc(&st.row_doc, (rows + 1) * sizeof *st.row_doc));
        CUDA_TRY(cudaMalloc(&st.row_first, (rows + 1) * sizeof *st.row_first));
        CUDA_TRY(cudaMalloc(&st.piece_slot, (all + 1) * sizeof *st.piece_slot));
        CUDA_TRY(cudaMalloc(&st.piece_row, (all + 1) * sizeof *st.piece_row));
        CUDA_TRY(cudaMemcpy(st.row_doc, row_doc, rows * sizeof *row_doc, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(st.row_first, st.piece_first, (rows + 1) * sizeof *st.row_first, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(st.piece_slot, piece_slot, all * sizeof *piece_slot, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(st.piece_row, piece_row, all * sizeof *piece_row, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMalloc(&st.packed_offset, (L->num_slots + 1) * sizeof *st.packed_offset));
        CUDA_TRY(cudaMemcpy(st.packed_offset, host_offsets, (L->num_slots + 1) * sizeof *host_offsets,
                            cudaMemcpyHostToDevice));
    }
    rc = 0;
    goto done;
fail:
    rc = -1;
done:
    for (size_t i = 0; pieces && i < n; i++)
        lda_stream_chunk_pieces_free(&pieces[i]);
    free(pieces);
    free(offsets);
    free(host_offsets);
    free(row_doc);
    free(piece_slot);
    free(piece_row);
    return rc;
}

// The host's pinned arrays (the layout's words registered where they are), the buffers sized
// for the largest chunk, the copy streams and their events.
static int setup_streamed(device_state &s, stream_state &st, const lda_layout *L, lda_error *err)
{
    size_t positions = 0, slots = 0;
    uint64_t entries = 0, packed = 0;
    for (size_t i = 0; i < st.num_chunks; i++) {
        const stream_chunk &c = st.chunks[i];
        positions = c.p1 - c.p0 > positions ? c.p1 - c.p0 : positions;
        slots = (c.w1 - c.w0) * LDA_WARP > slots ? (c.w1 - c.w0) * LDA_WARP : slots;
        entries = c.e1 - c.e0 > entries ? c.e1 - c.e0 : entries;
        packed = c.h1 - c.h0 > packed ? c.h1 - c.h0 : packed;
    }
    const uint64_t all_packed = st.num_chunks ? st.chunks[st.num_chunks - 1].h1 : 0;
    st.streamed = true;
    st.loaded = SIZE_MAX;
    CUDA_TRY(cudaHostRegister((void *)L->words, L->num_positions * sizeof *L->words, cudaHostRegisterDefault));
    st.words_registered = true;
    st.host_words = L->words;
    CUDA_TRY(cudaMallocHost(&st.host_z, L->num_positions * sizeof *st.host_z + 16));
    CUDA_TRY(cudaMallocHost(&st.host_packed, all_packed * sizeof *st.host_packed + 16));
    CUDA_TRY(cudaMallocHost(&st.host_len, L->num_slots * sizeof *st.host_len + 16));
    for (uint32_t i = 0; i < LDA_STREAM_BUFFERS; i++) {
        stream_buffer &buf = st.buffers[i];
        CUDA_TRY(cudaMalloc(&buf.words, positions * sizeof *buf.words + 16));
        CUDA_TRY(cudaMalloc(&buf.z, positions * sizeof *buf.z + 16));
        CUDA_TRY(cudaMalloc(&buf.topics, entries * sizeof *buf.topics + 16));
        CUDA_TRY(cudaMalloc(&buf.counts, entries * sizeof *buf.counts + 16));
        CUDA_TRY(cudaMalloc(&buf.len, slots * sizeof *buf.len + 16));
        CUDA_TRY(cudaMalloc(&buf.z16, positions * sizeof *buf.z16 + 16));
        CUDA_TRY(cudaMalloc(&buf.packed, packed * sizeof *buf.packed + 16));
        CUDA_TRY(cudaEventCreateWithFlags(&buf.copied_in, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&buf.drawn, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&buf.copied_out, cudaEventDisableTiming));
    }
    CUDA_TRY(cudaStreamCreate(&st.copy_in));
    CUDA_TRY(cudaStreamCreate(&st.copy_out));
    CUDA_TRY(cudaEventCreateWithFlags(&st.pass_done, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreate(&st.chunks_began));
    CUDA_TRY(cudaEventCreate(&st.chunks_ended));
    st.began = (cudaEvent_t *)calloc(st.num_chunks, sizeof *st.began);
    st.ended = (cudaEvent_t *)calloc(st.num_chunks, sizeof *st.ended);
    if (!st.began || !st.ended) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < st.num_chunks; i++) {
        CUDA_TRY(cudaEventCreate(&st.began[i]));
        CUDA_TRY(cudaEventCreate(&st.ended[i]));
    }
    (void)s;
    return 0;
fail:
    return -1;
}

int cuda_stream_setup(lda_backend *b, lda_stream_plan *plan, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    const lda_layout *L = b->layout;
    stream_state *st = (stream_state *)calloc(1, sizeof *st);
    if (!st) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    s.chunked = st;
    if (b->zplan.kernel != LDA_ZKERNEL_SPARSE || s.z_prev || s.own_wk != s.n_wk) {
        lda_error_fail(err, "internal error: chunks of warps need the collapsed sparse draw of one device");
        return -1;
    }
    s.own_wk = NULL; // free_state frees own_* only where they are not n_*
    s.own_k = NULL;
    CUDA_TRY(cudaMalloc(&s.own_wk, (size_t)s.V * s.K * sizeof *s.own_wk + 16));
    CUDA_TRY(cudaMalloc(&s.own_k, s.K * sizeof *s.own_k + 16));
    {
        const uint64_t entries = st->cut_entries = lda_cut_list_entries(L, s.K);
        st->next.offset = s.cut_lists.offset;
        CUDA_TRY(cudaMalloc(&st->next.topics, entries * sizeof(uint32_t) + 16));
        CUDA_TRY(cudaMalloc(&st->next.counts, entries * sizeof(uint32_t) + 16));
        CUDA_TRY(cudaMalloc(&st->next.len, s.num_cut_docs * sizeof(uint32_t) + 16));
    }
    if (plan->streamed) { // the buffers sized by what the resident arrays left
        size_t free_bytes = 0, total_bytes = 0;
        CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (lda_stream_plan_refit(L, s.K, free_bytes, plan, err))
            return -1;
    }
    if (upload_chunks(s, *st, L, plan, err))
        return -1;
    return plan->streamed ? setup_streamed(s, *st, L, err) : 0;
fail:
    return -1;
}

void cuda_stream_free(device_state &s)
{
    stream_state *st = s.chunked;
    if (!st)
        return;
    void *ptrs[] = {st->row_doc,      st->row_first,   st->piece_slot, st->piece_row,    st->next.topics,
                    st->next.counts, st->next.len, st->packed_offset};
    for (void *ptr : ptrs)
        if (ptr)
            cudaFree(ptr);
    for (stream_buffer &buf : st->buffers) {
        void *bufs[] = {buf.words, buf.z, buf.topics, buf.counts, buf.len, buf.z16, buf.packed};
        for (void *ptr : bufs)
            if (ptr)
                cudaFree(ptr);
        cudaEvent_t events[] = {buf.copied_in, buf.drawn, buf.copied_out};
        for (cudaEvent_t e : events)
            if (e)
                cudaEventDestroy(e);
    }
    void *host[] = {st->host_z, st->host_packed, st->host_len};
    for (void *ptr : host)
        if (ptr)
            cudaFreeHost(ptr);
    if (st->words_registered)
        cudaHostUnregister((void *)st->host_words);
    if (st->copy_in)
        cudaStreamDestroy(st->copy_in);
    if (st->copy_out)
        cudaStreamDestroy(st->copy_out);
    cudaEvent_t events[] = {st->pass_done, st->chunks_began, st->chunks_ended};
    for (cudaEvent_t e : events)
        if (e)
            cudaEventDestroy(e);
    for (size_t i = 0; i < st->num_chunks; i++) {
        if (st->began && st->began[i])
            cudaEventDestroy(st->began[i]);
        if (st->ended && st->ended[i])
            cudaEventDestroy(st->ended[i]);
    }
    free(st->began);
    free(st->ended);
    free(st->chunks);
    free(st->piece_first);
    free(st);
    s.chunked = NULL;
}
