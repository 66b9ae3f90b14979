/* layout.c — sorting documents into warps and interleaving their tokens; see layout.h. */
#include "backend/layout.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t len;
    uint32_t doc;
} doc_key;

/* Longest first; equal lengths keep the input order, so the layout is deterministic. */
static int by_length_desc(const void *a, const void *b)
{
    const doc_key *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return (x->doc > y->doc) - (x->doc < y->doc);
}

void lda_layout_free(lda_layout *L)
{
    if (!L)
        return;
    free(L->slot_doc);
    free(L->slot_len);
    free(L->slot_token_base);
    free(L->doc_slot);
    free(L->warp_len);
    free(L->warp_offset);
    free(L->words);
    free(L);
}

static int check_sizes(const corpus *c, lda_error *err)
{
    if (c->num_docs >= LDA_NO_DOC) {
        lda_error_input(err, "too many documents (%zu; at most %u)", c->num_docs, LDA_NO_DOC - 1);
        return -1;
    }
    for (size_t d = 0; d < c->num_docs; d++) {
        if (c->doc_offsets[d + 1] - c->doc_offsets[d] > UINT32_MAX / LDA_WARP) {
            lda_error_input(err, "document %zu is too long (%zu tokens)", c->input_index[d] + 1,
                            c->doc_offsets[d + 1] - c->doc_offsets[d]);
            return -1;
        }
    }
    return 0;
}

static void fill_words(lda_layout *L, const corpus *c)
{
    for (size_t s = 0; s < L->num_slots; s++) {
        uint32_t len = L->slot_len[s];
        size_t q = s / LDA_WARP;
        const uint32_t *doc_words = len ? c->words + c->doc_offsets[L->slot_doc[s]] : NULL;
        for (uint32_t i = 0; i < L->warp_len[q]; i++)
            L->words[lda_layout_pos(L, s, i)] = len ? doc_words[i < len ? i : len - 1] : 0;
    }
}

/* Allocates a layout of num_slots slots for c (everything but the token arrays). */
static lda_layout *layout_alloc(const corpus *c, size_t num_slots, lda_error *err)
{
    if (check_sizes(c, err))
        return NULL;
    lda_layout *L = lda_calloc(1, sizeof *L, "layout", err);
    if (!L)
        return NULL;
    L->num_docs = c->num_docs;
    L->num_tokens = c->num_tokens;
    L->vocab_size = c->vocab_size;
    L->num_slots = num_slots;
    L->num_warps = L->num_slots / LDA_WARP;
    if (!(L->slot_doc = lda_malloc_array(L->num_slots, sizeof *L->slot_doc, "layout", err)) ||
        !(L->slot_len = lda_malloc_array(L->num_slots, sizeof *L->slot_len, "layout", err)) ||
        !(L->slot_token_base = lda_malloc_array(L->num_slots, sizeof *L->slot_token_base, "layout", err)) ||
        !(L->doc_slot = lda_malloc_array(c->num_docs ? c->num_docs : 1, sizeof *L->doc_slot, "layout", err)) ||
        !(L->warp_len = lda_malloc_array(L->num_warps ? L->num_warps : 1, sizeof *L->warp_len, "layout", err)) ||
        !(L->warp_offset = lda_malloc_array(L->num_warps + 1, sizeof *L->warp_offset, "layout", err))) {
        lda_layout_free(L);
        return NULL;
    }
    return L;
}

/* Given slot_doc, fills lengths, token bases, warp extents and the interleaved words. */
static int layout_finish(lda_layout *L, const corpus *c, lda_error *err)
{
    for (size_t s = 0; s < L->num_slots; s++) {
        uint32_t d = L->slot_doc[s];
        int real = d != LDA_NO_DOC;
        L->slot_len[s] = real ? (uint32_t)(c->doc_offsets[d + 1] - c->doc_offsets[d]) : 0;
        L->slot_token_base[s] = real ? c->doc_offsets[d] : 0;
        if (real)
            L->doc_slot[d] = (uint32_t)s;
    }
    L->warp_offset[0] = 0;
    for (size_t q = 0; q < L->num_warps; q++) {
        uint32_t longest = 0;
        for (uint32_t r = 0; r < LDA_WARP; r++)
            longest = L->slot_len[q * LDA_WARP + r] > longest ? L->slot_len[q * LDA_WARP + r] : longest;
        L->warp_len[q] = longest;
        L->warp_offset[q + 1] = L->warp_offset[q] + (size_t)L->warp_len[q] * LDA_WARP;
    }
    L->num_positions = L->warp_offset[L->num_warps];
    if (!(L->words = lda_malloc_array(L->num_positions ? L->num_positions : 1, sizeof *L->words,
                                      "interleaved words", err)))
        return -1;
    fill_words(L, c);
    return 0;
}

lda_layout *lda_layout_build(const corpus *c, lda_error *err)
{
    lda_layout *L = layout_alloc(c, (c->num_docs + LDA_WARP - 1) / LDA_WARP * LDA_WARP, err);
    doc_key *keys = NULL;
    if (!L)
        return NULL;
    if (!(keys = lda_malloc_array(c->num_docs, sizeof *keys, "layout sort keys", err)))
        goto fail;
    for (size_t d = 0; d < c->num_docs; d++) {
        keys[d].len = (uint32_t)(c->doc_offsets[d + 1] - c->doc_offsets[d]);
        keys[d].doc = (uint32_t)d;
    }
    qsort(keys, c->num_docs, sizeof *keys, by_length_desc);
    for (size_t s = 0; s < L->num_slots; s++) /* sorted: lane 0 of a warp is its longest */
        L->slot_doc[s] = s < c->num_docs ? keys[s].doc : LDA_NO_DOC;
    if (layout_finish(L, c, err))
        goto fail;
    free(keys);
    return L;
fail:
    free(keys);
    lda_layout_free(L);
    return NULL;
}

lda_layout *lda_layout_build_like(const corpus *c, const lda_layout *like, lda_error *err)
{
    if (c->num_docs != like->num_docs) {
        lda_error_fail(err, "internal error: %zu documents laid out like %zu", c->num_docs, like->num_docs);
        return NULL;
    }
    lda_layout *L = layout_alloc(c, like->num_slots, err);
    if (!L)
        return NULL;
    memcpy(L->slot_doc, like->slot_doc, L->num_slots * sizeof *L->slot_doc);
    if (layout_finish(L, c, err)) {
        lda_layout_free(L);
        return NULL;
    }
    return L;
}

int lda_word_index_build(const lda_layout *L, lda_word_index *out, lda_error *err)
{
    memset(out, 0, sizeof *out);
    size_t *fill = NULL;
    if (!(out->offsets = lda_calloc((size_t)L->vocab_size + 1, sizeof *out->offsets, "word index", err)) ||
        !(out->positions = lda_malloc_array(L->num_tokens, sizeof *out->positions, "word index", err)) ||
        !(fill = lda_malloc_array(L->vocab_size, sizeof *fill, "word index", err))) {
        lda_word_index_free(out);
        return -1;
    }
    /* Counting sort by word, positions in increasing order within a word. */
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            out->offsets[L->words[lda_layout_pos(L, s, i)] + 1]++;
    for (uint32_t w = 0; w < L->vocab_size; w++)
        out->offsets[w + 1] += out->offsets[w];
    memcpy(fill, out->offsets, L->vocab_size * sizeof *fill);
    for (size_t q = 0; q < L->num_warps; q++)
        for (uint32_t i = 0; i < L->warp_len[q]; i++)
            for (uint32_t r = 0; r < LDA_WARP; r++) {
                size_t s = q * LDA_WARP + r;
                if (i < L->slot_len[s]) {
                    size_t pos = lda_layout_pos(L, s, i);
                    out->positions[fill[L->words[pos]]++] = pos;
                }
            }
    free(fill);
    return 0;
}

void lda_word_index_free(lda_word_index *wi)
{
    free(wi->offsets);
    free(wi->positions);
    wi->offsets = NULL;
    wi->positions = NULL;
}
