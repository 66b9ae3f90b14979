// check.cuh — every CUDA call and every launch is checked.
//
// CUDA_TRY(call) evaluates a runtime call; on failure it fills the lda_error `err` in scope
// with "CUDA error at FILE:LINE: call: message" and jumps to the label `fail` in scope.
// LAUNCH_TRY() does the same for the last kernel launch (cudaGetLastError).
#ifndef LDA_CHECK_CUH
#define LDA_CHECK_CUH

#include <cuda_runtime.h>

#include "core/error.h"

#define CUDA_TRY(call)                                                                                   \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            lda_error_fail(err, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__, #call,                \
                           cudaGetErrorString(e_));                                                      \
            goto fail;                                                                                   \
        }                                                                                                \
    } while (0)

#define LAUNCH_TRY() CUDA_TRY(cudaGetLastError())

#endif
