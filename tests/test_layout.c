/* test_layout.c — documents sorted into warps, padded, interleaved; the permutation. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "backend/layout.h"
#include "helpers.h"

static corpus *uneven_corpus(size_t num_docs)
{
    uint32_t **docs = calloc(num_docs, sizeof *docs), *lengths = calloc(num_docs, sizeof *lengths);
    cr_assert(docs && lengths);
    for (size_t d = 0; d < num_docs; d++) {
        lengths[d] = (uint32_t)((d * 37) % 23 + 1);
        docs[d] = malloc(lengths[d] * sizeof(uint32_t));
        for (uint32_t i = 0; i < lengths[d]; i++)
            docs[d][i] = (uint32_t)((d * 31 + i * 7) % 50);
    }
    corpus *c = test_corpus_from_docs(num_docs, (const uint32_t *const *)docs, lengths, 50);
    for (size_t d = 0; d < num_docs; d++)
        free(docs[d]);
    free(docs);
    free(lengths);
    return c;
}

Test(layout, sorts_pads_and_interleaves)
{
    corpus *c = uneven_corpus(70);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_eq(L->num_slots, 96);
    cr_assert_eq(L->num_warps, 3);
    cr_assert_eq(L->num_docs, 70);
    size_t tokens = 0;
    for (size_t s = 0; s < L->num_slots; s++) {
        if (s + 1 < L->num_slots)
            cr_assert_geq(L->slot_len[s], L->slot_len[s + 1], "not sorted by length at slot %zu", s);
        if (s >= 70) {
            cr_assert_eq(L->slot_doc[s], LDA_NO_DOC);
            cr_assert_eq(L->slot_len[s], 0);
            continue;
        }
        uint32_t d = L->slot_doc[s];
        cr_assert_eq(L->doc_slot[d], s);
        cr_assert_eq(L->slot_len[s], c->doc_offsets[d + 1] - c->doc_offsets[d]);
        cr_assert_eq(L->slot_token_base[s], c->doc_offsets[d]);
        size_t q = s / LDA_WARP;
        for (uint32_t i = 0; i < L->warp_len[q]; i++) {
            uint32_t expect = c->words[c->doc_offsets[d] + (i < L->slot_len[s] ? i : L->slot_len[s] - 1)];
            cr_assert_eq(L->words[L->warp_offset[q] + i * LDA_WARP + s % LDA_WARP], expect,
                         "slot %zu row %u: a finished document repeats its last word", s, i);
        }
        tokens += L->slot_len[s];
    }
    cr_assert_eq(tokens, c->num_tokens);
    for (size_t q = 0; q < L->num_warps; q++)
        cr_assert_eq(L->warp_len[q], L->slot_len[q * LDA_WARP]);
    cr_assert_eq(L->num_positions, L->warp_offset[L->num_warps]);
    lda_layout_free(L);
    corpus_free(c);
}

Test(layout, equal_lengths_keep_input_order)
{
    const uint32_t a[] = {1, 2}, b[] = {3, 4}, e[] = {5};
    const uint32_t *docs[] = {a, e, b};
    const uint32_t lengths[] = {2, 1, 2};
    corpus *c = test_corpus_from_docs(3, docs, lengths, 6);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L);
    cr_assert_eq(L->slot_doc[0], 0);
    cr_assert_eq(L->slot_doc[1], 2);
    cr_assert_eq(L->slot_doc[2], 1);
    lda_layout_free(L);
    corpus_free(c);
}

Test(layout, word_index_lists_every_token_once)
{
    corpus *c = uneven_corpus(45);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    lda_word_index wi;
    cr_assert_eq(lda_word_index_build(L, &wi, &err), 0);
    cr_assert_eq(wi.offsets[L->vocab_size], c->num_tokens);
    for (uint32_t w = 0; w < L->vocab_size; w++)
        for (size_t t = wi.offsets[w]; t < wi.offsets[w + 1]; t++) {
            cr_assert_eq(L->words[wi.positions[t]], w);
            if (t > wi.offsets[w])
                cr_assert_gt(wi.positions[t], wi.positions[t - 1]);
        }
    lda_word_index_free(&wi);
    lda_layout_free(L);
    corpus_free(c);
}
