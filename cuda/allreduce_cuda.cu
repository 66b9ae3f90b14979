// allreduce_cuda.cu — the all-reduce of device arrays (allreduce.h): NCCL where it is built in
// and the ranks' devices are distinct, else gathered, summed and scattered by peer copies.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "backend/allreduce.h"
#include "check.cuh"

#ifdef LDA_HAVE_NCCL
#include <nccl.h>
#endif

struct device_ranks {
    int *devices;
    cudaStream_t *streams;
#ifdef LDA_HAVE_NCCL
    ncclComm_t *comms; // NULL: the copy path
#endif
    uint32_t *acc, *incoming; // the copy path's buffers on rank 0's device
    size_t capacity;
};

__global__ void add_u32_kernel(uint32_t *acc, const uint32_t *v, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        acc[i] += v[i]; // modulo 2^32, as the host's sum
}

static int ensure_capacity(device_ranks *d, size_t count, lda_error *err)
{
    if (count <= d->capacity)
        return 0;
    cudaFree(d->acc);
    cudaFree(d->incoming);
    d->acc = d->incoming = NULL;
    d->capacity = 0;
    CUDA_TRY(cudaMalloc(&d->acc, count * sizeof *d->acc));
    CUDA_TRY(cudaMalloc(&d->incoming, count * sizeof *d->incoming));
    d->capacity = count;
    return 0;
fail:
    return -1;
}

// Every rank's queued work waited for, then everything on rank 0's stream: every send read
// into acc before any recv is written, so recv may be send.
static int copy_sum(lda_allreduce *ar, uint32_t *const *send, uint32_t *const *recv, size_t count, lda_error *err)
{
    device_ranks *d = (device_ranks *)ar->impl;
    const size_t bytes = count * sizeof(uint32_t);
    const int home = d->devices[0];
    const cudaStream_t st = d->streams[0];
    for (uint32_t g = 0; g < ar->ranks; g++) {
        CUDA_TRY(cudaSetDevice(d->devices[g]));
        CUDA_TRY(cudaStreamSynchronize(d->streams[g]));
    }
    CUDA_TRY(cudaSetDevice(home));
    if (ensure_capacity(d, count, err))
        return -1;
    CUDA_TRY(cudaMemcpyAsync(d->acc, send[0], bytes, cudaMemcpyDeviceToDevice, st));
    for (uint32_t g = 1; g < ar->ranks; g++) {
        CUDA_TRY(cudaMemcpyPeerAsync(d->incoming, home, send[g], d->devices[g], bytes, st));
        add_u32_kernel<<<(unsigned)((count + 255) / 256 < 2048 ? (count + 255) / 256 : 2048), 256, 0, st>>>(
            d->acc, d->incoming, count);
        LAUNCH_TRY();
    }
    for (uint32_t g = 0; g < ar->ranks; g++)
        CUDA_TRY(cudaMemcpyPeerAsync(recv[g], d->devices[g], d->acc, home, bytes, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    return 0;
fail:
    return -1;
}

#ifdef LDA_HAVE_NCCL
#define NCCL_TRY(call)                                                                                    \
    do {                                                                                                  \
        ncclResult_t r_ = (call);                                                                         \
        if (r_ != ncclSuccess) {                                                                          \
            lda_error_fail(err, "NCCL error at %s:%d: %s: %s", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
            goto fail;                                                                                    \
        }                                                                                                 \
    } while (0)

// One group: NCCL runs the ranks' reductions together, each queued on its rank's stream after
// the z pass that made its counts.
static int nccl_sum(lda_allreduce *ar, uint32_t *const *send, uint32_t *const *recv, size_t count, lda_error *err)
{
    device_ranks *d = (device_ranks *)ar->impl;
    NCCL_TRY(ncclGroupStart());
    for (uint32_t g = 0; g < ar->ranks; g++)
        NCCL_TRY(ncclAllReduce(send[g], recv[g], count, ncclUint32, ncclSum, d->comms[g], d->streams[g]));
    NCCL_TRY(ncclGroupEnd());
    return 0;
fail:
    ncclGroupEnd();
    return -1;
}

static int distinct(const int *devices, uint32_t ranks)
{
    for (uint32_t g = 0; g < ranks; g++)
        for (uint32_t h = 0; h < g; h++)
            if (devices[g] == devices[h])
                return 0;
    return 1;
}

static int nccl_init(lda_allreduce *ar, device_ranks *d, lda_error *err)
{
    // NVLink multicast (NVLS) stays off: the GPU machines this runs on ask it of every program.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    if (!(d->comms = (ncclComm_t *)calloc(ar->ranks, sizeof *d->comms))) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    NCCL_TRY(ncclCommInitAll(d->comms, (int)ar->ranks, d->devices));
    ar->sum_u32 = nccl_sum;
    ar->how = "NCCL";
    return 0;
fail:
    free(d->comms);
    d->comms = NULL;
    return -1;
}
#endif

static void device_destroy(lda_allreduce *ar)
{
    device_ranks *d = (device_ranks *)ar->impl;
    if (d) {
#ifdef LDA_HAVE_NCCL
        if (d->comms)
            for (uint32_t g = 0; g < ar->ranks; g++)
                ncclCommDestroy(d->comms[g]);
        free(d->comms);
#endif
        if (d->acc || d->incoming) {
            cudaSetDevice(d->devices[0]); // best effort: nothing to report to at the end
            cudaFree(d->acc);
            cudaFree(d->incoming);
        }
        free(d->devices);
        free(d->streams);
        free(d);
    }
    free(ar);
}

extern "C" lda_allreduce *lda_allreduce_device_create(uint32_t ranks, const int *devices, void *const *streams,
                                                      lda_error *err)
{
    lda_allreduce *ar = (lda_allreduce *)calloc(1, sizeof *ar);
    device_ranks *d = (device_ranks *)calloc(1, sizeof *d);
    if (ranks == 0) {
        lda_error_fail(err, "internal error: an all-reduce of no ranks");
        free(ar);
        free(d);
        return NULL;
    }
    if (!ar || !d || !(d->devices = (int *)malloc(ranks * sizeof *d->devices)) ||
        !(d->streams = (cudaStream_t *)malloc(ranks * sizeof *d->streams))) {
        lda_error_fail(err, "out of memory");
        if (d) {
            free(d->devices);
            free(d);
        }
        free(ar);
        return NULL;
    }
    ar->ranks = ranks;
    ar->impl = d;
    ar->destroy = device_destroy;
    ar->sum_u32 = copy_sum;
    ar->how = "peer copies";
    for (uint32_t g = 0; g < ranks; g++) {
        d->devices[g] = devices[g];
        d->streams[g] = (cudaStream_t)streams[g];
    }
#ifdef LDA_HAVE_NCCL
    if (distinct(devices, ranks) && nccl_init(ar, d, err)) {
        device_destroy(ar);
        return NULL;
    }
#endif
    return ar;
}
