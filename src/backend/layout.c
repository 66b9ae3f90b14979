/* layout.c — sorting documents into warps and interleaving their tokens; see layout.h. */
#include "backend/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sparse_draw.h" /* LDA_SPARSE_REUSE_AFTER */

/* A piece of a document (the whole document when it is not cut). */
typedef struct {
    uint32_t len;
    uint32_t doc;
    uint32_t piece;
    uint32_t start; /* its first token within the document */
} piece_key;

/* Longest first; equal lengths keep the input order (document, then piece), so the layout
 * is deterministic. */
static int by_length_desc(const void *a, const void *b)
{
    const piece_key *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    if (x->doc != y->doc)
        return x->doc > y->doc ? 1 : -1;
    return (x->piece > y->piece) - (x->piece < y->piece);
}

void lda_layout_free(lda_layout *L)
{
    if (!L)
        return;
    free(L->slot_doc);
    free(L->slot_len);
    free(L->slot_doc_len);
    free(L->slot_piece);
    free(L->slot_token_base);
    free(L->token_shift);
    free(L->doc_slot);
    free(L->cut_offsets);
    free(L->cut_slots);
    free(L->shared_offsets);
    free(L->shared_slots);
    free(L->shared_row);
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
        for (uint32_t i = 0; i < L->warp_len[q]; i++) /* past its end a slot repeats its last word */
            L->words[lda_layout_pos(L, s, i)] =
                len ? c->words[lda_layout_corpus_token(L, L->slot_token_base[s] + (i < len ? i : len - 1))] : 0;
    }
}

static int by_key(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether document d is laid out by word: it is long enough (the sparse draw carries its sums
 * along a run only on lists of over LDA_SPARSE_REUSE_AFTER topics, which a document of no more
 * tokens seldom has, so shorter ones keep the corpus's order, and the models of earlier
 * releases), and its tokens are not by word already (a bag-of-words file's are). */
static int needs_word_order(const corpus *c, size_t d)
{
    const size_t len = c->doc_offsets[d + 1] - c->doc_offsets[d];
    const uint32_t *w = c->words + c->doc_offsets[d];
    if (len <= LDA_SPARSE_REUSE_AFTER)
        return 0;
    for (size_t i = 1; i < len; i++)
        if (w[i] < w[i - 1])
            return 1;
    return 0;
}

/* Each such document's tokens in the layout's order: by word, ties in the corpus's order
 * (token_shift, left NULL when there is none), O(n log n) a document. */
static int order_by_word(lda_layout *L, const corpus *c, lda_error *err)
{
    size_t longest = 0; /* of the documents to order; none: 0 */
    for (size_t d = 0; d < c->num_docs; d++)
        if (needs_word_order(c, d) && c->doc_offsets[d + 1] - c->doc_offsets[d] > longest)
            longest = c->doc_offsets[d + 1] - c->doc_offsets[d];
    if (!longest)
        return 0;
    uint64_t *keys = lda_malloc_array(longest, sizeof *keys, "layout order", err);
    if (!keys || !(L->token_shift = lda_calloc(c->num_tokens, sizeof *L->token_shift, "layout order", err))) {
        free(keys);
        return -1;
    }
    for (size_t d = 0; d < c->num_docs; d++) {
        const size_t start = c->doc_offsets[d], len = c->doc_offsets[d + 1] - start;
        const uint32_t *w = c->words + start;
        if (!needs_word_order(c, d))
            continue; /* no shift */
        for (size_t i = 0; i < len; i++) /* (word, position): a document is at most UINT32_MAX / 32 tokens */
            keys[i] = (uint64_t)w[i] << 32 | i;
        qsort(keys, len, sizeof *keys, by_key);
        for (size_t i = 0; i < len; i++)
            L->token_shift[start + i] = (int32_t)((int64_t)(uint32_t)keys[i] - (int64_t)i);
    }
    free(keys);
    return 0;
}

/* Allocates a layout of num_slots slots for c (everything but the token arrays and the cut
 * documents' lists), every slot empty. */
static lda_layout *layout_alloc(const corpus *c, size_t num_slots, lda_error *err)
{
    lda_layout *L = lda_calloc(1, sizeof *L, "layout", err);
    if (!L)
        return NULL;
    L->num_docs = c->num_docs;
    L->num_tokens = c->num_tokens;
    L->vocab_size = c->vocab_size;
    L->num_slots = num_slots;
    L->num_warps = L->num_slots / LDA_WARP;
    if (!(L->slot_doc = lda_malloc_array(L->num_slots, sizeof *L->slot_doc, "layout", err)) ||
        !(L->slot_len = lda_calloc(L->num_slots, sizeof *L->slot_len, "layout", err)) ||
        !(L->slot_doc_len = lda_calloc(L->num_slots, sizeof *L->slot_doc_len, "layout", err)) ||
        !(L->slot_piece = lda_calloc(L->num_slots, sizeof *L->slot_piece, "layout", err)) ||
        !(L->slot_token_base = lda_calloc(L->num_slots, sizeof *L->slot_token_base, "layout", err)) ||
        !(L->cut_offsets = lda_calloc(1, sizeof *L->cut_offsets, "layout", err)) ||
        !(L->doc_slot = lda_malloc_array(c->num_docs ? c->num_docs : 1, sizeof *L->doc_slot, "layout", err)) ||
        !(L->warp_len = lda_malloc_array(L->num_warps ? L->num_warps : 1, sizeof *L->warp_len, "layout", err)) ||
        !(L->warp_offset = lda_malloc_array(L->num_warps + 1, sizeof *L->warp_offset, "layout", err))) {
        lda_layout_free(L);
        return NULL;
    }
    for (size_t s = 0; s < num_slots; s++)
        L->slot_doc[s] = LDA_NO_DOC;
    return L;
}

static uint32_t doc_len(const corpus *c, size_t d)
{
    return (uint32_t)(c->doc_offsets[d + 1] - c->doc_offsets[d]);
}

/* Given each slot's piece, fills warp extents and the interleaved words. */
static int layout_finish(lda_layout *L, const corpus *c, lda_error *err)
{
    if (order_by_word(L, c, err))
        return -1;
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

/* The pieces of every document, and how many of them. */
static piece_key *cut_into_pieces(const corpus *c, uint32_t piece_length, size_t *count, lda_error *err)
{
    size_t n = 0;
    for (size_t d = 0; d < c->num_docs; d++)
        n += piece_length && doc_len(c, d) > piece_length ? (doc_len(c, d) + piece_length - 1) / piece_length : 1;
    if (n >= LDA_NO_DOC) {
        lda_error_input(err, "too many documents and pieces (%zu; at most %u)", n, LDA_NO_DOC - 1);
        return NULL;
    }
    piece_key *keys = lda_malloc_array(n ? n : 1, sizeof *keys, "layout sort keys", err);
    if (!keys)
        return NULL;
    size_t k = 0;
    for (size_t d = 0; d < c->num_docs; d++) {
        const uint32_t len = doc_len(c, d);
        const uint32_t pieces = piece_length && len > piece_length ? (len + piece_length - 1) / piece_length : 1;
        /* near-equal pieces: the first len % pieces of them one token longer */
        for (uint32_t p = 0, start = 0; p < pieces; p++) {
            const uint32_t plen = len / pieces + (p < len % pieces);
            keys[k++] = (piece_key){plen, (uint32_t)d, p, start};
            start += plen;
        }
    }
    *count = n;
    return keys;
}

/* The lists of the cut documents' slots, first piece first (slot_doc, slot_piece set). */
static int list_cut_docs(lda_layout *L, lda_error *err)
{
    size_t cut = 0, pieces = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_doc[s] != LDA_NO_DOC && L->slot_doc_len[s] != L->slot_len[s]) {
            pieces++;
            cut += L->slot_piece[s] == 0;
        }
    free(L->cut_offsets);
    L->num_cut_docs = cut;
    if (!(L->cut_offsets = lda_calloc(cut + 1, sizeof *L->cut_offsets, "layout", err)) ||
        !(L->cut_slots = lda_malloc_array(pieces ? pieces : 1, sizeof *L->cut_slots, "layout", err)))
        return -1;
    /* cut document number of each document (in first-piece order), then a counting sort */
    uint32_t *cut_index = lda_malloc_array(L->num_docs ? L->num_docs : 1, sizeof *cut_index, "layout", err);
    if (!cut_index)
        return -1;
    size_t next = 0;
    for (size_t d = 0; d < L->num_docs; d++) {
        const size_t s = L->doc_slot[d];
        cut_index[d] = L->slot_doc_len[s] != L->slot_len[s] ? (uint32_t)next++ : LDA_NO_DOC;
    }
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_doc[s] != LDA_NO_DOC && cut_index[L->slot_doc[s]] != LDA_NO_DOC)
            L->cut_offsets[cut_index[L->slot_doc[s]] + 1]++;
    for (size_t i = 0; i < cut; i++)
        L->cut_offsets[i + 1] += L->cut_offsets[i];
    for (size_t s = 0; s < L->num_slots; s++) {
        const uint32_t d = L->slot_doc[s];
        if (d != LDA_NO_DOC && cut_index[d] != LDA_NO_DOC)
            L->cut_slots[L->cut_offsets[cut_index[d]] + L->slot_piece[s]] = (uint32_t)s;
    }
    free(cut_index);
    return 0;
}

lda_layout *lda_layout_build(const corpus *c, uint32_t piece_length, lda_error *err)
{
    size_t n = 0;
    piece_key *keys = check_sizes(c, err) ? NULL : cut_into_pieces(c, piece_length, &n, err);
    lda_layout *L = keys ? layout_alloc(c, (n + LDA_WARP - 1) / LDA_WARP * LDA_WARP, err) : NULL;
    if (!L) {
        free(keys);
        return NULL;
    }
    L->num_pieces = n;
    L->piece_length = piece_length;
    qsort(keys, n, sizeof *keys, by_length_desc);
    for (size_t s = 0; s < n; s++) { /* sorted: lane 0 of a warp is its longest */
        const uint32_t d = keys[s].doc;
        L->slot_doc[s] = d;
        L->slot_len[s] = keys[s].len;
        L->slot_doc_len[s] = doc_len(c, d);
        L->slot_piece[s] = keys[s].piece;
        L->slot_token_base[s] = c->doc_offsets[d] + keys[s].start;
        if (keys[s].piece == 0)
            L->doc_slot[d] = (uint32_t)s;
    }
    free(keys);
    if (list_cut_docs(L, err) || layout_finish(L, c, err)) {
        lda_layout_free(L);
        return NULL;
    }
    return L;
}

lda_layout *lda_layout_build_like(const corpus *c, const lda_layout *like, lda_error *err)
{
    if (c->num_docs != like->num_docs) {
        lda_error_fail(err, "internal error: %zu documents laid out like %zu", c->num_docs, like->num_docs);
        return NULL;
    }
    lda_layout *L = check_sizes(c, err) ? NULL : layout_alloc(c, like->num_slots, err);
    if (!L)
        return NULL;
    L->num_pieces = c->num_docs;
    for (size_t d = 0; d < c->num_docs; d++) { /* whole, in the slot of the first piece */
        const size_t s = like->doc_slot[d];
        L->slot_doc[s] = (uint32_t)d;
        L->slot_len[s] = L->slot_doc_len[s] = doc_len(c, d);
        L->slot_token_base[s] = c->doc_offsets[d];
        L->doc_slot[d] = (uint32_t)s;
    }
    if (list_cut_docs(L, err) || layout_finish(L, c, err)) {
        lda_layout_free(L);
        return NULL;
    }
    return L;
}

void lda_layout_join_cut_counts(const lda_layout *L, uint32_t K, uint32_t *n, uint32_t *base)
{
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        const uint32_t *slots = L->cut_slots + L->cut_offsets[c];
        const size_t pieces = L->cut_offsets[c + 1] - L->cut_offsets[c];
        uint32_t *b = base ? base + c * K : NULL;
        for (uint32_t k = 0; k < K; k++) {
            const uint32_t before = b ? b[k] : 0;
            uint32_t total = before;
            for (size_t p = 0; p < pieces; p++)
                total += n[(size_t)slots[p] * K + k] - before;
            for (size_t p = 0; p < pieces; p++)
                n[(size_t)slots[p] * K + k] = total;
            if (b)
                b[k] = total;
        }
    }
}

void lda_layout_add_rows(uint32_t K, const uint32_t *n, size_t groups, const uint32_t *rows, const size_t *offsets,
                         const uint32_t *slots, uint32_t *to)
{
    for (size_t j = 0; j < groups; j++) {
        uint32_t *sum = to + (size_t)rows[j] * K;
        for (size_t i = offsets[j]; i < offsets[j + 1]; i++)
            for (uint32_t k = 0; k < K; k++)
                sum[k] += n[(size_t)slots[i] * K + k];
    }
}

void lda_layout_give_rows(uint32_t K, uint32_t *n, size_t groups, const uint32_t *rows, const size_t *offsets,
                          const uint32_t *slots, const uint32_t *from)
{
    for (size_t j = 0; j < groups; j++)
        for (size_t i = offsets[j]; i < offsets[j + 1]; i++)
            memcpy(n + (size_t)slots[i] * K, from + (size_t)rows[j] * K, K * sizeof *n);
}

const char *lda_layout_describe(const lda_layout *L, char *buf, size_t size)
{
    const size_t cut_pieces = L->num_cut_docs ? L->cut_offsets[L->num_cut_docs] : 0;
    const double padding = L->num_tokens ? 100.0 * ((double)L->num_positions / (double)L->num_tokens - 1.0) : 0.0;
    int used = snprintf(buf, size, "%zu documents", L->num_docs);
    if (L->num_cut_docs && used >= 0 && (size_t)used < size)
        used += snprintf(buf + used, size - (size_t)used, " (%zu cut into %zu pieces of at most %u tokens)",
                         L->num_cut_docs, cut_pieces, L->piece_length);
    if (used >= 0 && (size_t)used < size)
        snprintf(buf + used, size - (size_t)used, ", %zu groups of %u, the longest %u rows, padding %.1f%%",
                 L->num_warps, LDA_WARP, L->num_warps ? L->warp_len[0] : 0, padding);
    return buf;
}

void lda_layout_z_to_corpus_order(const lda_layout *L, const uint32_t *z_positions, uint32_t *z)
{
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z[lda_layout_corpus_token(L, L->slot_token_base[s] + i)] = z_positions[lda_layout_pos(L, s, i)];
}

void lda_layout_z_to_positions(const lda_layout *L, const uint32_t *z, uint32_t *z_positions)
{
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            z_positions[lda_layout_pos(L, s, i)] = z[lda_layout_corpus_token(L, L->slot_token_base[s] + i)];
}

int lda_word_tokens_check(const size_t *offsets, uint32_t vocab_size, lda_error *err)
{
    for (uint32_t w = 0; w < vocab_size; w++)
        if (offsets[w + 1] - offsets[w] > UINT32_MAX) {
            lda_error_input(err, "word id %u has %zu tokens; a word may have at most %u (its counts are 32-bit)", w,
                            offsets[w + 1] - offsets[w], UINT32_MAX);
            return -1;
        }
    return 0;
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
    if (lda_word_tokens_check(out->offsets, L->vocab_size, err)) {
        free(fill);
        lda_word_index_free(out);
        return -1;
    }
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
