/* test_layout.c — documents sorted into warps, padded, interleaved; the permutation. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

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
            uint32_t expect = c->words[lda_layout_corpus_token(
                L, c->doc_offsets[d] + (i < L->slot_len[s] ? i : L->slot_len[s] - 1))];
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

/* A long document of raw text is laid out word by word (its repeats follow one another, for the
 * sparse draw's runs), ties in the corpus's order, also when it is cut into pieces; a short one,
 * or one listed by word already (a bag-of-words file), keeps the corpus's order; z goes to the
 * layout's positions and back unchanged, and every slot's words are the corpus's words of the
 * tokens the layout names. */
static void check_word_order(uint32_t piece_length)
{
    enum { V = 9 };
    uint32_t text[200], bag[150], short_doc[40];
    for (uint32_t i = 0; i < 200; i++)
        text[i] = (i * 7 + i / 3) % V; /* unsorted, every word repeated */
    for (uint32_t i = 0; i < 150; i++)
        bag[i] = i / 20;
    for (uint32_t i = 0; i < 40; i++)
        short_doc[i] = (40 - i) % V;
    const uint32_t *docs[] = {short_doc, text, bag};
    const uint32_t lengths[] = {40, 200, 150};
    corpus *c = test_corpus_from_docs(3, docs, lengths, V);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_not_null(L->token_shift, "raw text's long document is reordered");
    for (size_t d = 0; d < 3; d++) {
        const size_t start = c->doc_offsets[d], len = c->doc_offsets[d + 1] - start;
        uint8_t seen[200] = {0};
        for (size_t r = 0; r < len; r++) {
            const size_t t = lda_layout_corpus_token(L, start + r);
            cr_assert(t >= start && t < start + len && !seen[t - start], "doc %zu rank %zu: token %zu", d, r, t);
            seen[t - start] = 1;
            if (d != 1)
                cr_assert_eq(t, start + r, "doc %zu keeps the corpus's order", d);
            else if (r > 0) {
                const size_t before = lda_layout_corpus_token(L, start + r - 1);
                cr_assert(c->words[before] < c->words[t] || (c->words[before] == c->words[t] && before < t),
                          "rank %zu: word %u (token %zu) after word %u (token %zu)", r, c->words[t], t,
                          c->words[before], before);
            }
        }
    }
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            cr_assert_eq(L->words[lda_layout_pos(L, s, i)],
                         c->words[lda_layout_corpus_token(L, L->slot_token_base[s] + i)]);
    uint32_t *z = malloc(c->num_tokens * sizeof *z), *back = malloc(c->num_tokens * sizeof *back),
             *pos = calloc(L->num_positions, sizeof *pos);
    for (size_t t = 0; t < c->num_tokens; t++)
        z[t] = (uint32_t)t;
    lda_layout_z_to_positions(L, z, pos);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) /* token t's z is at the position of token t */
            cr_assert_eq(L->words[lda_layout_pos(L, s, i)], c->words[pos[lda_layout_pos(L, s, i)]]);
    lda_layout_z_to_corpus_order(L, pos, back);
    cr_assert_eq(memcmp(z, back, c->num_tokens * sizeof *z), 0, "z to positions and back");
    free(z);
    free(back);
    free(pos);
    lda_layout_free(L);
    corpus_free(c);
}

Test(layout, long_documents_are_laid_out_word_by_word)
{
    check_word_order(0);
    check_word_order(64); /* the long document in pieces */
}

Test(layout, bag_of_words_documents_need_no_order)
{
    const uint32_t a[100] = {0}, b[] = {1, 1, 2, 5, 5, 5};
    const uint32_t *docs[] = {a, b};
    const uint32_t lengths[] = {100, 6};
    corpus *c = test_corpus_from_docs(2, docs, lengths, 6);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_null(L->token_shift);
    lda_layout_free(L);
    corpus_free(c);
}

/* n[w,k] is 32-bit: a word of 2^32 tokens (offsets as a corpus past 2^32 tokens would have
 * them) is refused, naming it; 2^32 - 1 is taken. */
Test(layout, a_word_of_more_tokens_than_its_counts_hold_is_refused)
{
    const size_t offsets[4] = {0, 7, 7 + (size_t)UINT32_MAX, 7 + (size_t)UINT32_MAX + 1};
    lda_error err = {0};
    cr_assert_eq(lda_word_tokens_check(offsets, 3, &err), 0, "%s", err.msg);
    const size_t over[4] = {0, 7, 7 + (size_t)UINT32_MAX + 1, 7 + (size_t)UINT32_MAX + 2};
    cr_assert_eq(lda_word_tokens_check(over, 3, &err), -1);
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    cr_assert(strstr(err.msg, "word id 1 has 4294967296 tokens; a word may have at most 4294967295"), "%s",
              err.msg);
}
