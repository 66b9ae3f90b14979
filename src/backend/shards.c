/* shards.c — splitting a layout's warps into shards, and a shard's own layout; see shards.h. */
#include "backend/shards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "util/memory.h"

/* Tokens before each warp of L (num_warps + 1 entries, malloc'ed), for a split of `count` shards. */
static uint64_t *tokens_before(const lda_layout *L, uint32_t count, lda_error *err)
{
    const size_t W = L->num_warps;
    if (count == 0) {
        lda_error_fail(err, "internal error: no shards");
        return NULL;
    }
    uint64_t *before = lda_malloc_array(W + 1, sizeof *before, "shards", err);
    if (!before)
        return NULL;
    before[0] = 0;
    for (size_t q = 0; q < W; q++) {
        before[q + 1] = before[q];
        for (uint32_t r = 0; r < LDA_WARP; r++)
            before[q + 1] += L->slot_len[q * LDA_WARP + r];
    }
    return before;
}

int lda_shard_plan(const lda_layout *L, uint32_t count, lda_shard *out, lda_error *err)
{
    const size_t W = L->num_warps;
    uint64_t *before = tokens_before(L, count, err);
    if (!before)
        return -1;
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
        out[g] = (lda_shard){prev, next, before[next] - before[prev], 0};
        prev = next;
    }
    free(before);
    return 0;
}

/* The greedy cut under `bound`: from warp `first`, the end of a shard of at most bound bytes (rest
 * and its warps' parts), at least one warp and at most `last`. */
static size_t cut_end(const uint64_t *per_warp, uint64_t rest, uint64_t bound, size_t first, size_t last)
{
    size_t end = first + (first < last);
    for (uint64_t bytes = rest + (first < last ? per_warp[first] : 0); end < last && bytes + per_warp[end] <= bound;)
        bytes += per_warp[end++];
    return end;
}

/* Shards the greedy cut under `bound` takes for all W warps (each at least one warp). */
static size_t cuts_needed(const uint64_t *per_warp, uint64_t rest, uint64_t bound, size_t W)
{
    size_t n = 0;
    for (size_t q = 0; q < W; n++)
        q = cut_end(per_warp, rest, bound, q, W);
    return n;
}

int lda_shard_plan_bytes(const lda_layout *L, const uint64_t *per_warp, uint64_t rest, uint32_t count,
                         lda_shard *out, lda_error *err)
{
    const size_t W = L->num_warps;
    uint64_t *before = tokens_before(L, count, err);
    if (!before)
        return -1;
    /* every split has a shard holding the heaviest warp; one shard holds them all */
    uint64_t lo = rest, hi = rest;
    for (size_t q = 0; q < W; q++) {
        lo = rest + per_warp[q] > lo ? rest + per_warp[q] : lo;
        hi += per_warp[q];
    }
    while (lo < hi) { /* the smallest bound the greedy cut meets with `count` shards */
        const uint64_t mid = lo + (hi - lo) / 2;
        if (cuts_needed(per_warp, rest, mid, W) <= count)
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t prev = 0;
    for (uint32_t g = 0; g < count; g++) { /* each as long as the bound allows, a warp left for each after it */
        const size_t after = count - 1 - g, last = W - prev > after ? W - after : prev + (prev < W);
        const size_t next = g + 1 == count ? W : cut_end(per_warp, rest, lo, prev, last);
        out[g] = (lda_shard){prev, next, before[next] - before[prev], 0};
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

/* What the shards of L are weighed with: m, each word's tokens in L (a shard's layout sizes the
 * sparse draw's word lists by them, as the sharded backend's do: layout.h), and the sizing's part
 * of each warp (made when first needed; rest UINT64_MAX where it cannot be known). */
typedef struct {
    const lda_layout *L;
    const lda_shard_memory *m;
    uint64_t *word_tokens, *per_warp, rest;
} weigher;

static void weigher_free(weigher *w)
{
    free(w->word_tokens);
    free(w->per_warp);
}

/* The device bytes of each of the `count` shards into out[g].bytes; the largest. */
static int size_shards(weigher *w, lda_shard *out, uint32_t count, uint64_t *largest, lda_error *err)
{
    if (!w->word_tokens) {
        if (!(w->word_tokens = lda_malloc_array((size_t)w->L->vocab_size + 1, sizeof *w->word_tokens, "shards", err)))
            return -1;
        lda_sparse_word_tokens(w->L, w->word_tokens);
    }
    *largest = 0;
    for (uint32_t g = 0; g < count; g++) {
        lda_layout *S = lda_layout_warps(w->L, out[g].first_warp, out[g].end_warp, err);
        if (!S)
            return -1;
        S->corpus_word_tokens = w->word_tokens;
        out[g].bytes = w->m->bytes(S, w->m->params);
        *largest = out[g].bytes > *largest ? out[g].bytes : *largest;
        lda_layout_free(S);
    }
    return 0;
}

/* The split of lda_shard_choose, with the weigher's state kept between calls. */
static int choose(weigher *w, uint32_t count, lda_shard *out, lda_shard_choice *choice, lda_error *err)
{
    *choice = (lda_shard_choice){LDA_SHARDS_BY_TOKENS, 0};
    if (lda_shard_plan(w->L, count, out, err))
        return -1;
    if (!w->m)
        return 0;
    if (size_shards(w, out, count, &choice->token_largest, err))
        return -1;
    if (choice->token_largest <= w->m->per_device || choice->token_largest == UINT64_MAX)
        return 0; /* the work balanced: memory does not bind (or cannot be known) */
    if (!w->per_warp) {
        if (!(w->per_warp = lda_malloc_array(w->L->num_warps + 1, sizeof *w->per_warp, "shards", err)))
            return -1;
        w->rest = w->m->warp_bytes(w->L, w->m->params, w->per_warp);
    }
    if (w->rest == UINT64_MAX)
        return 0; /* a warp's part cannot be known: by tokens */
    lda_shard *by_memory = lda_malloc_array(count, sizeof *by_memory, "shards", err);
    uint64_t largest = 0;
    if (!by_memory || lda_shard_plan_bytes(w->L, w->per_warp, w->rest, count, by_memory, err) ||
        size_shards(w, by_memory, count, &largest, err)) {
        free(by_memory);
        return -1;
    }
    if (largest < choice->token_largest) {
        memcpy(out, by_memory, count * sizeof *out);
        choice->balance = LDA_SHARDS_BY_MEMORY;
    }
    free(by_memory);
    return 0;
}

int lda_shard_choose(const lda_layout *L, uint32_t count, const lda_shard_memory *m, lda_shard *out,
                     lda_shard_choice *choice, lda_error *err)
{
    weigher w = {L, m, NULL, NULL, 0};
    const int rc = choose(&w, count, out, choice, err);
    weigher_free(&w);
    return rc;
}

void lda_shard_describe(const lda_shard *shards, uint32_t count, const lda_shard_choice *choice, uint64_t per_device,
                        char *buf, size_t size)
{
    char a[32], b[32];
    size_t used = 0;
#define PUT(...) \
    (used += (size_t)snprintf(buf + (used < size ? used : size), used < size ? size - used : 0, __VA_ARGS__))
    if (choice->balance == LDA_SHARDS_BY_MEMORY && per_device)
        PUT("by memory (by tokens the largest shard would need %s, %s fit a GPU)",
            lda_size_text(choice->token_largest, a), lda_size_text(per_device, b));
    else if (choice->balance == LDA_SHARDS_BY_MEMORY)
        PUT("by memory (by tokens the largest shard would need %s)", lda_size_text(choice->token_largest, a));
    else
        PUT("by tokens");
    for (uint32_t g = 0; g < count; g++) {
        PUT("%s %u: %llu tokens", g ? ";" : ":", g, (unsigned long long)shards[g].tokens);
        if (shards[g].bytes && shards[g].bytes != UINT64_MAX)
            PUT(", %s", lda_size_text(shards[g].bytes, a));
    }
#undef PUT
}

int lda_shards_needed(const lda_layout *L, uint32_t from, const lda_shard_memory *m, uint32_t *needed,
                      uint64_t *largest_bytes, lda_error *err)
{
    weigher w = {L, m, NULL, NULL, 0};
    lda_shard shards[LDA_MAX_SHARDS];
    *needed = 0;
    for (uint32_t n = from ? from : 1; n <= LDA_MAX_SHARDS; n++) {
        lda_shard_choice choice;
        uint64_t largest = 0;
        if (choose(&w, n, shards, &choice, err)) {
            weigher_free(&w);
            return -1;
        }
        for (uint32_t g = 0; g < n; g++)
            largest = shards[g].bytes > largest ? shards[g].bytes : largest;
        if (largest <= m->per_device) {
            *needed = n;
            if (largest_bytes)
                *largest_bytes = largest;
            break;
        }
    }
    weigher_free(&w);
    return 0;
}
