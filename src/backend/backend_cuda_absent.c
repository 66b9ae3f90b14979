/* backend_cuda_absent.c — what a CPU-only build (make CUDA=0, or no nvcc) links instead of
 * cuda/: no devices, and a clear error if the CUDA backend is asked for by name. */
#include <stdint.h>
#include <stdio.h>

#include "backend/allreduce.h"
#include "backend/backend.h"

int lda_cuda_device_count(char *why, size_t why_size)
{
    snprintf(why, why_size, "this ldagpu was built without CUDA (rebuild with nvcc installed)");
    return 0;
}

lda_backend *lda_cuda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    (void)L;
    (void)params;
    lda_error_input(err, "--device cuda: this ldagpu was built without CUDA (rebuild with nvcc on the PATH)");
    return NULL;
}

int lda_cuda_gpu_limits(int device, lda_gpu_limits *out, lda_error *err)
{
    (void)device;
    (void)out;
    lda_error_input(err, "this ldagpu was built without CUDA");
    return -1;
}

lda_allreduce *lda_allreduce_device_create(uint32_t ranks, const int *devices, void *const *streams,
                                           int across_processes, lda_error *err)
{
    (void)ranks;
    (void)across_processes;
    (void)devices;
    (void)streams;
    lda_error_input(err, "this ldagpu was built without CUDA");
    return NULL;
}

uint64_t lda_cuda_state_bytes(const lda_layout *L, const lda_params *p)
{
    (void)L;
    (void)p;
    return UINT64_MAX;
}

int lda_cuda_free_bytes(int device, uint64_t *out, lda_error *err)
{
    (void)device;
    *out = 0;
    lda_error_input(err, "this ldagpu was built without CUDA");
    return -1;
}
