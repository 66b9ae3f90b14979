// allreduce_cuda.cu — the all-reduce of device arrays (allreduce.h): NCCL where it is built in
// and the ranks' devices are distinct, else gathered, summed and scattered by peer copies.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/allreduce.h"
#include "check.cuh"
#include "util/ranks.h"

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
    uint32_t *host;           // across processes without NCCL: the sum staged on the host
    size_t host_capacity;
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
    if (ar->across_processes) { // this process's sum, summed over the processes by MPI
        if (count > d->host_capacity) {
            free(d->host);
            d->host_capacity = 0;
            if (!(d->host = (uint32_t *)malloc(bytes))) {
                lda_error_fail(err, "out of memory (%zu bytes for the counts' sum)", bytes);
                return -1;
            }
            d->host_capacity = count;
        }
        CUDA_TRY(cudaMemcpyAsync(d->host, d->acc, bytes, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaStreamSynchronize(st));
        if (lda_ranks_sum_u32(d->host, count, err))
            return -1;
        CUDA_TRY(cudaMemcpyAsync(d->acc, d->host, bytes, cudaMemcpyHostToDevice, st));
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

// No two ranks on one device (NCCL refuses that): within this process, and across the processes
// of an MPI run, compared by machine and device.
static int distinct(const int *devices, uint32_t ranks, int across_processes, int *out, lda_error *err)
{
    *out = 1;
    for (uint32_t g = 0; g < ranks; g++)
        for (uint32_t h = 0; h < g; h++)
            if (devices[g] == devices[h])
                *out = 0;
    if (!across_processes)
        return 0;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    uint64_t key = 1469598103934665603ull; // FNV-1a of the host name, then the device
    for (const char *c = host; *c; c++)
        key = (key ^ (unsigned char)*c) * 1099511628211ull;
    key = (key << 8) ^ (uint64_t)devices[0];
    const int size = lda_ranks_size();
    uint64_t *keys = (uint64_t *)malloc(size * sizeof *keys);
    if (!keys) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    if (lda_ranks_gather_u64(key, keys, err)) {
        free(keys);
        return -1;
    }
    for (int r = 0; r < size; r++)
        for (int q = 0; q < r; q++)
            if (keys[r] == keys[q])
                *out = 0;
    free(keys);
    return 0;
}

static int nccl_init(lda_allreduce *ar, device_ranks *d, lda_error *err)
{
    // NVLink multicast (NVLS) stays off: the GPU machines this runs on ask it of every program.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    if (!(d->comms = (ncclComm_t *)calloc(ar->ranks, sizeof *d->comms))) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    if (ar->across_processes) { // one rank a process: a communicator over the processes, its id through MPI
        ncclUniqueId id;
        if (lda_ranks_rank() == 0)
            NCCL_TRY(ncclGetUniqueId(&id));
        if (lda_ranks_bcast(&id, sizeof id, err))
            goto fail_quiet;
        CUDA_TRY(cudaSetDevice(d->devices[0]));
        NCCL_TRY(ncclCommInitRank(&d->comms[0], lda_ranks_size(), id, lda_ranks_rank()));
    } else {
        NCCL_TRY(ncclCommInitAll(d->comms, (int)ar->ranks, d->devices));
    }
    ar->sum_u32 = nccl_sum;
    ar->how = "NCCL";
    return 0;
fail:
fail_quiet:
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
        free(d->host);
        free(d);
    }
    free(ar);
}

extern "C" lda_allreduce *lda_allreduce_device_create(uint32_t ranks, const int *devices, void *const *streams,
                                                      int across_processes, lda_error *err)
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
    ar->across_processes = across_processes;
    ar->impl = d;
    ar->destroy = device_destroy;
    ar->sum_u32 = copy_sum;
    ar->how = across_processes ? "MPI (host copies)" : "peer copies";
    for (uint32_t g = 0; g < ranks; g++) {
        d->devices[g] = devices[g];
        d->streams[g] = (cudaStream_t)streams[g];
    }
#ifdef LDA_HAVE_NCCL
    int apart = 0;
    if (distinct(devices, ranks, across_processes, &apart, err) || (apart && nccl_init(ar, d, err))) {
        device_destroy(ar);
        return NULL;
    }
#endif
    return ar;
}
