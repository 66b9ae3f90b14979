/* test_zplan.c — the GPU z launch plan (backend/zplan.h): every rule about which kernel runs,
 * its shape, memory and reason, checked without a GPU against an H100's limits. */
#include <criterion/criterion.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "backend/zplan.h"

static const lda_gpu_limits h100 = {227 * 1024, 132};

/* The plan reads only the layout's shape: `groups` document groups, the first of `longest`
 * rows, the others of `rows` (wiki43k: 1362 groups, 445 rows at most, 70 on average). */
static uint32_t warp_len[4096];
static lda_layout layout_rows(size_t groups, uint32_t longest, uint32_t rows)
{
    lda_layout L;
    memset(&L, 0, sizeof L);
    cr_assert_leq(groups, 4096);
    L.num_warps = groups;
    L.num_slots = groups * LDA_WARP;
    L.warp_len = warp_len;
    for (size_t q = 0; q < groups; q++)
        warp_len[q] = q == 0 ? longest : rows;
    return L;
}

static lda_layout layout_of(size_t groups)
{
    return layout_rows(groups, 445, 70);
}

static lda_params params(lda_model_kind model, uint32_t K)
{
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    lda_params_set_model(&p, model);
    return p;
}

static lda_zplan plan_on(const lda_params *p, const lda_layout *L)
{
    lda_zplan z;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(p, L, &h100, &z, &err), 0, "%s", err.msg);
    cr_assert(z.why[0], "every plan says why");
    return z;
}

static lda_zplan plan_ok(const lda_params *p, size_t groups)
{
    lda_layout L = layout_of(groups);
    lda_zplan z;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(p, &L, &h100, &z, &err), 0, "%s", err.msg);
    cr_assert(z.why[0], "every plan says why");
    return z;
}

static void plan_refused(const lda_params *p, size_t groups, const char *needle)
{
    lda_layout L = layout_of(groups);
    lda_zplan z;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(p, &L, &h100, &z, &err), -1, "accepted: %s", z.why);
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    cr_assert(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
}

Test(zplan, auto_stages_theta_with_many_groups)
{
    lda_params p = params(LDA_MODEL_MEAN_FOR_MODE, 1024);
    lda_zplan z = plan_ok(&p, 1362); /* wiki43k */
    cr_assert_eq(z.kernel, LDA_ZKERNEL_STAGED, "%s", z.why);
    cr_assert_eq(z.warps_per_group, LDA_ZPLAN_STAGED_WARPS_FLOAT);
    cr_assert_eq(z.threads_per_block, LDA_ZPLAN_STAGED_WARPS_FLOAT * 32);
    cr_assert(z.fused_counts && z.fused_theta_mean);
    /* θ of 32 documents, 12 warps' block totals, the n[k] tally */
    cr_assert_eq(z.smem_bytes, (size_t)32 * 1024 * 4 + 12 * 1024 * 4 + 1024 * 4);
    p = params(LDA_MODEL_UNCOLLAPSED, 1024);
    z = plan_ok(&p, 1362);
    cr_assert(z.kernel == LDA_ZKERNEL_STAGED && z.fused_counts && !z.fused_theta_mean, "%s", z.why);
    p.precision = LDA_PRECISION_DOUBLE;
    z = plan_ok(&p, 1362);
    cr_assert(z.kernel == LDA_ZKERNEL_STAGED && z.warps_per_group == LDA_ZPLAN_STAGED_WARPS_DOUBLE, "%s", z.why);
}

Test(zplan, auto_reads_theta_from_global_memory_when_the_rows_are_few)
{
    lda_params p = params(LDA_MODEL_MEAN_FOR_MODE, 1024);
    p.refresh = 8; /* 1362 groups in 8 parts: 171 a launch, (445 + 170 x 70) / (132 x 445) = 0.21 waves */
    lda_zplan z = plan_ok(&p, 1362);
    cr_assert_eq(z.groups_per_launch, 171);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_SPLIT, "%s", z.why);
    cr_assert_eq(z.warps_per_group, LDA_ZPLAN_DEFAULT_SPLIT);
    cr_assert(!z.fused_counts && !z.fused_theta_mean);
    cr_assert(strstr(z.why, "fill 0.21 waves of its longest group < 0.6"), "%s", z.why);
    /* few groups, but long ones: 241 groups of 512 rows fill 1.83 waves, staging pays */
    p.refresh = 1;
    lda_layout L = layout_rows(241, 512, 512);
    z = plan_on(&p, &L);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_STAGED, "%s", z.why);
    cr_assert(strstr(z.why, "fill 1.83 waves"), "%s", z.why);
}

Test(zplan, auto_reads_theta_from_global_memory_when_it_does_not_fit)
{
    lda_params p = params(LDA_MODEL_UNCOLLAPSED, 2048); /* 256 KiB of θ a group */
    lda_zplan z = plan_ok(&p, 1362);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_SPLIT, "%s", z.why);
    cr_assert(strstr(z.why, "does not fit"), "%s", z.why);
    p.split = LDA_SPLIT_STAGED;
    plan_refused(&p, 1362, "--split staged");
}

Test(zplan, explicit_splits_are_kept)
{
    lda_params p = params(LDA_MODEL_UNCOLLAPSED, 1024);
    p.split = 1; /* the paper's one-warp loop */
    lda_zplan z = plan_ok(&p, 1362);
    cr_assert(z.kernel == LDA_ZKERNEL_SPLIT && z.warps_per_group == 1 && z.totals_in_smem, "%s", z.why);
    cr_assert_eq(z.smem_bytes, (size_t)LDA_ZPLAN_WARPS_PER_BLOCK * 1024 * 4);
    p.split = LDA_SPLIT_STAGED; /* staged on request, however few the groups */
    z = plan_ok(&p, 3);
    cr_assert(z.kernel == LDA_ZKERNEL_STAGED && z.fused_counts, "%s", z.why);
}

Test(zplan, block_totals_beyond_shared_memory_go_to_sized_global_scratch)
{
    /* K = 20,000 in double: 4 warps' block totals are 625 KiB, more than a block may have */
    lda_params p = params(LDA_MODEL_UNCOLLAPSED, 20000);
    p.precision = LDA_PRECISION_DOUBLE;
    p.split = 64;
    lda_zplan z = plan_ok(&p, 100);
    cr_assert(z.kernel == LDA_ZKERNEL_SPLIT && !z.totals_in_smem && z.smem_bytes == 0, "%s", z.why);
    cr_assert_eq(z.warps_per_group, LDA_ZPLAN_DEFAULT_SPLIT, "global scratch holds at most 32 warps a group");
    const size_t per_warp = (size_t)(20000 / 32) * 32 * sizeof(double);
    cr_assert_geq(z.scratch_bytes, 100 * 32 * per_warp, "one region a launched warp");
}

Test(zplan, theta_collapsed_runs_one_warp_a_group)
{
    lda_params p = params(LDA_MODEL_COLLAPSED, 1024);
    p.split = 32; /* ignored: a document's tokens are drawn in order */
    lda_zplan z = plan_ok(&p, 1362);
    cr_assert(z.kernel == LDA_ZKERNEL_COLLAPSED && z.warps_per_group == 1 && !z.fused_counts, "%s", z.why);
}

Test(zplan, other_samplers_draw_one_document_a_thread)
{
    lda_params p = params(LDA_MODEL_UNCOLLAPSED, 64);
    p.sampler = LDA_SAMPLER_NAIVE;
    lda_zplan z = plan_ok(&p, 10);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_PER_DOCUMENT);
    cr_assert_eq(z.scratch_bytes, (size_t)10 * 32 * 64 * sizeof(float), "a prefix-sum row a document");
    p = params(LDA_MODEL_COLLAPSED, 64);
    p.sampler = LDA_SAMPLER_NAIVE;
    cr_assert_eq(plan_ok(&p, 10).kernel, LDA_ZKERNEL_PER_DOCUMENT);
    p.sampler = LDA_SAMPLER_TRANSPOSE;
    plan_refused(&p, 10, "θ-collapsed models need butterfly or naive");
    p = params(LDA_MODEL_UNCOLLAPSED, 64);
    p.sampler = LDA_SAMPLER_BUTTERFLY_STORED;
    p.refresh = 2;
    plan_refused(&p, 10, "--refresh is implemented by --sampler butterfly and sparse only");
}

Test(zplan, draw_only_keeps_the_kernel)
{
    lda_params p = params(LDA_MODEL_MEAN_FOR_MODE, 256);
    lda_zplan z = plan_ok(&p, 600);
    lda_zplan_draw_only(&z);
    cr_assert(z.kernel == LDA_ZKERNEL_STAGED && !z.fused_counts && !z.fused_theta_mean);
}

/* --sampler auto: sparse for the θ-collapsed models, butterfly for the others; a named sampler
 * stays; a plan of an unresolved auto is an internal error, not a guess. */
Test(zplan, auto_resolves_by_the_model_before_the_plan)
{
    static const struct {
        lda_model_kind model;
        lda_sampler sampler;
        lda_zkernel kernel;
    } cases[] = {{LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, LDA_ZKERNEL_SPARSE},
                 {LDA_MODEL_THETA_COLLAPSED, LDA_SAMPLER_SPARSE, LDA_ZKERNEL_SPARSE},
                 {LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, LDA_ZKERNEL_STAGED},
                 {LDA_MODEL_MEAN_FOR_MODE, LDA_SAMPLER_BUTTERFLY, LDA_ZKERNEL_STAGED},
                 {LDA_MODEL_PHI_MEAN, LDA_SAMPLER_BUTTERFLY, LDA_ZKERNEL_STAGED}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lda_params p = params(cases[i].model, 256);
        p.sampler = LDA_SAMPLER_AUTO;
        lda_layout L = layout_of(1362);
        lda_zplan z;
        lda_error err = {0};
        cr_assert_eq(lda_zplan_make(&p, &L, &h100, &z, &err), -1, "an unresolved auto was planned: %s", z.why);
        cr_assert_eq(err.status, LDA_EXIT_FAILURE, "%s", err.msg);
        lda_params_resolve_sampler(&p);
        cr_assert_eq(p.sampler, cases[i].sampler, "model %d", (int)cases[i].model);
        if (cases[i].kernel != LDA_ZKERNEL_SPARSE) /* (its plan reads the layout's slots, which these lack) */
            cr_assert_eq(plan_ok(&p, 1362).kernel, cases[i].kernel, "model %d", (int)cases[i].model);
    }
    lda_params p = params(LDA_MODEL_COLLAPSED, 256);
    p.sampler = LDA_SAMPLER_NAIVE;
    lda_params_resolve_sampler(&p);
    cr_assert_eq(p.sampler, LDA_SAMPLER_NAIVE, "a named sampler is kept");
}

/* Where the GPU's topic totals n[k] are not checked (every draw but the sparse one of one GPU),
 * a corpus of more tokens than they hold is refused before anything is allocated, naming the
 * sparse draw and the CPU, which take it; one token fewer is planned. */
Test(zplan, more_tokens_than_the_gpus_counts_hold_are_refused)
{
    lda_params p = params(LDA_MODEL_MEAN_FOR_MODE, 1024);
    lda_layout L = layout_of(1362);
    L.num_tokens = (size_t)UINT32_MAX;
    plan_on(&p, &L);
    L.num_tokens = (size_t)UINT32_MAX + 1;
    lda_zplan z;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(&p, &L, &h100, &z, &err), -1, "accepted: %s", z.why);
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    cr_assert(strstr(err.msg, "4294967296 tokens") && strstr(err.msg, "at most 4294967295") &&
                  strstr(err.msg, "--sampler sparse on one GPU") && strstr(err.msg, "--device cpu"),
              "%s", err.msg);
}

/* The sparse draw of one GPU (in device memory or streamed) indexes its tokens in 64 bits and
 * checks its topic totals after every pass, so it takes a corpus's most tokens; on several GPUs,
 * whose summed totals are not checked, and for every other sampler, the most is 2^32 - 1. */
Test(zplan, the_sparse_draw_of_one_gpu_takes_a_corpus_past_2_to_the_32)
{
    lda_params p = params(LDA_MODEL_COLLAPSED, 1024);
    p.sampler = LDA_SAMPLER_SPARSE;
    cr_assert_eq(lda_gpu_max_tokens(&p), CORPUS_MAX_TOKENS);
    lda_params q = p;
    q.shards = 2;
    cr_assert_eq(lda_gpu_max_tokens(&q), UINT32_MAX, "several GPUs");
    q = p;
    q.over_ranks = 1;
    cr_assert_eq(lda_gpu_max_tokens(&q), UINT32_MAX, "MPI processes");
    q = params(LDA_MODEL_COLLAPSED, 1024);
    q.sampler = LDA_SAMPLER_BUTTERFLY;
    cr_assert_eq(lda_gpu_max_tokens(&q), UINT32_MAX, "another sampler");

    /* the plan of a layout of 5 x 10^9 tokens (its shape alone: the slots' lengths are zero) */
    static uint32_t zeros[64 * LDA_WARP];
    lda_layout L = layout_of(64);
    L.slot_len = L.slot_doc_len = zeros;
    L.num_tokens = (size_t)5000000000u;
    p.sparse_long_lists = 0;
    lda_zplan z = plan_on(&p, &L);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_SPARSE);
    L.num_tokens = (size_t)CORPUS_MAX_TOKENS + 1;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_make(&p, &L, &h100, &z, &err), -1, "accepted: %s", z.why);
    cr_assert(strstr(err.msg, "72057594037927936 tokens") && strstr(err.msg, "at most 72057594037927935"),
              "%s", err.msg);
    p.shards = 2;
    L.num_tokens = (size_t)UINT32_MAX + 1;
    cr_assert_eq(lda_zplan_make(&p, &L, &h100, &z, &err), -1, "accepted on 2 GPUs: %s", z.why);
    cr_assert(strstr(err.msg, "at most 4294967295"), "%s", err.msg);
}

/* The collapsed model's φ is written an iteration, not formed from the counts by the draw, on a
 * corpus large beside V × K (zplan.h, LDA_ZPLAN_PHI_WRITTEN_SHARE) at K >= 1024; the word lists,
 * which read the counts, go with it. 10^9 tokens, V = 10^5, K = 10^4 write it; 10^8 do not, nor
 * K = 512, nor a run asked for the counts' form (streamed tokens), nor θ-collapsed (φ drawn). */
/* The sparse plan of `model` at K topics on L (phi_counts_only as given). */
static lda_zplan sparse_plan(lda_model_kind model, uint32_t K, int phi_counts_only, const lda_layout *L,
                             lda_params *p)
{
    *p = params(model, K);
    p->sampler = LDA_SAMPLER_SPARSE;
    p->phi_counts_only = phi_counts_only;
    return plan_on(p, L);
}

Test(zplan, phi_is_written_on_a_corpus_large_beside_v_times_k)
{
    static uint32_t zeros[64 * LDA_WARP];
    lda_layout L = layout_of(64);
    L.slot_len = L.slot_doc_len = zeros;
    L.vocab_size = 100000;
    L.num_tokens = (size_t)1000000000u;
    lda_params p;
    lda_zplan z = sparse_plan(LDA_MODEL_COLLAPSED, 10000, 0, &L, &p);
    cr_assert_eq(z.phi_from_counts, 0, "10^9 tokens: %s", z.why);
    cr_assert_eq(z.sparse_long_lists, 1);
    cr_assert_eq(z.sparse_word_lists, LDA_WORD_LISTS_NONE, "no word lists without the counts' form");
    cr_assert(strstr(z.why, "written"), "%s", z.why);
    cr_assert(lda_zplan_writes_counts_mean(&p, &z));
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 10000, 1, &L, &p).phi_from_counts, 1, "the counts' form asked");
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 1024, 0, &L, &p).phi_from_counts, 0, "K = 1024");
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 512, 0, &L, &p).phi_from_counts, 1, "K = 512");
    z = sparse_plan(LDA_MODEL_THETA_COLLAPSED, 10000, 0, &L, &p);
    cr_assert(!z.phi_from_counts && !lda_zplan_writes_counts_mean(&p, &z), "φ drawn is not the counts' mean");
    L.num_tokens = (size_t)100000000u; /* 10^8: a word's 1000 tokens, under K / 4 */
    z = sparse_plan(LDA_MODEL_COLLAPSED, 10000, 0, &L, &p);
    cr_assert(z.phi_from_counts && !lda_zplan_writes_counts_mean(&p, &z), "10^8 tokens: %s", z.why);
}

/* The count update files n[w,k]'s changes by word where φ's mean is written an iteration (its
 * words are then dead between the draw and the mean's pass) and K's changes fit a block's shared
 * memory (zplan.h, LDA_ZPLAN_COUNTS_BY_WORD_MOST_K); not where the draw forms φ from the counts
 * (which it reads), nor where φ is drawn, nor past that K. */
Test(zplan, counts_by_word_where_phi_is_written_and_k_fits)
{
    static uint32_t zeros[64 * LDA_WARP];
    lda_layout L = layout_of(64);
    L.slot_len = L.slot_doc_len = zeros;
    L.vocab_size = 100000;
    L.num_tokens = (size_t)1000000000u;
    lda_params p;
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 10000, 0, &L, &p).counts_by_word, 1, "10^9 tokens, K = 10^4");
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, LDA_ZPLAN_COUNTS_BY_WORD_MOST_K, 0, &L, &p).counts_by_word, 1);
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, LDA_ZPLAN_COUNTS_BY_WORD_MOST_K + 1, 0, &L, &p).counts_by_word, 0);
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 10000, 1, &L, &p).counts_by_word, 0, "the counts' form asked");
    cr_assert_eq(sparse_plan(LDA_MODEL_THETA_COLLAPSED, 10000, 0, &L, &p).counts_by_word, 0, "φ drawn");
    L.num_tokens = (size_t)100000000u; /* φ formed from the counts */
    cr_assert_eq(sparse_plan(LDA_MODEL_COLLAPSED, 10000, 0, &L, &p).counts_by_word, 0, "10^8 tokens");
}
