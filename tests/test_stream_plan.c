/* test_stream_plan.c — the arithmetic of tokens streamed through the GPU a chunk of warps at a
 * time (backend/stream_plan.h), without a GPU: what a chunk holds and copies, where the chunks
 * end, and when a run streams. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device_bytes.h"
#include "backend/stream_plan.h"
#include "core/sparse_draw.h"
#include "helpers.h"

#define K_TOPICS 1024u

static const lda_gpu_limits h100 = {227 * 1024, 132};

/* 600 documents of 20 to 400 tokens, cut into pieces of 64: most documents are cut, 19 warps. */
static lda_layout *cut_layout(corpus **c)
{
    *c = test_planted_corpus(8, 40, 600, 20, 400, 7, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(*c, 64, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_gt(L->num_cut_docs, 100);
    cr_assert_gt(L->num_warps, 10);
    return L;
}

static lda_device_bytes in_memory(const lda_layout *L, uint32_t K)
{
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, K);
    lda_zplan plan;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &plan, &err), 0, "%s", err.msg);
    lda_device_bytes b;
    lda_device_bytes_plan(L, &p, &plan, &b);
    return b;
}

static uint64_t row(const lda_device_bytes *b, const char *name)
{
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->rows[i].name, name) == 0)
            return b->rows[i].bytes;
    cr_assert_fail("no row %s", name);
    return 0;
}

/* A chunk holds its positions' words and z, its slots' lists with room for
 * lda_sparse_list_capacity entries, and their lengths, and the host's form as it lands: z in 2
 * bytes, the whole documents' lists packed with room for min(K, tokens). It copies in the words
 * and the host's form, and back the host's form: the pieces' lists never cross the bus. */
Test(stream_plan, a_chunk_holds_its_warps_tokens_and_lists)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const size_t first = 3, end = 9;
    uint64_t entries = 0, whole = 0, pieces = 0, packed = 0;
    for (size_t s = first * LDA_WARP; s < end * LDA_WARP; s++) {
        const uint64_t room = lda_sparse_list_capacity(K_TOPICS, L->slot_len[s], L->slot_doc_len[s]);
        entries += room;
        if (L->slot_len[s] < L->slot_doc_len[s]) {
            pieces++;
            cr_assert_eq(lda_stream_host_room(L, K_TOPICS, s), 0, "slot %zu is a piece", s);
        } else {
            whole += room;
            packed += L->slot_len[s] < K_TOPICS ? L->slot_len[s] : K_TOPICS;
        }
    }
    cr_assert_eq(lda_stream_host_entries(L, K_TOPICS, first, end), packed);
    cr_assert_gt(pieces, 0, "the range has pieces of cut documents");
    const uint64_t positions = L->warp_offset[end] - L->warp_offset[first], slots = (end - first) * LDA_WARP;
    cr_assert_eq(lda_stream_chunk_bytes(L, K_TOPICS, first, end),
                 8 * positions + 8 * entries + 4 * slots + 2 * positions + 4 * packed +
                     LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN);
    uint64_t in, out;
    lda_stream_chunk_copies(L, K_TOPICS, first, end, &in, &out);
    cr_assert_gt(whole, 0);
    cr_assert_lt(packed, whole, "the host's room is less than the device's");
    cr_assert_eq(in, 6 * positions + 4 * packed + 4 * slots);
    cr_assert_eq(out, 2 * positions + 4 * packed + 4 * slots);
    lda_layout_free(L);
    corpus_free(c);
}

/* What the chunks carry is what the in-memory plan holds in words, z, the slots' lists and
 * their lengths (the plan's arrays are aligned: within a few hundred bytes). */
Test(stream_plan, the_chunks_carry_the_in_memory_plans_token_arrays)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const lda_device_bytes b = in_memory(L, K_TOPICS);
    const uint64_t carried = lda_stream_chunk_bytes(L, K_TOPICS, 0, L->num_warps) -
                             LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN - 2 * L->num_positions -
                             4 * lda_stream_host_entries(L, K_TOPICS, 0, L->num_warps);
    const uint64_t planned = row(&b, "words") + row(&b, "z") + row(&b, "lists of whole documents") +
                             row(&b, "lists of cut documents' pieces") + 4 * L->num_slots;
    cr_assert_leq(carried, planned);
    cr_assert_lt(planned - carried, 1024, "carried %llu, planned %llu", (unsigned long long)carried,
                 (unsigned long long)planned);
    lda_layout_free(L);
    corpus_free(c);
}

static void assert_chunks_cover(const lda_layout *L, const lda_stream_chunk *ch, size_t n)
{
    cr_assert_gt(n, 0);
    cr_assert_eq(ch[0].first_warp, 0);
    cr_assert_eq(ch[n - 1].end_warp, L->num_warps);
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(ch[i].first_warp, ch[i].end_warp, "chunk %zu is not empty", i);
        if (i)
            cr_assert_eq(ch[i].first_warp, ch[i - 1].end_warp, "chunk %zu follows its predecessor", i);
        cr_assert_eq(ch[i].device_bytes, lda_stream_chunk_bytes(L, K_TOPICS, ch[i].first_warp, ch[i].end_warp));
    }
}

/* By room: each chunk fits, and takes as many warps as fit (the next one would not). */
Test(stream_plan, chunks_take_the_warps_that_fit_their_room)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const uint64_t room = lda_stream_chunk_bytes(L, K_TOPICS, 0, L->num_warps) / 5;
    lda_stream_chunk *ch;
    size_t n;
    lda_error err = {0};
    cr_assert_eq(lda_stream_chunks(L, K_TOPICS, room, 0, &ch, &n, &err), 0, "%s", err.msg);
    assert_chunks_cover(L, ch, n);
    cr_assert_geq(n, 5);
    for (size_t i = 0; i < n; i++) {
        cr_assert_leq(ch[i].device_bytes, room);
        if (i + 1 < n)
            cr_assert_gt(lda_stream_chunk_bytes(L, K_TOPICS, ch[i].first_warp, ch[i].end_warp + 1), room,
                         "chunk %zu could have taken one more warp", i);
    }
    free(ch);
    /* forced: 4 warps a chunk, the last the rest */
    cr_assert_eq(lda_stream_chunks(L, K_TOPICS, 0, 4, &ch, &n, &err), 0, "%s", err.msg);
    assert_chunks_cover(L, ch, n);
    cr_assert_eq(n, (L->num_warps + 3) / 4);
    for (size_t i = 0; i + 1 < n; i++)
        cr_assert_eq(ch[i].end_warp - ch[i].first_warp, 4);
    free(ch);
    lda_layout_free(L);
    corpus_free(c);
}

Test(stream_plan, a_warp_larger_than_the_room_is_refused)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const uint64_t one = lda_stream_chunk_bytes(L, K_TOPICS, 0, 1);
    lda_stream_chunk *ch;
    size_t n;
    lda_error err = {0};
    cr_assert_eq(lda_stream_chunks(L, K_TOPICS, one - 1, 0, &ch, &n, &err), -1);
    cr_assert(strstr(err.msg, "a group of 32 documents (warp 0) needs"), "%s", err.msg);
    cr_assert_null(ch);
    lda_layout_free(L);
    corpus_free(c);
}

/* auto streams where the in-memory plan does not fit, and says so with the numbers; off never;
 * on always; a forced size gives chunks of that many warps. */
Test(stream_plan, the_choice_follows_the_mode_and_the_free_memory)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const lda_device_bytes b = in_memory(L, K_TOPICS);
    const uint64_t cut_entries = lda_cut_list_entries(L, K_TOPICS), need = b.total;
    lda_stream_plan plan;
    lda_error err = {0};

    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_AUTO, need, cut_entries, need, 0, &plan, &err), 0);
    cr_assert(!plan.streamed, "it fits: %s", plan.why);
    cr_assert(strstr(plan.why, "tokens in device memory"), "%s", plan.why);
    lda_stream_plan_free(&plan);

    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_OFF, need, cut_entries, need / 2, 0, &plan, &err), 0);
    cr_assert(!plan.streamed);
    lda_stream_plan_free(&plan);

    /* the streamed plan's resident part: the in-memory plan less the chunks' arrays, plus the
       pass's own n[w,k], n[k] and the cut documents' second lists */
    const uint64_t staging = 2 * L->num_positions + 4 * lda_stream_host_entries(L, K_TOPICS, 0, L->num_warps);
    const uint64_t carried = lda_stream_chunk_bytes(L, K_TOPICS, 0, L->num_warps) -
                             LDA_STREAM_ARRAYS * LDA_STREAM_ALIGN - staging;
    const uint64_t resident = need - carried + (uint64_t)(L->vocab_size + 1) * K_TOPICS * 4 + 8 * cut_entries +
                              4 * L->num_cut_docs;
    const uint64_t free_bytes = resident + lda_stream_slack(resident) + LDA_STREAM_BUFFERS * ((carried + staging) / 6);
    cr_assert_lt(free_bytes, need, "need %llu, resident %llu, carried %llu", (unsigned long long)need,
                 (unsigned long long)resident, (unsigned long long)carried);
    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_AUTO, need, cut_entries, free_bytes, 0, &plan, &err),
                 0, "%s", err.msg);
    cr_assert(plan.streamed, "%s", plan.why);
    cr_assert_eq(plan.resident_bytes, resident);
    cr_assert_geq(plan.num_chunks, 6);
    cr_assert_leq(plan.resident_bytes + lda_stream_slack(plan.resident_bytes) + LDA_STREAM_BUFFERS * plan.chunk_room, free_bytes);
    assert_chunks_cover(L, plan.chunks, plan.num_chunks);
    uint64_t in_all, out_all;
    lda_stream_chunk_copies(L, K_TOPICS, 0, L->num_warps, &in_all, &out_all);
    cr_assert_eq(plan.copy_in, in_all, "the chunks' copies add up to the whole layout's");
    cr_assert_eq(plan.copy_out, out_all);
    cr_assert_eq(plan.host_bytes, out_all + 8 * (L->num_slots + 1), "z, packed lists, lengths and their offsets");
    cr_assert_lt(plan.host_bytes, carried / 2, "the host keeps less than half what the chunks carry on the device");
    cr_assert(strstr(plan.why, "tokens streamed from host memory in "), "%s", plan.why);
    cr_assert(strstr(plan.why, "GiB needed in device memory"), "%s", plan.why);
    lda_stream_plan_free(&plan);

    /* on, with room for everything: one chunk */
    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_ON, need, cut_entries, 4 * need, 0, &plan, &err), 0);
    cr_assert(plan.streamed);
    cr_assert_eq(plan.num_chunks, 1);
    lda_stream_plan_free(&plan);

    /* forced: 2 warps a chunk */
    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_ON, need, cut_entries, 4 * need, 2, &plan, &err), 0);
    cr_assert_eq(plan.num_chunks, (L->num_warps + 1) / 2);
    cr_assert(strstr(plan.why, "(forced size)"), "%s", plan.why);
    lda_stream_plan_free(&plan);

    /* too little even to stream */
    cr_assert_eq(lda_stream_plan_make(L, K_TOPICS, LDA_STREAM_AUTO, need, cut_entries, resident, 0, &plan, &err),
                 -1);
    cr_assert(strstr(err.msg, "too little device memory to stream the tokens"), "%s", err.msg);
    lda_layout_free(L);
    corpus_free(c);
}

Test(stream_plan, the_forced_chunk_is_read_from_the_environment)
{
    size_t warps = 99;
    lda_error err = {0};
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
    cr_assert_eq(lda_stream_forced_warps(&warps, &err), 0);
    cr_assert_eq(warps, 0);
    setenv(LDA_STREAM_CHUNK_WARPS_ENV, "3", 1);
    cr_assert_eq(lda_stream_forced_warps(&warps, &err), 0);
    cr_assert_eq(warps, 3);
    const char *bad[] = {"0", "-2", "3x", "lots"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv(LDA_STREAM_CHUNK_WARPS_ENV, bad[i], 1);
        cr_assert_eq(lda_stream_forced_warps(&warps, &err), -1, "%s", bad[i]);
        cr_assert(strstr(err.msg, LDA_STREAM_CHUNK_WARPS_ENV), "%s", err.msg);
    }
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
}

/* The join over chunks: the pieces' changes added into their documents' second rows chunk by
 * chunk (a chunk boundary splits cut documents), in any order of the chunks, make what the
 * in-memory join makes, after a z pass (rows moved from the base) and after a recount (base
 * NULL: each row its own tokens); every piece then takes its document's row. */
static void join_over_chunks(const lda_layout *L, int recount, int backwards)
{
    const uint32_t K = 16;
    const size_t rows = L->num_slots * K, docs = L->num_cut_docs * K;
    uint32_t *n = malloc(rows * 4), *n_ref = malloc(rows * 4), *base = malloc(docs * 4), *ref_base = malloc(docs * 4),
             *next = malloc(docs * 4);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < rows; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17, n[i] = (uint32_t)(x % 1000); /* any counts: the sums are mod 2^32 */
    for (size_t i = 0; i < docs; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17, base[i] = (uint32_t)(x % 1000);
    memcpy(n_ref, n, rows * 4);
    memcpy(ref_base, base, docs * 4);
    lda_layout_join_cut_counts(L, K, n_ref, recount ? NULL : ref_base);
    if (recount) { /* the reference's base is what its pieces' rows became */
        for (size_t c = 0; c < L->num_cut_docs; c++)
            memcpy(ref_base + c * K, n_ref + (size_t)L->cut_slots[L->cut_offsets[c]] * K, K * 4);
        memset(next, 0, docs * 4);
    } else {
        memcpy(next, base, docs * 4);
    }
    const size_t warps = 3, chunks = (L->num_warps + warps - 1) / warps;
    cr_assert_gt(chunks, 3);
    lda_stream_chunk_pieces *pieces = calloc(chunks, sizeof *pieces);
    size_t *seen = calloc(L->num_cut_docs, sizeof *seen), listed = 0, split = 0;
    lda_error err = {0};
    for (size_t q = 0; q < chunks; q++) {
        const size_t end = (q + 1) * warps < L->num_warps ? (q + 1) * warps : L->num_warps;
        cr_assert_eq(lda_stream_chunk_pieces_make(L, q * warps, end, &pieces[q], &err), 0, "%s", err.msg);
        for (size_t j = 0; j < pieces[q].num_docs; j++) {
            cr_assert(j == 0 || pieces[q].docs[j] > pieces[q].docs[j - 1], "in the layout's order");
            cr_assert_lt(pieces[q].offsets[j], pieces[q].offsets[j + 1], "a listed document has pieces here");
            split += seen[pieces[q].docs[j]]++ == 1; /* counted once, at its second chunk */
            for (size_t i = pieces[q].offsets[j]; i < pieces[q].offsets[j + 1]; i++) {
                cr_assert_geq(pieces[q].slots[i], q * warps * LDA_WARP);
                cr_assert_lt(pieces[q].slots[i], end * LDA_WARP);
                listed++;
            }
        }
    }
    cr_assert_eq(listed, L->cut_offsets[L->num_cut_docs], "every piece in one chunk");
    cr_assert_gt(split, 10, "chunk boundaries split cut documents");
    for (size_t j = 0; j < chunks; j++)
        lda_stream_join_chunk(&pieces[backwards ? chunks - 1 - j : j], K, n, recount ? NULL : base, next);
    cr_assert_arr_eq(next, ref_base, docs * 4, "the documents' rows are the in-memory join's");
    for (size_t q = 0; q < chunks; q++)
        lda_stream_give_chunk(&pieces[q], K, n, next);
    cr_assert_arr_eq(n, n_ref, rows * 4, "every row is the in-memory join's");
    for (size_t q = 0; q < chunks; q++)
        lda_stream_chunk_pieces_free(&pieces[q]);
    free(pieces), free(seen);
    free(n), free(n_ref), free(base), free(ref_base), free(next);
}

Test(stream_plan, the_join_over_chunks_is_the_in_memory_join)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    join_over_chunks(L, 0, 0);
    join_over_chunks(L, 0, 1);
    join_over_chunks(L, 1, 0);
    lda_layout_free(L);
    corpus_free(c);
}

/* The cut layout, its in-memory plan and its cut documents' list entries. */
typedef struct {
    corpus *c;
    lda_layout *L;
    lda_device_bytes b;
    uint64_t cut_entries;
} planned_layout;

static planned_layout planned(void)
{
    planned_layout f;
    f.L = cut_layout(&f.c);
    f.b = in_memory(f.L, K_TOPICS);
    f.cut_entries = lda_cut_list_entries(f.L, K_TOPICS);
    return f;
}

static void planned_free(planned_layout *f)
{
    lda_layout_free(f->L);
    corpus_free(f->c);
}

/* f's plan in `mode` with free_bytes free and forced_warps (0: none), made or the test fails. */
static void plan_of(const planned_layout *f, lda_stream_mode mode, uint64_t free_bytes, size_t forced_warps,
                    lda_stream_plan *plan)
{
    lda_error err = {0};
    cr_assert_eq(lda_stream_plan_make(f->L, K_TOPICS, mode, f->b.total, f->cut_entries, free_bytes, forced_warps, plan,
                                      &err),
                 0, "%s", err.msg);
}

/* Not streamed, a forced size still cuts the pass into chunks of that many warps, in device
 * memory (the GPU's test of the chunks' arithmetic), and the line says so. */
Test(stream_plan, forced_chunks_stay_in_device_memory_where_the_run_does_not_stream)
{
    planned_layout f = planned();
    const lda_layout *L = f.L;
    lda_stream_plan plan;
    const lda_stream_mode modes[] = {LDA_STREAM_OFF, LDA_STREAM_AUTO};
    for (size_t i = 0; i < 2; i++) {
        plan_of(&f, modes[i], 2 * f.b.total, 3, &plan);
        cr_assert(!plan.streamed, "%s", plan.why);
        cr_assert_eq(plan.num_chunks, (L->num_warps + 2) / 3);
        assert_chunks_cover(L, plan.chunks, plan.num_chunks);
        char says[96];
        snprintf(says, sizeof says, "tokens in device memory in %zu chunks (forced size): ", plan.num_chunks);
        cr_assert(strstr(plan.why, says), "%s", plan.why);
        lda_stream_plan_free(&plan);
    }
    /* unforced: no chunks */
    plan_of(&f, LDA_STREAM_OFF, 2 * f.b.total, 0, &plan);
    cr_assert_eq(plan.num_chunks, 0);
    lda_stream_plan_free(&plan);
    planned_free(&f);
}

/* What a chunked pass adds on the device: the pass's own n[w,k] and n[k], and the cut
 * documents' second lists with their lengths. */
Test(stream_plan, the_chunked_pass_adds_its_own_counts_and_second_lists)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    const uint64_t cut_entries = lda_cut_list_entries(L, K_TOPICS);
    cr_assert_eq(lda_stream_pass_bytes(L, K_TOPICS, cut_entries),
                 (uint64_t)(L->vocab_size + 1) * K_TOPICS * 4 + 8 * cut_entries + 4 * L->num_cut_docs);
    lda_layout_free(L);
    corpus_free(c);
}

/* Only the collapsed model's sparse draw on one device, z marking its changes and --refresh 1,
 * goes a chunk at a time; anything else gets its reason. */
Test(stream_plan, only_the_collapsed_sparse_draw_of_one_device_goes_in_chunks)
{
    corpus *c;
    lda_layout *L = cut_layout(&c);
    lda_error err = {0};
    lda_zplan z;
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, K_TOPICS);
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), 0, "%s", err.msg);
    /* this small vocabulary makes the layout large beside V × K: the plan writes φ, which the
     * chunks cannot, and the backend plans again with φ from the counts (cuda/backend_cuda.cu,
     * plan_for_streaming) */
    cr_assert(lda_zplan_writes_counts_mean(&p, &z));
    cr_assert_not_null(lda_stream_refusal(&p, &z));
    p.phi_counts_only = 1;
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), 0, "%s", err.msg);
    cr_assert_null(lda_stream_refusal(&p, &z));

    const struct {
        lda_model_kind model;
        lda_sampler sampler;
        uint32_t K, refresh, shards;
        const char *says;
    } cases[] = {
        {LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, 64, 1, 1, "only --model collapsed --sampler sparse"},
        {LDA_MODEL_THETA_COLLAPSED, LDA_SAMPLER_SPARSE, 64, 1, 1, "only --model collapsed --sampler sparse"},
        {LDA_MODEL_COLLAPSED, LDA_SAMPLER_BUTTERFLY, 64, 1, 1, "only --model collapsed --sampler sparse"},
        {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 70000, 1, 1, "K <= 65535"},
        {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 64, 2, 1, "--refresh 1"},
        {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 64, 1, 2, "one GPU"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        p = test_params(cases[i].model, cases[i].sampler, cases[i].K);
        p.refresh = cases[i].refresh;
        p.shards = cases[i].shards;
        cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), 0, "case %zu: %s", i, err.msg);
        const char *why = lda_stream_refusal(&p, &z);
        cr_assert(why && strstr(why, cases[i].says), "case %zu: %s", i, why ? why : "(none)");
    }
    lda_layout_free(L);
    corpus_free(c);
}

/* The buffers made to fit what the resident arrays left, as measured: smaller chunks where the
 * planned ones would not fit, the plan as it was where they do, a refusal where nothing fits. */
Test(stream_plan, a_streamed_plan_refits_its_chunks_to_the_memory_left)
{
    planned_layout f = planned();
    const lda_layout *L = f.L;
    lda_stream_plan plan;
    lda_error err = {0};
    plan_of(&f, LDA_STREAM_ON, 4 * f.b.total, 0, &plan);
    cr_assert_eq(plan.num_chunks, 1);
    const uint64_t room = plan.chunk_room;
    cr_assert_eq(lda_stream_plan_refit(L, K_TOPICS, 4 * room, &plan, &err), 0, "%s", err.msg);
    cr_assert_eq(plan.num_chunks, 1, "room for the buffers: the plan stays");
    const uint64_t left = lda_stream_slack(plan.resident_bytes) + LDA_STREAM_BUFFERS * (room / 5);
    cr_assert_eq(lda_stream_plan_refit(L, K_TOPICS, left, &plan, &err), 0, "%s", err.msg);
    cr_assert_geq(plan.num_chunks, 5);
    cr_assert_leq(plan.chunk_room, room / 5);
    assert_chunks_cover(L, plan.chunks, plan.num_chunks);
    char says[64];
    snprintf(says, sizeof says, "tokens streamed from host memory in %zu chunks: ", plan.num_chunks);
    cr_assert(strstr(plan.why, says), "%s", plan.why);
    cr_assert_eq(lda_stream_plan_refit(L, K_TOPICS, lda_stream_slack(plan.resident_bytes), &plan, &err), -1);
    cr_assert(strstr(err.msg, "too little device memory to stream the tokens"), "%s", err.msg);
    lda_stream_plan_free(&plan);
    /* a forced size stays */
    plan_of(&f, LDA_STREAM_ON, 4 * f.b.total, 2, &plan);
    const size_t n = plan.num_chunks;
    cr_assert_eq(lda_stream_plan_refit(L, K_TOPICS, 1, &plan, &err), 0);
    cr_assert_eq(plan.num_chunks, n);
    lda_stream_plan_free(&plan);
    planned_free(&f);
}

/* The host's packed entry keeps a topic and a count of up to 65,535 each. */
Test(stream_plan, a_packed_entry_keeps_its_topic_and_count)
{
    const uint32_t values[] = {0, 1, 2, 255, 256, 32767, 32768, 65534, LDA_STREAM_PACKED_MOST};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        for (size_t j = 0; j < sizeof values / sizeof *values; j++) {
            const uint32_t e = lda_stream_pack_entry(values[i], values[j]);
            cr_assert_eq(lda_stream_packed_topic(e), values[i]);
            cr_assert_eq(lda_stream_packed_count(e), values[j]);
        }
}

/* A whole document of more than 65,535 tokens cannot be packed: streaming it is refused, with
 * what to do; cut into pieces it streams. */
Test(stream_plan, an_uncut_document_longer_than_the_packed_count_is_refused)
{
    corpus *c = test_planted_corpus(4, 40, 3, 70000, 70001, 5, NULL);
    lda_error err = {0};
    lda_layout *whole = lda_layout_build(c, 0, &err), *cut = lda_layout_build(c, 512, &err);
    cr_assert(whole && cut, "%s", err.msg);
    cr_assert_not_null(lda_stream_layout_refusal(whole));
    cr_assert_null(lda_stream_layout_refusal(cut));
    lda_stream_plan plan;
    cr_assert_eq(lda_stream_plan_make(whole, 16, LDA_STREAM_ON, 1u << 30, 0, 1ull << 40, 0, &plan, &err), -1);
    cr_assert(strstr(err.msg, "more than 65535 tokens is not cut into pieces (--piece-length)"), "%s", err.msg);
    const uint64_t cut_entries = lda_cut_list_entries(cut, 16);
    cr_assert_eq(lda_stream_plan_make(cut, 16, LDA_STREAM_ON, 1u << 30, cut_entries, 1ull << 40, 0, &plan, &err), 0,
                 "%s", err.msg);
    cr_assert(plan.streamed);
    lda_stream_plan_free(&plan);
    lda_layout_free(whole);
    lda_layout_free(cut);
    corpus_free(c);
}
