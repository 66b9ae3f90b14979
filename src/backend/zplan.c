/* zplan.c — the launch plan of the GPU z draw; see zplan.h. Every rule about which kernel
 * runs, with what shape and what memory, is here and nowhere else. */
#include "backend/zplan.h"

#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/sampler_sparse.h"
#include "core/sparse_draw.h"

static const char *const kernel_names[] = {
    [LDA_ZKERNEL_CPU] = "cpu",
    [LDA_ZKERNEL_STAGED] = "staged",
    [LDA_ZKERNEL_SPLIT] = "split",
    [LDA_ZKERNEL_COLLAPSED] = "collapsed",
    [LDA_ZKERNEL_PER_DOCUMENT] = "per-document",
    [LDA_ZKERNEL_SPARSE] = "sparse",
};

const char *lda_zkernel_name(lda_zkernel kernel)
{
    return (unsigned)kernel < sizeof kernel_names / sizeof kernel_names[0] ? kernel_names[kernel] : "?";
}

static size_t real_size(lda_precision precision)
{
    return precision == LDA_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
}

static uint32_t staged_warps(lda_precision precision)
{
    return precision == LDA_PRECISION_DOUBLE ? LDA_ZPLAN_STAGED_WARPS_DOUBLE : LDA_ZPLAN_STAGED_WARPS_FLOAT;
}

/* Part 0 has the longest group (groups are sorted by length) and the most groups. */
static double launch_fill(const lda_layout *L, uint32_t refresh, const lda_gpu_limits *gpu)
{
    if (L->num_warps == 0 || gpu->sm_count <= 0 || L->warp_len[0] == 0)
        return 0.0;
    double rows = 0.0;
    for (size_t q = 0; q < L->num_warps; q += refresh)
        rows += L->warp_len[q];
    return rows / ((double)gpu->sm_count * L->warp_len[0]);
}

static int refuse(lda_error *err, const char *what, const lda_params *p)
{
    lda_error_input(err, "--sampler %s: %s", lda_choice_name(lda_sampler_choices, p->sampler), what);
    return -1;
}

/* One document a thread; scratch: naive keeps a prefix-sum row a document, transpose and
 * stored also θ_local (float) a document. */
static void plan_per_document(const lda_params *p, const lda_layout *L, lda_zplan *z)
{
    const size_t row = (size_t)L->num_slots * p->num_topics;
    z->kernel = LDA_ZKERNEL_PER_DOCUMENT;
    z->warps_per_group = 1;
    z->threads_per_block = LDA_ZPLAN_PER_DOCUMENT_THREADS;
    z->scratch_bytes = p->sampler == LDA_SAMPLER_NAIVE ? row * real_size(p->precision)
                                                       : row * (sizeof(float) + real_size(p->precision)) + 64;
    snprintf(z->why, sizeof z->why, "one document a thread (--sampler %s)",
             lda_choice_name(lda_sampler_choices, p->sampler));
}

/* θ staged: one block a group; refuses (explicit --split staged) or declines (auto) when θ of
 * a group does not fit. Returns 1 when planned. */
static int plan_staged(const lda_params *p, const lda_gpu_limits *gpu, lda_zplan *z)
{
    const uint32_t warps = staged_warps(p->precision);
    const size_t smem = lda_butterfly_smem_bytes(p->num_topics, warps, 1, real_size(p->precision));
    if (smem > gpu->max_smem_per_block)
        return 0;
    z->kernel = LDA_ZKERNEL_STAGED;
    z->warps_per_group = warps;
    z->threads_per_block = warps * LDA_WARP;
    z->smem_bytes = smem;
    z->totals_in_smem = 1;
    z->scratch_bytes = 64;
    z->fused_counts = 1;
    z->fused_theta_mean = p->update == LDA_UPDATE_MEAN;
    return 1;
}

/* split warps a group (θ from global memory or, collapsed, n[m,k]), 4 warps a block. The
 * block totals go to shared memory when 4 warps' worth fits, else to global scratch, which
 * is sized for at most LDA_ZPLAN_DEFAULT_SPLIT warps a group. */
static void plan_split(const lda_params *p, const lda_layout *L, const lda_gpu_limits *gpu, uint32_t split,
                       lda_zplan *z)
{
    const size_t smem =
        lda_butterfly_smem_bytes(p->num_topics, LDA_ZPLAN_WARPS_PER_BLOCK, 0, real_size(p->precision));
    z->kernel = p->theta_collapsed ? LDA_ZKERNEL_COLLAPSED : LDA_ZKERNEL_SPLIT;
    z->threads_per_block = LDA_ZPLAN_WARPS_PER_BLOCK * LDA_WARP;
    z->totals_in_smem = smem <= gpu->max_smem_per_block;
    if (!z->totals_in_smem && split > LDA_ZPLAN_DEFAULT_SPLIT)
        split = LDA_ZPLAN_DEFAULT_SPLIT;
    z->warps_per_group = split;
    z->smem_bytes = z->totals_in_smem ? smem : 0;
    /* global totals: one region a launched warp (a launch rounds its warps up to whole blocks) */
    const size_t warps = z->groups_per_launch * split + LDA_ZPLAN_WARPS_PER_BLOCK;
    z->scratch_bytes = z->totals_in_smem ? 64
                                         : warps * (p->num_topics / LDA_WARP) * LDA_WARP * real_size(p->precision) + 64;
    (void)L;
}

/* One warp a document, the CPU's split draw (core/sparse_draw.h), after a kernel that
 * builds the word tables; a part's launch has its document groups' threads. The scratch
 * holds the tables and the lists (sampler_sparse.h). --refresh works as with butterfly. */
int lda_zplan_long_lists(const lda_layout *L, uint32_t K)
{
    uint64_t long_tokens = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        if (lda_sparse_list_capacity(K, L->slot_len[s], L->slot_doc_len[s]) >= LDA_ZPLAN_LONG_LIST)
            long_tokens += L->slot_len[s];
    return L->num_tokens && (double)long_tokens >= LDA_ZPLAN_LONG_LIST_SHARE * (double)L->num_tokens;
}

void lda_zplan_set_word_lists(const lda_layout *L, int word_lists, lda_zplan *z)
{
    z->sparse_word_lists = word_lists;
    z->word_list_ratio = word_lists == LDA_WORD_LISTS_NONE       ? 0
                         : word_lists == LDA_WORD_LISTS_WHOLE_ROWS ? UINT32_MAX
                                                                  : LDA_ZPLAN_WORD_LIST_RATIO;
    z->word_list_doc_most = word_lists == LDA_WORD_LISTS_NONE       ? 0
                            : word_lists == LDA_WORD_LISTS_WHOLE_ROWS ? UINT32_MAX
                                                                     : z->K / LDA_ZPLAN_WORD_LIST_DOC_SHARE;
    const uint64_t read_most = (uint64_t)z->word_list_ratio * z->word_list_doc_most;
    z->word_list_room = read_most < z->K ? (uint32_t)read_most : z->K;
    lda_sparse_scratch sc;
    lda_sparse_scratch_plan(L, z->K, z->precision, (lda_word_lists)word_lists, z->word_list_room, &sc);
    z->scratch_bytes = sc.total_bytes;
}

/* φ is the mean of the counts as they stand (not frozen): the GPU's draw forms it from them,
 * the CPU's takes the word side of its split. */
static int phi_is_the_counts_mean(const lda_params *p)
{
    return lda_phi_update(p) == LDA_UPDATE_MEAN && !p->freeze_phi;
}

/* ... and the GPU's draw forms it from them where the corpus is not large beside V × K
 * (LDA_ZPLAN_PHI_WRITTEN_SHARE), or where asked to. */
static int phi_formed_from_counts(const lda_params *p, const lda_layout *L)
{
    const uint64_t entries = (uint64_t)L->vocab_size * p->num_topics;
    return phi_is_the_counts_mean(p) && (p->phi_counts_only || p->num_topics < LDA_ZPLAN_PHI_WRITTEN_FROM_K ||
                                         entries == 0 ||
                                         (uint64_t)L->num_tokens * LDA_ZPLAN_PHI_WRITTEN_SHARE < entries);
}

int lda_zplan_writes_counts_mean(const lda_params *p, const lda_zplan *z)
{
    return z->kernel == LDA_ZKERNEL_SPARSE && phi_is_the_counts_mean(p) && !z->phi_from_counts;
}

static void plan_sparse(const lda_params *p, const lda_layout *L, lda_zplan *z)
{
    /* φ's mean (the collapsed model) is formed from the counts by the word tables and the draw
     * as they read it, so an update writes only its K scales and φ is written when something
     * reads it (at K = 10,000 on wiki43k the mean's pass over V × K, written and read back,
     * was 2.0 of 7.3 ms), but on corpora large beside V × K (zplan.h,
     * LDA_ZPLAN_PHI_WRITTEN_SHARE). A frozen φ (infer, document completion) is set, and read. */
    z->phi_from_counts = phi_formed_from_counts(p, L);
    z->z_marks_changes = p->num_topics <= LDA_ZPLAN_Z_MARKS_MOST_K;
    const int lists_long = p->sparse_long_lists >= 0 ? p->sparse_long_lists : lda_zplan_long_lists(L, p->num_topics),
              phi_read_large_k = !z->phi_from_counts && p->num_topics >= LDA_ZPLAN_LONG_LIST_PHI_READ;
    z->sparse_long_lists = lists_long || phi_read_large_k;
    const int word_lists = z->sparse_long_lists && z->phi_from_counts && p->num_topics >= LDA_ZPLAN_WORD_LISTS_FROM_K;
    z->kernel = LDA_ZKERNEL_SPARSE;
    z->counts_by_word = lda_zplan_writes_counts_mean(p, z) && z->z_marks_changes && p->theta_collapsed &&
                        p->num_topics <= LDA_ZPLAN_COUNTS_BY_WORD_MOST_K;
    z->warps_per_group = 1;
    z->threads_per_block = LDA_ZPLAN_PER_DOCUMENT_THREADS;
    lda_zplan_set_word_lists(L, word_lists ? LDA_WORD_LISTS_BY_TOKENS : LDA_WORD_LISTS_NONE, z);
    snprintf(z->why, sizeof z->why, "sparse: one warp a document over its topics (%s), then the word's table of "
             "%u-topic blocks (%zu MiB of tables and lists)",
             word_lists         ? "long lists, their sums carried along a word's run, n[w,k] read as word lists"
             : lists_long       ? "long lists, their sums carried along a word's run"
             : phi_read_large_k ? "long lists' form: φ read at K >= " LDA_STRINGIFY(LDA_ZPLAN_LONG_LIST_PHI_READ)
                                  ", sums carried along a word's run"
                                : "short lists",
             LDA_SPARSE_BLOCK, z->scratch_bytes >> 20);
    if (lda_zplan_writes_counts_mean(p, z)) {
        const size_t used = strlen(z->why);
        snprintf(z->why + used, sizeof z->why - used, "; φ's mean written an iteration (the corpus large beside V x K)");
    }
}

uint64_t lda_gpu_max_tokens(const lda_params *p)
{
    const int one_gpu = p->shards <= 1 && !p->over_ranks;
    return p->sampler == LDA_SAMPLER_SPARSE && one_gpu ? LDA_GPU_MAX_TOKENS : LDA_GPU_MAX_TOKENS_UNCHECKED;
}

int lda_zplan_make(const lda_params *p, const lda_layout *L, const lda_gpu_limits *gpu, lda_zplan *z,
                   lda_error *err)
{
    memset(z, 0, sizeof *z);
    z->sampler = p->sampler;
    z->precision = p->precision;
    z->theta_collapsed = p->theta_collapsed;
    z->K = p->num_topics;
    z->groups_per_launch = lda_part_warps(L->num_warps, 0, p->refresh);
    z->fill = launch_fill(L, p->refresh, gpu);
    if (lda_zplan_check(p, err))
        return -1;
    const uint64_t most = lda_gpu_max_tokens(p);
    if (L->num_tokens > most) {
        if (most == LDA_GPU_MAX_TOKENS)
            lda_error_input(err, "%zu tokens: a corpus has at most %llu", L->num_tokens, (unsigned long long)most);
        else
            lda_error_input(err, "%zu tokens: this GPU run takes at most %llu (its topic counts are 32-bit and "
                            "unchecked); --model collapsed --sampler sparse on one GPU, or --device cpu, takes them",
                            L->num_tokens, (unsigned long long)most);
        return -1;
    }
    if (lda_sampler_cpu_only(p->sampler))
        return refuse(err, "runs on the CPU only (--device cpu)", p);
    if (p->sampler == LDA_SAMPLER_SPARSE) {
        plan_sparse(p, L, z);
        return 0;
    }
    if (p->sampler != LDA_SAMPLER_BUTTERFLY) {
        if (p->refresh > 1)
            return refuse(err, "--refresh is implemented by --sampler butterfly and sparse only", p);
        if (p->theta_collapsed && p->sampler != LDA_SAMPLER_NAIVE)
            return refuse(err, "draws with θ given; θ-collapsed models need butterfly or naive", p);
        plan_per_document(p, L, z);
        return 0;
    }
    if (p->theta_collapsed) { /* a document's tokens in order, by its own lane */
        plan_split(p, L, gpu, 1, z);
        snprintf(z->why, sizeof z->why, "θ collapsed: one warp a group of 32 documents, counts changed token by token");
        return 0;
    }
    const size_t staged_smem =
        lda_butterfly_smem_bytes(p->num_topics, staged_warps(p->precision), 1, real_size(p->precision));
    if (p->split == LDA_SPLIT_STAGED) {
        if (!plan_staged(p, gpu, z)) {
            lda_error_input(err, "--split staged: θ of a document group (%zu KiB at K=%u) does not fit in the %zu KiB "
                            "of shared memory a block may have",
                            staged_smem >> 10, p->num_topics, gpu->max_smem_per_block >> 10);
            return -1;
        }
        snprintf(z->why, sizeof z->why, "--split staged: one block of %u warps a group, θ in shared memory (%zu KiB)",
                 z->warps_per_group, z->smem_bytes >> 10);
        return 0;
    }
    if (p->split != LDA_SPLIT_AUTO) {
        plan_split(p, L, gpu, p->split, z);
        snprintf(z->why, sizeof z->why, "--split %u: %u warps a group, θ read from global memory%s", p->split,
                 z->warps_per_group, z->totals_in_smem ? "" : " (block totals in global memory)");
        return 0;
    }
    if (z->fill >= LDA_ZPLAN_STAGED_MIN_FILL && plan_staged(p, gpu, z)) {
        snprintf(z->why, sizeof z->why, "auto: staged (one block of %u warps a group, θ in shared memory, %zu KiB; "
                 "a launch's rows fill %.2f waves of its longest group >= %.1f)", z->warps_per_group,
                 z->smem_bytes >> 10, z->fill, LDA_ZPLAN_STAGED_MIN_FILL);
        return 0;
    }
    plan_split(p, L, gpu, LDA_ZPLAN_DEFAULT_SPLIT, z);
    if (staged_smem > gpu->max_smem_per_block)
        snprintf(z->why, sizeof z->why, "auto: %u warps a group, θ from global memory (θ of a group, %zu KiB, does "
                 "not fit in shared memory)", z->warps_per_group, staged_smem >> 10);
    else
        snprintf(z->why, sizeof z->why, "auto: %u warps a group, θ from global memory (a launch's rows fill %.2f "
                 "waves of its longest group < %.1f: staging would leave SMs idle)", z->warps_per_group, z->fill,
                 LDA_ZPLAN_STAGED_MIN_FILL);
    return 0;
}

int lda_zplan_check(const lda_params *p, lda_error *err)
{
    if (p->sampler == LDA_SAMPLER_AUTO) {
        lda_error_fail(err, "internal error: --sampler auto was not resolved before the run was planned");
        return -1;
    }
    if (p->sampler == LDA_SAMPLER_SPARSE && !p->theta_collapsed)
        return refuse(err, "draws the θ-collapsed models only (--model theta-collapsed or collapsed)", p);
    if (lda_sampler_cpu_only(p->sampler) && (!p->theta_collapsed || !phi_is_the_counts_mean(p)))
        return refuse(err, "draws the collapsed model only (--model collapsed)", p);
    return 0;
}

void lda_zplan_resolve_sampler(lda_params *p)
{
    if (p->sampler == LDA_SAMPLER_AUTO && p->theta_collapsed && phi_is_the_counts_mean(p)) {
        char why[256];
        if (p->device == LDA_DEVICE_CPU || (p->device == LDA_DEVICE_AUTO && lda_cuda_device_count(why, sizeof why) == 0))
            p->sampler = LDA_SAMPLER_ALIAS;
    }
    lda_params_resolve_sampler(p);
    /* auto picks a device that runs the sampler: sparselda, alias and mh run on the CPU only, so a
     * model trained with one resumes under --device auto on a machine with a GPU (on the CPU, where
     * it was made). */
    if (lda_sampler_cpu_only(p->sampler) && p->device == LDA_DEVICE_AUTO)
        p->device = LDA_DEVICE_CPU;
}

int lda_zplan_cpu(const lda_params *p, int threads, lda_zplan *z, lda_error *err)
{
    memset(z, 0, sizeof *z);
    if (lda_zplan_check(p, err))
        return -1;
    z->kernel = LDA_ZKERNEL_CPU;
    z->sampler = p->sampler;
    z->precision = p->precision;
    z->theta_collapsed = p->theta_collapsed;
    z->K = p->num_topics;
    z->word_side_quarters =
        p->sampler == LDA_SAMPLER_SPARSE && phi_is_the_counts_mean(p) ? LDA_ZPLAN_CPU_WORD_SIDE_QUARTERS : 0;
    z->sparselda_parts = p->sampler == LDA_SAMPLER_SPARSELDA ? LDA_ZPLAN_SPARSELDA_PARTS : 0;
    z->alias_block_warps = p->sampler == LDA_SAMPLER_ALIAS ? LDA_ZPLAN_ALIAS_BLOCK_WARPS
                           : p->sampler == LDA_SAMPLER_MH  ? LDA_ZPLAN_MH_BLOCK_WARPS
                                                           : 0;
    if (p->sampler == LDA_SAMPLER_MH)
        snprintf(z->why, sizeof z->why, "CPU mh: blocks of %u documents drawn word by word, the word-topic counts "
                 "moving within a block, alias's draw the proposal of a Metropolis-Hastings step; %d thread%s",
                 z->alias_block_warps * LDA_WARP, threads, threads == 1 ? "" : "s");
    else if (p->sampler == LDA_SAMPLER_ALIAS)
        snprintf(z->why, sizeof z->why, "CPU alias: blocks of a share of the tokens a thread (up to %u documents) "
                 "drawn word by word, the document's topics summed, the word's and the smoothing from alias tables; "
                 "%d thread%s",
                 z->alias_block_warps * LDA_WARP, threads, threads == 1 ? "" : "s");
    else if (p->sampler == LDA_SAMPLER_SPARSELDA)
        snprintf(z->why, sizeof z->why, "CPU sparselda: the word's topics by count, the document's, then every "
                 "topic's smoothing; counts moving token by token in %u parts, %d thread%s", z->sparselda_parts,
                 threads, threads == 1 ? "" : "s");
    else if (p->sampler == LDA_SAMPLER_SPARSE)
        snprintf(z->why, sizeof z->why, "CPU sparse: a document's topics%s, then the word's table of %u-topic blocks, "
                 "%d thread%s", z->word_side_quarters ? " or the word's where it has fewer" : "", LDA_SPARSE_BLOCK,
                 threads, threads == 1 ? "" : "s");
    else
        snprintf(z->why, sizeof z->why, "CPU reference: prefix sums and binary search, %d thread%s", threads,
                 threads == 1 ? "" : "s");
    return 0;
}

void lda_zplan_draw_only(lda_zplan *z)
{
    z->fused_counts = 0;
    z->fused_theta_mean = 0;
    z->phi_from_counts = 0;
    z->z_marks_changes = 0;
    z->counts_by_word = 0;
}
