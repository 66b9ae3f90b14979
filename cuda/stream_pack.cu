// stream_pack.cu — a streamed chunk between the host's narrow form and the device's (stream_plan.h
// says why the host keeps z in 16 bits and the whole documents' lists packed): unpacked after the
// chunk is copied in, before anything reads it; packed before it is copied out. The pieces of cut
// documents have no host form: chunk_give forms their lists from their documents'.
#include <cuda_runtime.h>

#include "backend/stream_plan.h"
#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "stream_pass.cuh"

#define PACK_THREADS 256u

static unsigned grid_of(uint64_t items, unsigned per_block)
{
    return (unsigned)((items + per_block - 1) / per_block);
}

__global__ void widen_z_kernel(const uint16_t *z16, size_t positions, uint32_t *z)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < positions)
        z[i] = z16[i];
}

// Between passes z holds plain topics (K <= 65535: stream_plan.h), so 16 bits keep them.
__global__ void narrow_z_kernel(const uint32_t *z, size_t positions, uint16_t *z16)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < positions)
        z16[i] = (uint16_t)z[i];
}

// A warp a slot of the chunk (slots 0 .. slots - 1 of the view): a whole document's list
// (slot_len == slot_doc_len) from its packed entries at packed_offset[s] - h0, or to them.
template <bool UNPACK>
__global__ void lists_kernel(count_lists lists, const uint32_t *slot_len, const uint32_t *slot_doc_len,
                             const uint64_t *packed_offset, uint64_t h0, size_t slots, uint32_t *packed)
{
    const size_t s = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / LDA_WARP;
    if (s >= slots || slot_len[s] != slot_doc_len[s])
        return;
    const uint64_t from = packed_offset[s] - h0, at = lists.offset[s];
    const uint32_t m = lists.len[s];
    for (uint32_t j = threadIdx.x % LDA_WARP; j < m; j += LDA_WARP) {
        if (UNPACK) {
            const uint32_t e = packed[from + j];
            lists.topics[at + j] = lda_stream_packed_topic(e);
            lists.counts[at + j] = lda_stream_packed_count(e);
        } else {
            packed[from + j] = lda_stream_pack_entry(lists.topics[at + j], lists.counts[at + j]);
        }
    }
}

template <bool UNPACK>
static int lists_launch(const device_state &v, const stream_state &st, const stream_chunk &c,
                        const stream_buffer &buf, lda_error *err)
{
    const size_t slots = (c.w1 - c.w0) * LDA_WARP;
    lists_kernel<UNPACK><<<grid_of(slots * LDA_WARP, PACK_THREADS), PACK_THREADS, 0, v.stream>>>(
        sparse_count_lists(v.sparse), v.slot_len, v.slot_doc_len, st.packed_offset + c.s0, c.h0, slots, buf.packed);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int cuda_stream_unpack(const device_state &v, const stream_state &st, const stream_chunk &c,
                       const stream_buffer &buf, bool with_z, bool with_lists, lda_error *err)
{
    const size_t positions = c.p1 - c.p0;
    if (with_z && positions) {
        widen_z_kernel<<<grid_of(positions, PACK_THREADS), PACK_THREADS, 0, v.stream>>>(buf.z16, positions, buf.z);
        LAUNCH_TRY();
    }
    return with_lists ? lists_launch<true>(v, st, c, buf, err) : 0;
fail:
    return -1;
}

int cuda_stream_pack(const device_state &v, const stream_state &st, const stream_chunk &c, const stream_buffer &buf,
                     lda_error *err)
{
    const size_t positions = c.p1 - c.p0;
    if (positions) {
        narrow_z_kernel<<<grid_of(positions, PACK_THREADS), PACK_THREADS, 0, v.stream>>>(buf.z, positions, buf.z16);
        LAUNCH_TRY();
    }
    return lists_launch<false>(v, st, c, buf, err);
fail:
    return -1;
}
