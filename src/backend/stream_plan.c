/* stream_plan.c — chunks of warps streamed through the GPU, and the choice to stream; see
 * stream_plan.h. */
#include "backend/stream_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sparse_draw.h"

/* The list entries of warps first .. end - 1. */
static uint64_t chunk_entries(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    uint64_t all = 0;
    for (size_t s = first * LDA_WARP; s < end * LDA_WARP; s++)
        all += lda_sparse_list_capacity(K, L->slot_len[s], L->slot_doc_len[s]);
    return all;
}

uint64_t lda_stream_host_room(const lda_layout *L, uint32_t K, size_t slot)
{
    const uint32_t len = L->slot_len[slot];
    if (len != L->slot_doc_len[slot]) /* a piece of a cut document: given its document's list */
        return 0;
    return len < K ? len : K;
}

uint64_t lda_stream_host_entries(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    uint64_t all = 0;
    for (size_t s = first * LDA_WARP; s < end * LDA_WARP; s++)
        all += lda_stream_host_room(L, K, s);
    return all;
}

const char *lda_stream_layout_refusal(const lda_layout *L)
{
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s] == L->slot_doc_len[s] && L->slot_len[s] > LDA_STREAM_PACKED_MOST)
            return "a document of more than 65535 tokens is not cut into pieces (--piece-length)";
    return NULL;
}

void lda_stream_host_offsets(const lda_layout *L, uint32_t K, uint64_t *offsets)
{
    offsets[0] = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        offsets[s + 1] = offsets[s] + lda_stream_host_room(L, K, s);
}

/* What the chunk holds of the in-memory arrays (words, z, the slots' lists and lengths). */
static uint64_t chunk_payload(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    const uint64_t all = chunk_entries(L, K, first, end);
    const uint64_t positions = L->warp_offset[end] - L->warp_offset[first];
    return 2 * positions * sizeof(uint32_t) + 2 * all * sizeof(uint32_t) + (end - first) * LDA_WARP * sizeof(uint32_t);
}

/* The chunk's host form as it crosses the bus and lands on the device before it is unpacked:
 * z in 16 bits, the whole documents' lists packed. */
static uint64_t chunk_staging(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    const uint64_t positions = L->warp_offset[end] - L->warp_offset[first];
    return positions * sizeof(uint16_t) + lda_stream_host_entries(L, K, first, end) * sizeof(uint32_t);
}

/* Both, without the arrays' alignment: the sums are additive by warp. */
static uint64_t chunk_room(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    return chunk_payload(L, K, first, end) + chunk_staging(L, K, first, end);
}

uint64_t lda_stream_chunk_bytes(const lda_layout *L, uint32_t K, size_t first, size_t end)
{
    return chunk_room(L, K, first, end) + (uint64_t)LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN;
}

void lda_stream_chunk_copies(const lda_layout *L, uint32_t K, size_t first, size_t end, uint64_t *in,
                             uint64_t *out)
{
    const uint64_t positions = L->warp_offset[end] - L->warp_offset[first];
    const uint64_t lengths = (end - first) * LDA_WARP * sizeof(uint32_t);
    /* z in 16 bits and the whole documents' lists packed; the pieces' lists do not travel (they
       are formed on the device from their documents' lists before they are read) */
    *out = chunk_staging(L, K, first, end) + lengths;
    *in = *out + positions * sizeof(uint32_t);
}

static void put_chunk(const lda_layout *L, uint32_t K, size_t first, size_t end, lda_stream_chunk *c)
{
    c->first_warp = first;
    c->end_warp = end;
    c->device_bytes = lda_stream_chunk_bytes(L, K, first, end);
    lda_stream_chunk_copies(L, K, first, end, &c->copy_in, &c->copy_out);
}

int lda_stream_chunks(const lda_layout *L, uint32_t K, uint64_t room, size_t warps, lda_stream_chunk **chunks,
                      size_t *count, lda_error *err)
{
    const size_t W = L->num_warps;
    *chunks = NULL;
    *count = 0;
    lda_stream_chunk *out = lda_malloc_array(W ? W : 1, sizeof *out, "chunks", err); /* at most a warp each */
    if (!out)
        return -1;
    size_t n = 0;
    const uint64_t align = (uint64_t)LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN;
    for (size_t first = 0; first < W;) {
        size_t end = first + 1;
        if (warps) {
            end = first + warps < W ? first + warps : W;
        } else {
            uint64_t bytes = chunk_room(L, K, first, end) + align;
            if (bytes > room) {
                lda_error_fail(err,
                               "a group of 32 documents (warp %zu) needs %llu bytes on the device, more than a "
                               "chunk's room of %llu",
                               first, (unsigned long long)bytes, (unsigned long long)room);
                free(out);
                return -1;
            }
            while (end < W && bytes + chunk_room(L, K, end, end + 1) <= room)
                bytes += chunk_room(L, K, end, end + 1), end++;
        }
        put_chunk(L, K, first, end, &out[n++]);
        first = end;
    }
    *chunks = out;
    *count = n;
    return 0;
}

int lda_stream_forced_warps(size_t *warps, lda_error *err)
{
    *warps = 0;
    const char *v = getenv(LDA_STREAM_CHUNK_WARPS_ENV);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    const unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || n == 0 || v[0] == '-') {
        lda_error_input(err, "%s: \"%s\" is not a positive whole number of warps", LDA_STREAM_CHUNK_WARPS_ENV, v);
        return -1;
    }
    *warps = (size_t)n;
    return 0;
}

int lda_stream_chunk_pieces_make(const lda_layout *L, size_t first, size_t end, lda_stream_chunk_pieces *out,
                                 lda_error *err)
{
    const size_t s0 = first * LDA_WARP, s1 = end * LDA_WARP;
    size_t docs = 0, pieces = 0;
    memset(out, 0, sizeof *out);
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        size_t here = 0;
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++)
            here += L->cut_slots[i] >= s0 && L->cut_slots[i] < s1;
        docs += here > 0;
        pieces += here;
    }
    if (!(out->docs = lda_malloc_array(docs + 1, sizeof *out->docs, "chunk pieces", err)) ||
        !(out->offsets = lda_malloc_array(docs + 1, sizeof *out->offsets, "chunk pieces", err)) ||
        !(out->slots = lda_malloc_array(pieces + 1, sizeof *out->slots, "chunk pieces", err))) {
        lda_stream_chunk_pieces_free(out);
        return -1;
    }
    size_t j = 0, p = 0;
    out->offsets[0] = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        const size_t before = p;
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++)
            if (L->cut_slots[i] >= s0 && L->cut_slots[i] < s1)
                out->slots[p++] = L->cut_slots[i];
        if (p > before) {
            out->docs[j] = (uint32_t)c;
            out->offsets[++j] = p;
        }
    }
    out->num_docs = docs;
    return 0;
}

void lda_stream_chunk_pieces_free(lda_stream_chunk_pieces *pieces)
{
    free(pieces->docs);
    free(pieces->offsets);
    free(pieces->slots);
    memset(pieces, 0, sizeof *pieces);
}

void lda_stream_join_chunk(const lda_stream_chunk_pieces *pieces, uint32_t K, const uint32_t *n, const uint32_t *base,
                           uint32_t *next)
{
    for (size_t j = 0; base && j < pieces->num_docs; j++) { /* less (the chunk's pieces) × base */
        const size_t c = pieces->docs[j];
        const uint32_t times = (uint32_t)(pieces->offsets[j + 1] - pieces->offsets[j]);
        for (uint32_t k = 0; k < K; k++)
            next[c * K + k] -= times * base[c * K + k];
    }
    lda_layout_add_rows(K, n, pieces->num_docs, pieces->docs, pieces->offsets, pieces->slots, next);
}

void lda_stream_give_chunk(const lda_stream_chunk_pieces *pieces, uint32_t K, uint32_t *n, const uint32_t *from)
{
    lda_layout_give_rows(K, n, pieces->num_docs, pieces->docs, pieces->offsets, pieces->slots, from);
}

static double gib(uint64_t bytes)
{
    return bytes / 1073741824.0;
}

/* The largest chunk's room of L's warps split `warps` at a time. */
static uint64_t largest_forced_chunk(const lda_layout *L, uint32_t K, size_t warps)
{
    uint64_t most = 0;
    for (size_t first = 0; first < L->num_warps; first += warps) {
        const size_t end = first + warps < L->num_warps ? first + warps : L->num_warps;
        const uint64_t bytes = lda_stream_chunk_bytes(L, K, first, end);
        most = bytes > most ? bytes : most;
    }
    return most;
}

#define ONLY_COLLAPSED_SPARSE "only --model collapsed --sampler sparse streams its tokens"

const char *lda_stream_refusal_params(const lda_params *p)
{
    if (p->device == LDA_DEVICE_CPU)
        return "tokens are streamed through a GPU, and this run trains on the CPU";
    if (lda_params_model(p) != LDA_MODEL_COLLAPSED ||
        (p->sampler != LDA_SAMPLER_SPARSE && p->sampler != LDA_SAMPLER_AUTO))
        return ONLY_COLLAPSED_SPARSE;
    if (p->num_topics > LDA_ZPLAN_Z_MARKS_MOST_K)
        return "tokens are streamed at K <= 65535 only";
    if (p->refresh > 1)
        return "tokens are streamed with --refresh 1 only";
    if (p->shards > 1 || p->over_ranks)
        return "tokens are streamed on one GPU only";
    return NULL;
}

const char *lda_stream_refusal(const lda_params *p, const lda_zplan *plan)
{
    const char *why = lda_stream_refusal_params(p);
    if (why)
        return why;
    if (plan->kernel != LDA_ZKERNEL_SPARSE || !plan->phi_from_counts)
        return ONLY_COLLAPSED_SPARSE;
    if (!plan->z_marks_changes)
        return "tokens are streamed at K <= 65535 only";
    return NULL;
}

uint64_t lda_stream_pass_bytes(const lda_layout *L, uint32_t K, uint64_t cut_list_entries)
{
    return ((uint64_t)L->vocab_size + 1) * K * sizeof(uint32_t) + 2 * cut_list_entries * sizeof(uint32_t) +
           L->num_cut_docs * sizeof(uint32_t);
}

/* A buffer's bytes for chunks: each of its arrays as large as the largest chunk's (the chunk
 * with the most positions need not be the one with the most list entries: the pieces of cut
 * documents list far more topics than they have tokens). */
static uint64_t buffer_bytes(const lda_layout *L, uint32_t K, const lda_stream_chunk *chunks, size_t n)
{
    uint64_t positions = 0, entries = 0, slots = 0, packed = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t first = chunks[i].first_warp, end = chunks[i].end_warp;
        const uint64_t p = L->warp_offset[end] - L->warp_offset[first], e = chunk_entries(L, K, first, end),
                       h = lda_stream_host_entries(L, K, first, end);
        positions = p > positions ? p : positions;
        entries = e > entries ? e : entries;
        packed = h > packed ? h : packed;
        slots = (end - first) * LDA_WARP > slots ? (end - first) * LDA_WARP : slots;
    }
    return (2 * positions + 2 * entries + slots + packed) * sizeof(uint32_t) + positions * sizeof(uint16_t) +
           (uint64_t)LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN;
}

/* The streamed plan's chunks whose buffers take at most `room` bytes (or its forced warps),
 * their sums, and its line. */
static int chunk_streamed(const lda_layout *L, uint32_t K, uint64_t room, uint64_t free_bytes, lda_stream_plan *plan,
                          lda_error *err)
{
    uint64_t bound = room;
    for (int tries = 0;; tries++) {
        if (lda_stream_chunks(L, K, bound, plan->forced_warps, &plan->chunks, &plan->num_chunks, err))
            return -1;
        plan->chunk_room = buffer_bytes(L, K, plan->chunks, plan->num_chunks);
        if (plan->forced_warps || plan->chunk_room <= room)
            break;
        free(plan->chunks);
        plan->chunks = NULL;
        const uint64_t smaller = (uint64_t)((double)bound * room / plan->chunk_room * 0.99);
        if (tries == 8 || smaller == 0) {
            lda_error_fail(err, "too little device memory to stream the tokens: no chunks fit buffers of %.2f GiB",
                           gib(room));
            return -1;
        }
        bound = smaller;
    }
    plan->free_bytes = free_bytes;
    plan->copy_in = plan->copy_out = 0;
    for (size_t i = 0; i < plan->num_chunks; i++) {
        plan->copy_in += plan->chunks[i].copy_in;
        plan->copy_out += plan->chunks[i].copy_out;
    }
    snprintf(plan->why, sizeof plan->why,
             "tokens streamed from host memory in %zu chunks%s: %.2f GiB needed in device memory, %.2f GiB free%s; "
             "%.2f GiB stay, %u buffers of %.2f GiB; %.2f GiB pinned in host memory; %.2f GiB in and %.2f GiB out an "
             "iteration",
             plan->num_chunks, plan->forced_warps ? " (forced size)" : "", gib(plan->in_memory_bytes),
             gib(free_bytes), plan->mode == LDA_STREAM_ON ? " (streaming on)" : "", gib(plan->resident_bytes),
             LDA_STREAM_BUFFERS, gib(plan->chunk_room), gib(plan->host_bytes), gib(plan->copy_in), gib(plan->copy_out));
    return 0;
}

int lda_stream_plan_make(const lda_layout *L, uint32_t K, lda_stream_mode mode, uint64_t in_memory_bytes,
                         uint64_t cut_list_entries, uint64_t free_bytes, size_t forced_warps, lda_stream_plan *plan,
                         lda_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->in_memory_bytes = in_memory_bytes;
    const int fits = in_memory_bytes <= free_bytes;
    if (mode == LDA_STREAM_OFF || (mode == LDA_STREAM_AUTO && fits)) {
        if (forced_warps && lda_stream_chunks(L, K, UINT64_MAX, forced_warps, &plan->chunks, &plan->num_chunks, err))
            return -1;
        char chunks[64] = "";
        if (forced_warps)
            snprintf(chunks, sizeof chunks, " in %zu chunks (forced size)", plan->num_chunks);
        snprintf(plan->why, sizeof plan->why, "tokens in device memory%s: %.2f GiB needed, %.2f GiB free%s", chunks,
                 gib(in_memory_bytes), gib(free_bytes), mode == LDA_STREAM_OFF ? " (streaming off)" : "");
        return 0;
    }
    const char *refusal = lda_stream_layout_refusal(L);
    if (refusal) {
        lda_error_fail(err, "the tokens cannot be streamed from host memory: %s", refusal);
        return -1;
    }
    const uint64_t all = chunk_payload(L, K, 0, L->num_warps);
    /* the pass counts into its own n[w,k], n[k] (the draws of later chunks read the counts the
       pass began with), and the cut documents' lists as the pass leaves them beside those it began
       with (pieces in several chunks add their changes there) */
    const uint64_t extra = lda_stream_pass_bytes(L, K, cut_list_entries);
    plan->resident_bytes = (in_memory_bytes > all ? in_memory_bytes - all : 0) + extra;
    uint64_t in_all = 0, out_all = 0;
    lda_stream_chunk_copies(L, K, 0, L->num_warps, &in_all, &out_all);
    /* z, the whole documents' lists and the slots' lengths, pinned (the words are the layout's,
       registered), and where each slot's list starts there */
    plan->host_bytes = out_all + ((uint64_t)L->num_slots + 1) * sizeof(uint64_t);
    uint64_t room;
    if (forced_warps)
        room = largest_forced_chunk(L, K, forced_warps);
    else {
        const uint64_t taken = plan->resident_bytes + lda_stream_slack(plan->resident_bytes);
        const uint64_t beside = free_bytes > taken ? free_bytes - taken : 0;
        room = beside / LDA_STREAM_BUFFERS;
        const uint64_t whole = lda_stream_chunk_bytes(L, K, 0, L->num_warps);
        room = room < whole ? room : whole;
    }
    if (plan->resident_bytes + lda_stream_slack(plan->resident_bytes) + LDA_STREAM_BUFFERS * room > free_bytes ||
        room == 0) {
        lda_error_fail(err,
                       "too little device memory to stream the tokens: the word side and the cut documents' "
                       "lists need %.2f GiB, and %u chunk buffers of %.2f GiB, %.2f GiB free",
                       gib(plan->resident_bytes), LDA_STREAM_BUFFERS, gib(room), gib(free_bytes));
        return -1;
    }
    plan->streamed = 1;
    plan->mode = mode;
    plan->forced_warps = forced_warps;
    return chunk_streamed(L, K, room, free_bytes, plan, err);
}

int lda_stream_plan_refit(const lda_layout *L, uint32_t K, uint64_t free_bytes, lda_stream_plan *plan,
                          lda_error *err)
{
    if (!plan->streamed || plan->forced_warps)
        return 0;
    const uint64_t slack = lda_stream_slack(plan->resident_bytes);
    const uint64_t whole = lda_stream_chunk_bytes(L, K, 0, L->num_warps);
    uint64_t room = free_bytes > slack ? (free_bytes - slack) / LDA_STREAM_BUFFERS : 0;
    room = room < whole ? room : whole;
    if (room == 0 || room < plan->chunk_room / 64) { /* not a sixty-fourth of the planned buffers */
        lda_error_fail(err,
                       "too little device memory to stream the tokens: %.2f GiB free once the word side and the cut "
                       "documents' lists are allocated, for %u chunk buffers",
                       gib(free_bytes), LDA_STREAM_BUFFERS);
        return -1;
    }
    if (room >= plan->chunk_room)
        return 0;
    free(plan->chunks);
    plan->chunks = NULL;
    plan->num_chunks = 0;
    return chunk_streamed(L, K, room, plan->free_bytes, plan, err);
}

void lda_stream_plan_free(lda_stream_plan *plan)
{
    free(plan->chunks);
    plan->chunks = NULL;
    plan->num_chunks = 0;
}
