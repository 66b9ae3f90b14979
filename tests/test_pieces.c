/* test_pieces.c — long documents cut into pieces (backend/layout.h): the layout, the join of
 * a cut document's counts, and on the CPU backend: nothing changes with θ given, every piece
 * holds its document's counts, planted topics are recovered with θ collapsed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/layout.h"
#include "helpers.h"
#include "pieces.h"
#include "planted.h"

/* Documents of 1000, 7, 3, 300 and 301 tokens, word i of document d = (d * 131 + i) % 97. */
static corpus *ragged(void)
{
    enum { D = 5 };
    static const uint32_t lengths[D] = {1000, 7, 3, 300, 301};
    uint32_t *docs[D];
    for (int d = 0; d < D; d++) {
        docs[d] = malloc(lengths[d] * sizeof(uint32_t));
        for (uint32_t i = 0; i < lengths[d]; i++)
            docs[d][i] = (uint32_t)((d * 131 + i) % 97);
    }
    corpus *c = test_corpus_from_docs(D, (const uint32_t *const *)docs, lengths, 97);
    for (int d = 0; d < D; d++)
        free(docs[d]);
    return c;
}

Test(pieces, long_documents_are_cut_into_near_equal_pieces)
{
    corpus *c = ragged();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 300, &err);
    cr_assert(L, "%s", err.msg);
    /* 1000 -> 4 x 250; 301 -> 151 + 150; 300, 7, 3 whole */
    cr_assert_eq(L->num_pieces, 9);
    cr_assert_eq(L->num_slots, 32);
    cr_assert_eq(L->num_cut_docs, 2);
    static const uint32_t expect_len[9] = {300, 250, 250, 250, 250, 151, 150, 7, 3};
    static const uint32_t expect_doc[9] = {3, 0, 0, 0, 0, 4, 4, 1, 2};
    static const uint32_t expect_piece[9] = {0, 0, 1, 2, 3, 0, 1, 0, 0};
    for (size_t s = 0; s < 9; s++) {
        cr_assert_eq(L->slot_len[s], expect_len[s], "slot %zu", s);
        cr_assert_eq(L->slot_doc[s], expect_doc[s], "slot %zu", s);
        cr_assert_eq(L->slot_piece[s], expect_piece[s], "slot %zu", s);
        const uint32_t d = L->slot_doc[s];
        cr_assert_eq(L->slot_doc_len[s], c->doc_offsets[d + 1] - c->doc_offsets[d]);
        cr_assert_eq(L->slot_token_base[s], c->doc_offsets[d] + (d == 0 ? 250 * L->slot_piece[s] : 151 * L->slot_piece[s]),
                     "slot %zu starts where its piece does", s);
        for (uint32_t i = 0; i < L->warp_len[0]; i++) /* a finished piece repeats its last word */
            cr_assert_eq(L->words[lda_layout_pos(L, s, i)],
                         c->words[lda_layout_corpus_token(
                             L, L->slot_token_base[s] + (i < L->slot_len[s] ? i : L->slot_len[s] - 1))]);
    }
    for (size_t s = 9; s < 32; s++)
        cr_assert(L->slot_doc[s] == LDA_NO_DOC && L->slot_len[s] == 0 && L->slot_doc_len[s] == 0);
    cr_assert_eq(L->doc_slot[0], 1, "a document's slot is its first piece's");
    cr_assert_eq(L->doc_slot[4], 5);
    /* the cut documents' pieces, first piece first, in first-piece order */
    cr_assert_eq(L->cut_offsets[1], 4);
    cr_assert_eq(L->cut_offsets[2], 6);
    static const uint32_t expect_cut[6] = {1, 2, 3, 4, 5, 6};
    cr_assert_eq(memcmp(L->cut_slots, expect_cut, sizeof expect_cut), 0);
    /* every token exactly once: corpus order -> positions -> corpus order */
    uint32_t *z = malloc(c->num_tokens * 4), *back = malloc(c->num_tokens * 4), *pos = calloc(L->num_positions, 4);
    for (size_t t = 0; t < c->num_tokens; t++)
        z[t] = (uint32_t)t + 1;
    lda_layout_z_to_positions(L, z, pos);
    lda_layout_z_to_corpus_order(L, pos, back);
    cr_assert_eq(memcmp(z, back, c->num_tokens * 4), 0);
    char shape[256];
    cr_assert_str_eq(lda_layout_describe(L, shape, sizeof shape),
                     "5 documents (2 cut into 6 pieces of at most 300 tokens), 1 groups of 32, the longest 300 rows, "
                     "padding 495.9%");
    free(z);
    free(back);
    free(pos);
    lda_layout_free(L);
    /* piece length 0 (and any length no document exceeds) cuts nothing */
    L = lda_layout_build(c, 0, &err);
    cr_assert(L->num_pieces == 5 && L->num_cut_docs == 0 && L->slot_len[0] == 1000);
    lda_layout_free(L);
    corpus_free(c);
}

Test(pieces, held_out_halves_score_in_the_first_piece)
{
    corpus *c = ragged();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 300, &err), *like = lda_layout_build_like(c, L, &err);
    cr_assert(like, "%s", err.msg);
    for (size_t d = 0; d < c->num_docs; d++) {
        const size_t s = L->doc_slot[d];
        cr_assert_eq(like->doc_slot[d], s);
        cr_assert_eq(like->slot_len[s], c->doc_offsets[d + 1] - c->doc_offsets[d], "document %zu whole", d);
    }
    cr_assert_eq(like->slot_len[2], 0, "the other pieces' slots stay empty");
    cr_assert_eq(like->num_cut_docs, 0);
    lda_layout_free(like);
    lda_layout_free(L);
    corpus_free(c);
}

Test(pieces, join_gathers_a_recount_and_moves_a_base)
{
    corpus *c = ragged();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 300, &err);
    const uint32_t K = 3;
    uint32_t *n = calloc(L->num_slots * K, 4), base[2 * 3] = {0};
    /* a recount: each piece its own tokens (document 0's four pieces: 10, 20, 30, 40 at topic 1) */
    for (uint32_t p = 0; p < 4; p++)
        n[(size_t)L->cut_slots[p] * K + 1] = 10 * (p + 1);
    n[(size_t)L->cut_slots[4] * K + 2] = 5;
    n[(size_t)L->cut_slots[5] * K + 0] = 7;
    n[0 * K + 0] = 99; /* document 3, not cut: untouched */
    lda_layout_join_cut_counts(L, K, n, base);
    for (uint32_t p = 0; p < 4; p++)
        cr_assert(n[(size_t)L->cut_slots[p] * K + 1] == 100 && n[(size_t)L->cut_slots[p] * K] == 0);
    cr_assert(n[(size_t)L->cut_slots[4] * K + 2] == 5 && n[(size_t)L->cut_slots[5] * K + 0] == 7);
    cr_assert(base[1] == 100 && base[3 + 0] == 7 && base[3 + 2] == 5);
    cr_assert_eq(n[0], 99);
    /* a pass: piece 0 moves 3 tokens from topic 1 to 0, piece 3 one from 1 to 2 */
    n[(size_t)L->cut_slots[0] * K + 1] -= 3;
    n[(size_t)L->cut_slots[0] * K + 0] += 3;
    n[(size_t)L->cut_slots[3] * K + 1] -= 1;
    n[(size_t)L->cut_slots[3] * K + 2] += 1;
    lda_layout_join_cut_counts(L, K, n, base);
    for (uint32_t p = 0; p < 4; p++) {
        const uint32_t *row = n + (size_t)L->cut_slots[p] * K;
        cr_assert(row[0] == 3 && row[1] == 96 && row[2] == 1, "piece %u: %u %u %u", p, row[0], row[1], row[2]);
    }
    cr_assert(base[0] == 3 && base[1] == 96 && base[2] == 1);
    free(n);
    lda_layout_free(L);
    corpus_free(c);
}

Test(pieces, change_nothing_with_theta_given_cpu)
{
    pieces_change_nothing_with_theta_given(LDA_DEVICE_CPU, LDA_MODEL_UNCOLLAPSED, 400, 12, 0.0);
    pieces_change_nothing_with_theta_given(LDA_DEVICE_CPU, LDA_MODEL_MEAN_FOR_MODE, 400, 12, 0.0);
}

Test(pieces, hold_their_documents_counts_cpu)
{
    counts_equal_a_recount(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, 1, 16);
    counts_equal_a_recount(LDA_DEVICE_CPU, LDA_MODEL_THETA_COLLAPSED, 3, 16);
    counts_equal_a_recount(LDA_DEVICE_CPU, LDA_MODEL_UNCOLLAPSED, 1, 16);
}

Test(pieces, planted_topics_recovered_collapsed_cpu)
{
    planted_recovery_pieces(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, 16);
}

/* --piece-length auto: 512 with θ given; with θ collapsed 256, but 512 for the sparse sampler
 * from K = 1024 on with φ the mean (collapsed), from 4096 with φ drawn (θ-collapsed)
 * (core/params.h); a number given is kept. */
Test(pieces, auto_length_follows_the_model_the_sampler_and_K)
{
    lda_params p;
    lda_params_default(&p);
    p.num_topics = 10000;
    cr_assert_eq(lda_params_piece_length(&p), 512, "θ given");
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    cr_assert_eq(lda_params_piece_length(&p), 256, "θ collapsed, butterfly");
    p.sampler = LDA_SAMPLER_SPARSE;
    cr_assert_eq(lda_params_piece_length(&p), 512, "sparse at K = 10,000");
    p.num_topics = 1024;
    cr_assert_eq(lda_params_piece_length(&p), 512, "sparse, collapsed, at K = 1024");
    p.num_topics = 1023;
    cr_assert_eq(lda_params_piece_length(&p), 256, "sparse, collapsed, below K = 1024");
    lda_params_set_model(&p, LDA_MODEL_THETA_COLLAPSED);
    cr_assert_eq(lda_params_piece_length(&p), 256, "sparse, θ-collapsed, at K = 1023");
    p.num_topics = 4095;
    cr_assert_eq(lda_params_piece_length(&p), 256, "sparse, θ-collapsed, below K = 4096");
    p.num_topics = 4096;
    cr_assert_eq(lda_params_piece_length(&p), 512, "sparse, θ-collapsed, at K = 4096");
    p.piece_length = 100;
    cr_assert_eq(lda_params_piece_length(&p), 100, "a number given");
}
