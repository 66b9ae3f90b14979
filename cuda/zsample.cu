// zsample.cu — the z-sampling launcher: runs the kernel the plan (backend/zplan.h) names,
// with the shape and memory the plan gives. It decides nothing itself.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#ifdef LDA_DRAW_STATS
#include <stdio.h>
#endif

#include "backend/sampler_sparse.h"
#include "check.cuh"
#include "zsample.cuh"
#include "zsample_butterfly.cuh"
#include "zsample_butterfly_stored.cuh"
#include "zsample_naive.cuh"
#include "sparse_table.cuh"
#include "zsample_sparse.cuh"
#include "zsample_transpose.cuh"

// Kernels that need more than the default 48 KiB of shared memory must opt in.
template <typename KERNEL> static cudaError_t allow_smem(KERNEL fn, size_t smem)
{
    return smem > 48 * 1024 ? cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)
                            : cudaSuccess;
}

template <typename REAL>
static int launch_butterfly(const lda_zplan &plan, const zsample_args &a, const zsample_fused &fused,
                            cudaStream_t stream, lda_error *err)
{
    const size_t groups = lda_part_warps(a.num_warps, a.part, a.part_count);
    if (plan.kernel == LDA_ZKERNEL_STAGED) {
        CUDA_TRY(allow_smem(butterfly_staged_kernel<REAL>::fn, plan.smem_bytes));
        butterfly_staged_kernel<REAL>::fn<<<(unsigned)groups, plan.threads_per_block, plan.smem_bytes, stream>>>(a,
                                                                                                            fused);
        LAUNCH_TRY();
        return 0;
    }
    {
        const size_t warps = groups * plan.warps_per_group;
        const unsigned blocks = (unsigned)((warps + LDA_ZPLAN_WARPS_PER_BLOCK - 1) / LDA_ZPLAN_WARPS_PER_BLOCK);
        REAL *totals = plan.totals_in_smem ? NULL : static_cast<REAL *>(a.scratch);
        if (plan.kernel == LDA_ZKERNEL_COLLAPSED) {
            CUDA_TRY(allow_smem(butterfly_kernel<REAL, true>::fn, plan.smem_bytes));
            butterfly_kernel<REAL, true>::fn<<<blocks, plan.threads_per_block, plan.smem_bytes, stream>>>(a, totals);
        } else {
            CUDA_TRY(allow_smem(butterfly_kernel<REAL, false>::fn, plan.smem_bytes));
            butterfly_kernel<REAL, false>::fn<<<blocks, plan.threads_per_block, plan.smem_bytes, stream>>>(a, totals);
        }
    }
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

template <typename REAL>
static int launch_per_document(const lda_zplan &plan, const zsample_args &a, cudaStream_t stream, lda_error *err)
{
    const unsigned threads = plan.threads_per_block;
    const unsigned blocks = (unsigned)((a.num_slots + threads - 1) / threads);
    switch (plan.sampler) {
    case LDA_SAMPLER_BUTTERFLY_STORED:
        zsample_butterfly_stored_kernel<REAL><<<blocks, threads, 0, stream>>>(a);
        break;
    case LDA_SAMPLER_TRANSPOSE:
        zsample_transpose_kernel<REAL><<<blocks, threads, 0, stream>>>(a);
        break;
    case LDA_SAMPLER_NAIVE:
        if (a.theta_collapsed)
            zsample_naive_kernel<REAL, true><<<blocks, threads, 0, stream>>>(a);
        else
            zsample_naive_kernel<REAL, false><<<blocks, threads, 0, stream>>>(a);
        break;
    default:
        lda_error_fail(err, "internal error: no per-document kernel for sampler %d", (int)plan.sampler);
        return -1;
    }
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int zsample_sparse_prepare(const lda_zplan &plan, const lda_layout *L, void *scratch, void *word_scratch,
                           const uint32_t *slot_doc_len, zsample_sparse_tables *out, lda_error *err)
{
    memset(out, 0, sizeof *out);
    if (plan.kernel != LDA_ZKERNEL_SPARSE)
        return 0;
    out->z_marks_changes = plan.z_marks_changes;
    lda_sparse_scratch sc;
    const lda_word_lists word_lists = (lda_word_lists)plan.sparse_word_lists;
    lda_sparse_scratch_plan(L, plan.K, plan.precision, word_lists, plan.word_list_room, &sc);
    const size_t most = L->num_slots > L->vocab_size ? L->num_slots : L->vocab_size; // the slots' or the words'
    uint64_t *offsets = (uint64_t *)lda_malloc_array(most + 1, sizeof *offsets, "list offsets", err);
    if (!offsets)
        return -1;
    char *base = static_cast<char *>(scratch);
    // the word lists' part of the plan's scratch, where it is apart from the rest
    char *word_base = word_scratch ? static_cast<char *>(word_scratch) - sc.word_offsets_at : base;
    lda_sparse_list_offsets(L, plan.K, offsets);
    cudaError_t e = cudaMemcpy(base + sc.offsets_at, offsets, (L->num_slots + 1) * sizeof *offsets,
                               cudaMemcpyHostToDevice);
    if (e == cudaSuccess && word_lists != LDA_WORD_LISTS_NONE) {
        lda_sparse_word_list_offsets(L, plan.K, word_lists, plan.word_list_room, offsets);
        e = cudaMemcpy(word_base + sc.word_offsets_at, offsets, (L->vocab_size + 1) * sizeof *offsets,
                       cudaMemcpyHostToDevice);
    }
    free(offsets);
    CUDA_TRY(e);
    if (word_lists != LDA_WORD_LISTS_NONE) {
        out->words.offset = reinterpret_cast<const uint64_t *>(word_base + sc.word_offsets_at);
        out->words.topics = reinterpret_cast<uint32_t *>(word_base + sc.word_topics_at);
        out->words.counts = reinterpret_cast<uint32_t *>(word_base + sc.word_counts_at);
        out->words.len = reinterpret_cast<uint32_t *>(word_base + sc.word_lengths_at);
        out->word_list_ratio = plan.word_list_ratio;
        out->word_list_doc_most = plan.word_list_doc_most;
    }
    out->table = base;
    out->list_offset = reinterpret_cast<const uint64_t *>(base + sc.offsets_at);
    if (!word_scratch) { // else the slots' lists are a chunk's, in its buffer (stream_pass.cu)
        out->lists = reinterpret_cast<uint32_t *>(base + sc.lists_at);
        out->counts = reinterpret_cast<uint32_t *>(base + sc.counts_at);
        out->list_len = reinterpret_cast<uint32_t *>(base + sc.lengths_at);
    }
    out->slot_doc_len = slot_doc_len;
    out->V = L->vocab_size;
    out->precision = plan.precision;
    return 0;
fail:
    return -1;
}

// The word tables from φ and α as they are now, then the draw. (Building them in the collapsed
// model's φ mean, one pass over the counts, was measured slower on the H100: at K = 10,000 on
// wiki43k that pass took 5.9 ms, a warp to 32 words at 15% occupancy, against 9.5 ms for the
// whole iteration with the mean's own elementwise kernel and this launch's coalesced tables.)
template <typename REAL>
static int draw_sparse(const lda_zplan &plan, const zsample_args &a, const zsample_sparse_tables &t,
                       cudaStream_t stream, lda_error *err)
{
    const unsigned threads = plan.threads_per_block;
    const size_t slots = lda_part_warps(a.num_warps, a.part, a.part_count) * LDA_WARP; // a warp a slot
    const size_t blocks = (slots * LDA_WARP + threads - 1) / threads;
    if (blocks == 0)
        return 0;
    if (plan.sparse_long_lists && t.n_wk)
        zsample_sparse_long_kernel<REAL, true><<<(unsigned)blocks, threads, 0, stream>>>(a, t, slots);
    else if (plan.sparse_long_lists)
        zsample_sparse_long_kernel<REAL, false><<<(unsigned)blocks, threads, 0, stream>>>(a, t, slots);
    else if (t.n_wk)
        zsample_sparse_kernel<REAL, true><<<(unsigned)blocks, threads, 0, stream>>>(a, t, slots);
    else
        zsample_sparse_kernel<REAL, false><<<(unsigned)blocks, threads, 0, stream>>>(a, t, slots);
    LAUNCH_TRY();
#ifdef LDA_DRAW_STATS
    {
        unsigned long long n[DRAW_STAT_COUNT];
        CUDA_TRY(cudaMemcpyFromSymbolAsync(n, lda_draw_stats, sizeof n, 0, cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaStreamSynchronize(stream));
        const unsigned long long zero[DRAW_STAT_COUNT] = {};
        CUDA_TRY(cudaMemcpyToSymbolAsync(lda_draw_stats, zero, sizeof zero, 0, cudaMemcpyHostToDevice, stream));
        const double tok = n[DRAW_TOKENS] ? (double)n[DRAW_TOKENS] : 1.0;
        fprintf(stderr,
                "draw stats: %llu tokens; afresh %.3f (mean %.1f entries, %.3f from word lists); word part %.4f "
                "(scan from the first block: %.2f chunks); inserted %.4f\n",
                n[DRAW_TOKENS], n[DRAW_AFRESH] / tok,
                n[DRAW_AFRESH] ? (double)n[DRAW_AFRESH_ENTRIES] / n[DRAW_AFRESH] : 0.0,
                n[DRAW_AFRESH] ? (double)n[DRAW_FROM_WORD_LIST] / n[DRAW_AFRESH] : 0.0, n[DRAW_WORD_PART] / tok,
                n[DRAW_WORD_PART] ? (double)n[DRAW_SCAN_CHUNKS] / n[DRAW_WORD_PART] : 0.0, n[DRAW_INSERTED] / tok);
    }
#endif
    return 0;
fail:
    return -1;
}

static int sparse_tables_missing(const zsample_sparse_tables &t, lda_error *err)
{
    if (!t.table || !t.list_offset || !t.lists || !t.counts || !t.list_len || !t.slot_doc_len) {
        lda_error_fail(err, "internal error: the sparse kernel's tables are missing");
        return -1;
    }
    return 0;
}

// The word tables from φ and α as they are now, then the draw. (Building them in the collapsed
// model's φ mean, one pass over the counts, was measured slower on the H100: at K = 10,000 on
// wiki43k that pass took 5.9 ms, a warp to 32 words at 15% occupancy, against 9.5 ms for the
// whole iteration with the mean's own elementwise kernel and this launch's coalesced tables.)
template <typename REAL>
static int launch_sparse(const lda_zplan &plan, const zsample_args &a, const zsample_sparse_tables &t,
                         cudaStream_t stream, lda_error *err)
{
    if (sparse_tables_missing(t, err) || sparse_tables_build(t, a.phi, a.alpha, a.K, stream, err))
        return -1;
    return draw_sparse<REAL>(plan, a, t, stream, err);
}

template <typename REAL>
static int launch(const lda_zplan &plan, const zsample_args &a, const zsample_fused &fused,
                  const zsample_sparse_tables &sparse, cudaStream_t stream, lda_error *err)
{
    switch (plan.kernel) {
    case LDA_ZKERNEL_SPARSE:
        return launch_sparse<REAL>(plan, a, sparse, stream, err);
    case LDA_ZKERNEL_STAGED:
    case LDA_ZKERNEL_SPLIT:
    case LDA_ZKERNEL_COLLAPSED:
        return launch_butterfly<REAL>(plan, a, fused, stream, err);
    case LDA_ZKERNEL_PER_DOCUMENT:
        return launch_per_document<REAL>(plan, a, stream, err);
    default:
        lda_error_fail(err, "internal error: no GPU kernel for plan '%s'", lda_zkernel_name(plan.kernel));
        return -1;
    }
}

int zsample_launch(const lda_zplan &plan, const zsample_args &given, const zsample_fused &fused,
                   const zsample_sparse_tables &sparse, cudaStream_t stream, lda_error *err)
{
    zsample_args a = given;
    a.split = plan.warps_per_group;
    a.theta_collapsed = plan.theta_collapsed;
    if (a.part_count == 0) { // all document groups at once
        a.part = 0;
        a.part_count = 1;
    }
    if (lda_part_warps(a.num_warps, a.part, a.part_count) == 0)
        return 0; // a part with no document groups
    if (!!fused.n_wk != !!plan.fused_counts) {
        lda_error_fail(err, "internal error: the plan %s the counts but the launch %s them",
                       plan.fused_counts ? "fuses" : "does not fuse", fused.n_wk ? "passes" : "does not pass");
        return -1;
    }
    return plan.precision == LDA_PRECISION_DOUBLE ? launch<double>(plan, a, fused, sparse, stream, err)
                                                  : launch<float>(plan, a, fused, sparse, stream, err);
}

int zsample_sparse_tables_launch(const lda_zplan &plan, const zsample_args &a, const zsample_sparse_tables &t,
                                 cudaStream_t stream, lda_error *err)
{
    if (plan.kernel != LDA_ZKERNEL_SPARSE) {
        lda_error_fail(err, "internal error: word tables asked of the '%s' plan", lda_zkernel_name(plan.kernel));
        return -1;
    }
    if (!t.table) { // the slots' lists may be a chunk's, not given here
        lda_error_fail(err, "internal error: the sparse kernel's word tables are missing");
        return -1;
    }
    return sparse_tables_build(t, a.phi, a.alpha, a.K, stream, err);
}

int zsample_sparse_draw_launch(const lda_zplan &plan, const zsample_args &given, const zsample_sparse_tables &t,
                               cudaStream_t stream, lda_error *err)
{
    zsample_args a = given;
    a.split = plan.warps_per_group;
    a.theta_collapsed = plan.theta_collapsed;
    a.part = 0; // every document group of the warps given
    a.part_count = 1;
    if (plan.kernel != LDA_ZKERNEL_SPARSE) {
        lda_error_fail(err, "internal error: a sparse draw asked of the '%s' plan", lda_zkernel_name(plan.kernel));
        return -1;
    }
    if (sparse_tables_missing(t, err))
        return -1;
    return plan.precision == LDA_PRECISION_DOUBLE ? draw_sparse<double>(plan, a, t, stream, err)
                                                  : draw_sparse<float>(plan, a, t, stream, err);
}
