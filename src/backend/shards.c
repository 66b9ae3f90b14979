/* shards.c — splitting a layout's warps into shards, and a shard's own layout; see shards.h. */
#include "backend/shards.h"

#include <stdlib.h>
#include <string.h>

int lda_shard_plan(const lda_layout *L, uint32_t count, lda_shard *out, lda_error *err)
{
    const size_t W = L->num_warps;
    if (count == 0) {
        lda_error_fail(err, "internal error: no shards");
        return -1;
    }
    uint64_t *before = lda_malloc_array(W + 1, sizeof *before, "shards", err); /* tokens before warp q */
    if (!before)
        return -1;
    before[0] = 0;
    for (size_t q = 0; q < W; q++) {
        before[q + 1] = before[q];
        for (uint32_t r = 0; r < LDA_WARP; r++)
            before[q + 1] += L->slot_len[q * LDA_WARP + r];
    }
    const uint64_t total = before[W];
    size_t prev = 0;
    for (uint32_t g = 0; g < count; g++) {
        size_t next = W;
        if (g + 1 < count) { /* the boundary nearest to T·(g+1)/count, the earlier on a tie */
            const uint64_t target = total / count * (g + 1) + total % count * (g + 1) / count;
            size_t q = prev;
            while (q < W && before[q + 1] <= target)
                q++;
            next = before[q] <= target && q < W && before[q + 1] - target < target - before[q] ? q + 1 : q;
        }
        out[g] = (lda_shard){prev, next, before[next] - before[prev]};
        prev = next;
    }
    free(before);
    return 0;
}

/* Whether cut document c of L has a piece in slots [s0, s1), and all of them. */
static void cut_doc_inside(const lda_layout *L, size_t c, size_t s0, size_t s1, int *some, int *all)
{
    *some = 0;
    *all = 1;
    for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++) {
        const int in = L->cut_slots[i] >= s0 && L->cut_slots[i] < s1;
        *some |= in;
        *all &= in;
    }
}

/* The cut documents of slots s0 .. s0 + S->num_slots - 1: those wholly inside into cut_*, the
 * others with pieces inside into shared_* (only those pieces), slots renumbered from s0. */
static int shard_cut_docs(lda_layout *S, const lda_layout *L, size_t s0, lda_error *err)
{
    const size_t s1 = s0 + S->num_slots;
    size_t whole = 0, whole_pieces = 0, shared = 0, shared_pieces = 0;
    int some, all;
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        cut_doc_inside(L, c, s0, s1, &some, &all);
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++) {
            const int in = L->cut_slots[i] >= s0 && L->cut_slots[i] < s1;
            whole_pieces += all;
            shared_pieces += some && !all && in;
        }
        whole += all;
        shared += some && !all;
    }
    S->num_cut_docs = whole;
    S->num_shared_docs = shared;
    if (!(S->cut_offsets = lda_calloc(whole + 1, sizeof *S->cut_offsets, "shard layout", err)) ||
        !(S->cut_slots = lda_malloc_array(whole_pieces + 1, sizeof *S->cut_slots, "shard layout", err)) ||
        !(S->shared_offsets = lda_calloc(shared + 1, sizeof *S->shared_offsets, "shard layout", err)) ||
        !(S->shared_slots = lda_malloc_array(shared_pieces + 1, sizeof *S->shared_slots, "shard layout", err)) ||
        !(S->shared_row = lda_malloc_array(shared + 1, sizeof *S->shared_row, "shard layout", err)))
        return -1;
    size_t w = 0, wi = 0, h = 0, hi = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        cut_doc_inside(L, c, s0, s1, &some, &all);
        if (!some)
            continue;
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++) {
            const size_t s = L->cut_slots[i];
            if (all)
                S->cut_slots[wi++] = (uint32_t)(s - s0);
            else if (s >= s0 && s < s1)
                S->shared_slots[hi++] = (uint32_t)(s - s0);
        }
        if (all) {
            S->cut_offsets[++w] = wi;
        } else {
            S->shared_row[h] = (uint32_t)c;
            S->shared_offsets[++h] = hi;
        }
    }
    return 0;
}

#define COPY_RANGE(field, from, n)                                                                        \
    ((S->field = lda_malloc_array((n) ? (n) : 1, sizeof *S->field, "shard layout", err)) != NULL &&      \
     (memcpy(S->field, L->field + (from), (n) * sizeof *S->field), 1))

lda_layout *lda_layout_warps(const lda_layout *L, size_t first, size_t end, lda_error *err)
{
    if (first > end || end > L->num_warps) {
        lda_error_fail(err, "internal error: warps %zu..%zu of %zu", first, end, L->num_warps);
        return NULL;
    }
    lda_layout *S = lda_calloc(1, sizeof *S, "shard layout", err);
    if (!S)
        return NULL;
    const size_t s0 = first * LDA_WARP, p0 = L->warp_offset[first];
    S->num_warps = end - first;
    S->num_slots = S->num_warps * LDA_WARP;
    S->first_warp = L->first_warp + first;
    S->num_positions = L->warp_offset[end] - p0;
    S->vocab_size = L->vocab_size;
    S->piece_length = L->piece_length;
    if (!COPY_RANGE(slot_doc, s0, S->num_slots) || !COPY_RANGE(slot_len, s0, S->num_slots) ||
        !COPY_RANGE(slot_doc_len, s0, S->num_slots) || !COPY_RANGE(slot_piece, s0, S->num_slots) ||
        !COPY_RANGE(slot_token_base, s0, S->num_slots) || !COPY_RANGE(warp_len, first, S->num_warps) ||
        !COPY_RANGE(words, p0, S->num_positions) ||
        !(S->warp_offset = lda_malloc_array(S->num_warps + 1, sizeof *S->warp_offset, "shard layout", err)) ||
        shard_cut_docs(S, L, s0, err)) {
        lda_layout_free(S);
        return NULL;
    }
    for (size_t q = 0; q <= S->num_warps; q++)
        S->warp_offset[q] = L->warp_offset[first + q] - p0;
    for (size_t s = 0; s < S->num_slots; s++) {
        S->num_tokens += S->slot_len[s];
        S->num_pieces += S->slot_doc[s] != LDA_NO_DOC;
        S->num_docs += S->slot_doc[s] != LDA_NO_DOC && S->slot_piece[s] == 0;
    }
    return S;
}

void lda_shard_doc_sums(const lda_layout *S, uint32_t K, const uint32_t *n, size_t rows, uint32_t *sums)
{
    memset(sums, 0, rows * K * sizeof *sums);
    lda_layout_add_rows(K, n, S->num_shared_docs, S->shared_row, S->shared_offsets, S->shared_slots, sums);
}

void lda_shard_doc_spread(const lda_layout *S, uint32_t K, uint32_t *n, const uint32_t *totals)
{
    lda_layout_give_rows(K, n, S->num_shared_docs, S->shared_row, S->shared_offsets, S->shared_slots, totals);
}

/* The largest shard of L split `count` ways, by bytes_of. */
static int largest_shard_bytes(const lda_layout *L, const lda_params *p, uint32_t count, lda_device_bytes_fn bytes_of,
                               uint64_t *out, lda_error *err)
{
    lda_shard shards[LDA_MAX_SHARDS];
    if (lda_shard_plan(L, count, shards, err))
        return -1;
    *out = 0;
    for (uint32_t g = 0; g < count; g++) {
        lda_layout *S = lda_layout_warps(L, shards[g].first_warp, shards[g].end_warp, err);
        if (!S)
            return -1;
        const uint64_t bytes = bytes_of(S, p);
        *out = bytes > *out ? bytes : *out;
        lda_layout_free(S);
    }
    return 0;
}

int lda_shards_needed(const lda_layout *L, const lda_params *p, uint32_t from, uint64_t per_device,
                      lda_device_bytes_fn bytes_of, uint32_t *needed, uint64_t *largest_bytes, lda_error *err)
{
    *needed = 0;
    for (uint32_t n = from ? from : 1; n <= LDA_MAX_SHARDS; n++) {
        uint64_t largest;
        if (largest_shard_bytes(L, p, n, bytes_of, &largest, err))
            return -1;
        if (largest <= per_device) {
            *needed = n;
            if (largest_bytes)
                *largest_bytes = largest;
            return 0;
        }
    }
    return 0;
}
