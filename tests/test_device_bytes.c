/* test_device_bytes.c — the device memory of a CUDA run, array by array (backend/device_bytes.h),
 * checked without a GPU against an H100's limits: the rows are the arrays, their sum is what
 * the run plans, and the sparse draw marks a changed token's old topic in z instead of keeping a
 * z_prev where K allows. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device_bytes.h"
#include "backend/sampler_sparse.h"
#include "backend/shards.h"
#include "helpers.h"

static const lda_gpu_limits h100 = {227 * 1024, 132};

static lda_device_bytes bytes_of(const lda_layout *L, const lda_params *p, lda_zplan *plan)
{
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(p, L, &h100, plan, &err), 0, "%s", err.msg);
    lda_device_bytes b;
    lda_device_bytes_plan(L, p, plan, &b);
    uint64_t sum = 0;
    for (size_t i = 0; i < b.count; i++) {
        cr_assert_gt(b.rows[i].bytes, 0, "a row of no bytes: %s", b.rows[i].name);
        sum += b.rows[i].bytes;
    }
    cr_assert_eq(sum, b.total, "the rows are the total");
    return b;
}

static uint64_t row(const lda_device_bytes *b, const char *name)
{
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->rows[i].name, name) == 0)
            return b->rows[i].bytes;
    return 0;
}

/* 600 documents of 20 to 400 tokens, cut into pieces of 64: most documents are cut. */
static lda_layout *cut_layout(corpus **c)
{
    *c = test_planted_corpus(8, 40, 600, 20, 400, 7, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(*c, 64, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_gt(L->num_cut_docs, 100);
    return L;
}

/* Collapsed, sparse, K = 1024: words and z 4 bytes a position each, no z_prev (the draw marks
 * the old topic in z); the lists of the cut documents' pieces each have room for their whole
 * document's topics (min(K, piece + document tokens)), and that row is theirs alone. */
Test(device_bytes, sparse_rows_are_the_arrays)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 1024);
    lda_zplan plan;
    const lda_device_bytes b = bytes_of(L, &p, &plan);
    cr_assert(plan.z_marks_changes);
    cr_assert_eq(row(&b, "words"), L->num_positions * 4);
    cr_assert_eq(row(&b, "z"), L->num_positions * 4);
    cr_assert_eq(row(&b, "z_prev"), 0, "the sparse draw at K <= 65,535 keeps no z_prev");
    uint64_t piece_entries = 0, all_entries = 0;
    for (size_t i = 0; i < L->cut_offsets[L->num_cut_docs]; i++) {
        const uint32_t s = L->cut_slots[i];
        piece_entries += lda_sparse_list_capacity(1024, L->slot_len[s], L->slot_doc_len[s]);
    }
    for (size_t s = 0; s < L->num_slots; s++)
        all_entries += lda_sparse_list_capacity(1024, L->slot_len[s], L->slot_doc_len[s]);
    cr_assert_eq(row(&b, "lists of cut documents' pieces"), piece_entries * 8);
    cr_assert_geq(row(&b, "lists of whole documents"), (all_entries - piece_entries) * 8);
    cr_assert_lt(row(&b, "lists of whole documents"), (all_entries - piece_entries) * 8 + 256);
    cr_assert_eq(row(&b, "n[w,k]"), (uint64_t)L->vocab_size * 1024 * 4);
    cr_assert_eq(row(&b, "n[m,k]"), 0, "the sparse draw keeps no dense n[m,k]");
    lda_layout_free(L);
    corpus_free(c);
}

/* z_prev stays where the draw cannot mark: the dense samplers, and K above 65,535. */
Test(device_bytes, z_prev_where_the_draw_does_not_mark)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    lda_zplan plan;
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_BUTTERFLY, 256);
    lda_device_bytes b = bytes_of(L, &p, &plan);
    cr_assert(!plan.z_marks_changes);
    cr_assert_eq(row(&b, "z_prev"), L->num_positions * 4);
    cr_assert_eq(row(&b, "n[m,k]"), L->num_slots * 256 * 4);
    p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 65536);
    b = bytes_of(L, &p, &plan);
    cr_assert(!plan.z_marks_changes);
    cr_assert_eq(row(&b, "z_prev"), L->num_positions * 4);
    p.num_topics = 65535;
    b = bytes_of(L, &p, &plan);
    cr_assert(plan.z_marks_changes);
    cr_assert_eq(row(&b, "z_prev"), 0);
    lda_zplan_draw_only(&plan); /* the harness compares the z drawn with the CPU's: no marks */
    cr_assert(plan.kernel == LDA_ZKERNEL_SPARSE && !plan.z_marks_changes);
    lda_layout_free(L);
    corpus_free(c);
}

/* The line train prints: the total and bytes a token, then the rows largest first. */
Test(device_bytes, describe_puts_the_largest_first)
{
    lda_device_bytes b = {.count = 3, .total = 3ull << 30};
    b.rows[0] = (lda_device_bytes_row){"small", 1ull << 29};
    b.rows[1] = (lda_device_bytes_row){"large", 2ull << 30};
    b.rows[2] = (lda_device_bytes_row){"middle", 1ull << 29};
    char line[256];
    lda_device_bytes_describe(&b, 1ull << 30, LDA_DEVICE_BYTES_MAX_ROWS, line, sizeof line);
    cr_assert_str_eq(line, "3.00 GiB, 3.0 B a token: large 2.00 GiB (2.0 B); small 0.50 GiB (0.5 B); "
                           "middle 0.50 GiB (0.5 B)"); /* equal rows in the plan's order */
    lda_device_bytes_describe(&b, 1ull << 30, 1, line, sizeof line); /* the largest alone (a refusal's) */
    cr_assert_str_eq(line, "3.00 GiB, 3.0 B a token: large 2.00 GiB (2.0 B); the rest 1.00 GiB (1.0 B)");
    b.rows[2].bytes = 1ull << 20; /* under 0.5%: with the others under it, "the rest" */
    b.total = (5ull << 29) + (1ull << 20);
    lda_device_bytes_describe(&b, 1ull << 30, LDA_DEVICE_BYTES_MAX_ROWS, line, sizeof line);
    cr_assert_str_eq(line, "2.50 GiB, 2.5 B a token: large 2.00 GiB (2.0 B); small 0.50 GiB (0.5 B); "
                           "the rest 0.00 GiB (0.0 B)");
    char tiny[16];
    lda_device_bytes_describe(&b, 1ull << 30, LDA_DEVICE_BYTES_MAX_ROWS, tiny, sizeof tiny); /* cut short, terminated */
    cr_assert_eq(strlen(tiny), sizeof tiny - 1);
}

/* A word's list (the collapsed draw's at K >= 4096) has room for the longest list the draw reads,
 * min(K, ratio × the document's most), not K: a word with more non-zero counts goes by the
 * document's list, the same numbers gathered. 10 words, most of more than K tokens. */
Test(device_bytes, word_lists_hold_the_longest_list_the_draw_reads)
{
    corpus *c = test_planted_corpus(2, 5, 40, 1000, 3000, 3, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 256, &err);
    cr_assert(L, "%s", err.msg);
    const uint32_t K = 4096;
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, K);
    p.phi_counts_only = 1; /* this corpus is large beside V × K: the plan would write φ, and list no words */
    lda_zplan plan;
    const lda_device_bytes b = bytes_of(L, &p, &plan);
    cr_assert_eq(plan.sparse_word_lists, LDA_WORD_LISTS_BY_TOKENS);
    cr_assert_eq(plan.word_list_room, LDA_ZPLAN_WORD_LIST_RATIO * (K / LDA_ZPLAN_WORD_LIST_DOC_SHARE));
    cr_assert_lt(plan.word_list_room, K);
    uint64_t *tokens = calloc(c->vocab_size, sizeof *tokens), *offsets = malloc((c->vocab_size + 1) * sizeof *offsets);
    for (size_t i = 0; i < c->num_tokens; i++)
        tokens[c->words[i]]++;
    uint64_t capped = 0, uncapped = 0, over = 0;
    for (uint32_t w = 0; w < c->vocab_size; w++) {
        over += tokens[w] > K;
        capped += tokens[w] < plan.word_list_room ? tokens[w] : plan.word_list_room;
        uncapped += tokens[w] < K ? tokens[w] : K;
    }
    cr_assert_gt(over, 0, "no word's room would be capped");
    lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, plan.word_list_room, offsets);
    cr_assert_eq(offsets[c->vocab_size], capped);
    cr_assert_geq(row(&b, "word lists"), capped * 8);
    cr_assert_lt(row(&b, "word lists"), uncapped * 8, "the word lists' room is K a word");
    free(tokens);
    free(offsets);
    lda_layout_free(L);
    corpus_free(c);
}

/* A range of warps of L as a shard's layout sizes it: its word lists by the whole layout's words. */
static uint64_t range_bytes(const lda_layout *L, const lda_params *p, size_t first, size_t end, uint64_t *word_tokens)
{
    lda_error err = {0};
    lda_layout *S = lda_layout_warps(L, first, end, &err);
    cr_assert(S, "%s", err.msg);
    S->corpus_word_tokens = word_tokens;
    lda_zplan plan;
    const uint64_t total = bytes_of(S, p, &plan).total;
    lda_layout_free(S);
    return total;
}

/* Each warp's part of the plan (lda_device_bytes_warps) and the rest add up to the plan's total
 * exactly, for dense and sparse draws, θ given and collapsed, a shard's own counts, histograms;
 * and a range of warps, sized as a shard's layout, needs at most the rest plus its warps' parts,
 * and within 2% of the whole less where no window of rows is capped (a capped window is in the
 * rest, whole, and a small range's is smaller): what the split by memory weighs. */
Test(device_bytes, warps_parts_add_up_to_the_plan_and_bound_a_range)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    static const struct {
        lda_model_kind model;
        lda_sampler sampler;
        uint32_t K;
    } runs[] = {
        {LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, 256}, {LDA_MODEL_COLLAPSED, LDA_SAMPLER_BUTTERFLY, 256},
        {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 1024},     {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 4096},
        {LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_NAIVE, 64},      {LDA_MODEL_THETA_COLLAPSED, LDA_SAMPLER_BUTTERFLY, 2048},
    };
    uint64_t *per_warp = malloc(L->num_warps * sizeof *per_warp), *word_tokens = malloc((L->vocab_size + 1) * 8);
    lda_sparse_word_tokens(L, word_tokens);
    const size_t W = L->num_warps, ranges[][2] = {{0, W}, {0, W / 3}, {W / 3, W}, {W / 2, W / 2 + 1}, {W - 1, W}, {0, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (uint32_t shards = 1; shards <= 2; shards++) {
            lda_params p = test_params(runs[i].model, runs[i].sampler, runs[i].K);
            p.shards = shards;
            p.optimize_interval = shards == 2 ? 10 : 0;
            lda_zplan plan;
            const lda_device_bytes b = bytes_of(L, &p, &plan);
            const uint64_t rest = lda_device_bytes_warps(L, &p, &plan, per_warp);
            uint64_t sum = rest;
            for (size_t q = 0; q < W; q++)
                sum += per_warp[q];
            cr_assert_eq(sum, b.total, "run %zu: the parts add up to %llu, the plan %llu", i, (unsigned long long)sum,
                         (unsigned long long)b.total);
            cr_assert_lt(rest, b.total);
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
                uint64_t estimate = rest;
                for (size_t q = ranges[r][0]; q < ranges[r][1]; q++)
                    estimate += per_warp[q];
                const uint64_t bytes = range_bytes(L, &p, ranges[r][0], ranges[r][1], word_tokens);
                cr_assert_leq(bytes, estimate, "run %zu, warps %zu..%zu: %llu bytes, more than the parts' %llu", i,
                              ranges[r][0], ranges[r][1], (unsigned long long)bytes, (unsigned long long)estimate);
                if (lda_device_window_slots(L->num_slots, runs[i].K) >= L->num_slots) /* else a window is the rest's */
                    cr_assert_leq(estimate - bytes, b.total / 50, "run %zu, warps %zu..%zu: %llu bytes, the parts %llu",
                                  i, ranges[r][0], ranges[r][1], (unsigned long long)bytes, (unsigned long long)estimate);
            }
        }
    free(per_warp);
    free(word_tokens);
    lda_layout_free(L);
    corpus_free(c);
}
