// zsample.cu — the z-sampling launcher: one table maps each sampler to its scratch size and
// its kernels (precision × θ given/collapsed), and every launch goes through it.
#include <cuda_runtime.h>

#include "check.cuh"
#include "zsample.cuh"
#include "zsample_butterfly.cuh"
#include "zsample_butterfly_stored.cuh"
#include "zsample_naive.cuh"
#include "zsample_transpose.cuh"

#define DEFAULT_SPLIT LDA_DEFAULT_SPLIT

bool zsample_supports_collapsed(lda_sampler sampler)
{
    return sampler == LDA_SAMPLER_BUTTERFLY || sampler == LDA_SAMPLER_NAIVE;
}

static size_t real_size(lda_precision precision)
{
    return precision == LDA_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
}

// Shared memory for the butterfly's block totals in one block of warps (θ read from global
// memory); above the most a block may have, the totals go to global scratch.
static size_t butterfly_smem_bytes(lda_precision precision, uint32_t K)
{
    return precision == LDA_PRECISION_DOUBLE ? butterfly_smem_layout<double>(K, BUTTERFLY_WARPS_PER_BLOCK, false)
                                             : butterfly_smem_layout<float>(K, BUTTERFLY_WARPS_PER_BLOCK, false);
}

static size_t max_smem_per_block(void)
{
    int device = 0, bytes = 48 * 1024;
    if (cudaGetDevice(&device) == cudaSuccess)
        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    cudaGetLastError();
    return (size_t)bytes;
}

static uint32_t effective_split(const zsample_args &a)
{
    return a.theta_collapsed ? 1u : (a.split ? a.split : DEFAULT_SPLIT);
}

size_t zsample_scratch_bytes(lda_sampler sampler, lda_precision precision, size_t num_slots, uint32_t K)
{
    switch (sampler) {
    case LDA_SAMPLER_NAIVE: // one prefix-sum row per document
        return num_slots * K * real_size(precision);
    case LDA_SAMPLER_TRANSPOSE:
    case LDA_SAMPLER_BUTTERFLY_STORED: // θ_local (float) then a K-entry table per thread
        return num_slots * K * (sizeof(float) + real_size(precision)) + 64;
    case LDA_SAMPLER_BUTTERFLY:
    default: // block totals only when shared memory cannot hold them
        if (butterfly_smem_bytes(precision, K) <= max_smem_per_block())
            return 64;
        return (num_slots / BFLY_W) * DEFAULT_SPLIT * (K / BFLY_W) * BFLY_W * real_size(precision) + 64;
    }
}

// The default (split 0, θ given): one block a document group, θ staged in shared memory.
template <typename REAL> static size_t staged_smem_bytes(uint32_t K)
{
    return butterfly_smem_layout<REAL>(K, butterfly_staged_kernel<REAL>::warps, true);
}

bool zsample_can_stage(lda_sampler sampler, lda_precision precision, uint32_t split, int theta_collapsed, uint32_t K)
{
    if (sampler != LDA_SAMPLER_BUTTERFLY || split != 0 || theta_collapsed)
        return false;
    return (precision == LDA_PRECISION_DOUBLE ? staged_smem_bytes<double>(K) : staged_smem_bytes<float>(K)) <=
           max_smem_per_block();
}

bool zsample_can_fuse(lda_sampler sampler, lda_precision precision, uint32_t split, int theta_collapsed, uint32_t K,
                      size_t groups)
{
    return groups >= ZSAMPLE_FUSED_MIN_GROUPS && zsample_can_stage(sampler, precision, split, theta_collapsed, K);
}

template <typename REAL>
static int launch_butterfly_staged(const zsample_args &a, const zsample_fused &fused, cudaStream_t stream,
                                   lda_error *err)
{
    const uint32_t warps = butterfly_staged_kernel<REAL>::warps;
    const size_t smem = butterfly_smem_layout<REAL>(a.K, warps, true);
    if (smem > 48 * 1024)
        CUDA_TRY(cudaFuncSetAttribute(butterfly_staged_kernel<REAL>::fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
    butterfly_staged_kernel<REAL>::fn<<<(unsigned)lda_part_warps(a.num_warps, a.part, a.part_count), warps * 32, smem,
                                        stream>>>(a, fused);
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

template <typename REAL, bool COLLAPSED>
static int launch_butterfly(const zsample_args &a, const zsample_fused *fused, cudaStream_t stream, lda_error *err)
{
    if (fused)
        return launch_butterfly_staged<REAL>(a, *fused, stream, err);
    const size_t smem = butterfly_smem_layout<REAL>(a.K, BUTTERFLY_WARPS_PER_BLOCK, false);
    const bool in_smem = smem <= max_smem_per_block();
    const size_t warps = lda_part_warps(a.num_warps, a.part, a.part_count) * effective_split(a);
    const unsigned blocks = (unsigned)((warps + BUTTERFLY_WARPS_PER_BLOCK - 1) / BUTTERFLY_WARPS_PER_BLOCK);
    if (in_smem && smem > 48 * 1024)
        CUDA_TRY(cudaFuncSetAttribute(butterfly_kernel<REAL, COLLAPSED>::fn,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    {
        zsample_args b = a;
        b.split = effective_split(a);
        if (!in_smem && b.split > DEFAULT_SPLIT)
            b.split = DEFAULT_SPLIT; // the global scratch is sized for DEFAULT_SPLIT warps a group
        butterfly_kernel<REAL, COLLAPSED>::fn<<<blocks, BUTTERFLY_WARPS_PER_BLOCK * 32, in_smem ? smem : 0, stream>>>(
            b, in_smem ? NULL : static_cast<REAL *>(a.scratch));
    }
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

template <typename REAL>
static int launch(lda_sampler sampler, const zsample_args &a, const zsample_fused *fused, cudaStream_t stream,
                  lda_error *err)
{
    const unsigned threads = 128;
    const unsigned blocks = (unsigned)((a.num_slots + threads - 1) / threads);
    switch (sampler) {
    case LDA_SAMPLER_BUTTERFLY:
        return a.theta_collapsed ? launch_butterfly<REAL, true>(a, NULL, stream, err)
                                 : launch_butterfly<REAL, false>(a, fused, stream, err);
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
        lda_error_input(err, "unknown sampler %d", (int)sampler);
        return -1;
    }
    LAUNCH_TRY();
    return 0;
fail:
    return -1;
}

int zsample_launch(lda_sampler sampler, lda_precision precision, const zsample_args &given, const zsample_fused *fused,
                   cudaStream_t stream, lda_error *err)
{
    zsample_args a = given;
    if (a.part_count == 0) { // all document groups at once
        a.part = 0;
        a.part_count = 1;
    }
    if (a.part_count > 1 && sampler != LDA_SAMPLER_BUTTERFLY) {
        lda_error_input(err, "--refresh is implemented by --sampler butterfly only");
        return -1;
    }
    if (lda_part_warps(a.num_warps, a.part, a.part_count) == 0)
        return 0; // a part with no document groups
    if (a.theta_collapsed && !zsample_supports_collapsed(sampler)) {
        lda_error_input(err, "--sampler %s draws with θ given; θ-collapsed models need butterfly or naive",
                        lda_choice_name(lda_sampler_choices, sampler));
        return -1;
    }
    if (fused && !zsample_can_stage(sampler, precision, a.split, a.theta_collapsed, a.K)) {
        lda_error_fail(err, "internal error: fused z draw asked where the staged kernel does not run");
        return -1;
    }
    return precision == LDA_PRECISION_DOUBLE ? launch<double>(sampler, a, fused, stream, err)
                                             : launch<float>(sampler, a, fused, stream, err);
}
