// zsample.cu — the z-sampling launcher: one table maps (sampler, precision) to a kernel,
// its scratch size, and its launch shape.
#include <cuda_runtime.h>

#include "check.cuh"
#include "zsample.cuh"
#include "zsample_butterfly.cuh"
#include "zsample_naive.cuh"

size_t zsample_scratch_bytes(lda_sampler sampler, lda_precision precision, size_t num_slots, uint32_t K)
{
    const size_t real = precision == LDA_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
    switch (sampler) {
    case LDA_SAMPLER_NAIVE: // one prefix-sum row per document
        return num_slots * K * real;
    case LDA_SAMPLER_BUTTERFLY: // θ_local (float) then p' (REAL), K entries per thread
    default:
        return num_slots * K * (sizeof(float) + real) + 64;
    }
}

int zsample_launch(lda_sampler sampler, lda_precision precision, const zsample_args &a, cudaStream_t stream,
                   lda_error *err)
{
    const unsigned threads = 128;
    const unsigned blocks = (unsigned)((a.num_slots + threads - 1) / threads);
    const bool dbl = precision == LDA_PRECISION_DOUBLE;
    switch (sampler) {
    case LDA_SAMPLER_NAIVE:
        if (dbl)
            zsample_naive_kernel<double><<<blocks, threads, 0, stream>>>(a);
        else
            zsample_naive_kernel<float><<<blocks, threads, 0, stream>>>(a);
        break;
    case LDA_SAMPLER_BUTTERFLY:
        if (dbl)
            zsample_butterfly_kernel<double><<<blocks, threads, 0, stream>>>(a);
        else
            zsample_butterfly_kernel<float><<<blocks, threads, 0, stream>>>(a);
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
