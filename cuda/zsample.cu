// zsample.cu — the z-sampling launcher: runs the kernel the plan (backend/zplan.h) names,
// with the shape and memory the plan gives. It decides nothing itself.
#include <cuda_runtime.h>

#include "check.cuh"
#include "zsample.cuh"
#include "zsample_butterfly.cuh"
#include "zsample_butterfly_stored.cuh"
#include "zsample_naive.cuh"
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

template <typename REAL>
static int launch(const lda_zplan &plan, const zsample_args &a, const zsample_fused &fused, cudaStream_t stream,
                  lda_error *err)
{
    switch (plan.kernel) {
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

int zsample_launch(const lda_zplan &plan, const zsample_args &given, const zsample_fused &fused, cudaStream_t stream,
                   lda_error *err)
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
    return plan.precision == LDA_PRECISION_DOUBLE ? launch<double>(plan, a, fused, stream, err)
                                                  : launch<float>(plan, a, fused, stream, err);
}
