// stream-copies.cu — what copies between pinned host memory and the GPU cost the draw they
// overlap (docs/scale.md, "Streaming: the design"): the bus's speed each way and both ways at
// once, and how much two stand-ins for the sparse draw slow down while the copies run on
// other streams. Build: nvcc -O3 -arch=sm_90 -o stream-copies stream-copies.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TRY(x)                                                                                       \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));             \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

// streaming: each element read and written (the lists' and z's traffic)
__global__ void stream_rw(uint32_t *a, size_t n, int reps)
{
    for (int r = 0; r < reps; r++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
            a[i] = a[i] * 1664525u + 1013904223u;
}
// gathers: dependent random 4-byte loads from a large table (n[w,k]'s gathers)
__global__ void gather(const uint32_t *t, size_t n, uint32_t *out, int steps)
{
    const size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    uint32_t x = (uint32_t)id * 2654435761u, acc = 0;
    for (int s = 0; s < steps; s++) {
        x = x * 1664525u + 1013904223u + acc;
        acc += t[(x ^ (x >> 13)) % n];
    }
    out[id] = acc;
}

int main()
{
    const size_t copy_bytes = (size_t)4 << 30, table = (size_t)8 << 30;
    void *h_in, *h_out, *d_in, *d_out;
    uint32_t *d_table, *d_sink;
    TRY(cudaMallocHost(&h_in, copy_bytes));
    TRY(cudaMallocHost(&h_out, copy_bytes));
    TRY(cudaMalloc(&d_in, copy_bytes));
    TRY(cudaMalloc(&d_out, copy_bytes));
    TRY(cudaMalloc(&d_table, table));
    TRY(cudaMalloc(&d_sink, (size_t)132 * 1024 * 4 * sizeof(uint32_t)));
    TRY(cudaMemset(d_table, 1, table));
    TRY(cudaMemset(d_out, 2, copy_bytes));
    for (size_t i = 0; i < copy_bytes; i += 4096) ((char *)h_in)[i] = 1, ((char *)h_out)[i] = 1;
    cudaStream_t sk, si, so;
    TRY(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&si, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&so, cudaStreamNonBlocking));
    cudaEvent_t a, b, c, d, e, f;
    for (cudaEvent_t *x : {&a, &b, &c, &d, &e, &f}) TRY(cudaEventCreate(x));
    auto ms = [](cudaEvent_t x, cudaEvent_t y) { float m; TRY(cudaEventElapsedTime(&m, x, y)); return m; };
    const double gb = copy_bytes / 1e9;
    for (int round = 0; round < 2; round++) { // the first warms up
        // each way alone
        TRY(cudaEventRecord(a, si));
        TRY(cudaMemcpyAsync(d_in, h_in, copy_bytes, cudaMemcpyHostToDevice, si));
        TRY(cudaEventRecord(b, si));
        TRY(cudaMemcpyAsync(h_out, d_out, copy_bytes, cudaMemcpyDeviceToHost, si));
        TRY(cudaEventRecord(c, si));
        TRY(cudaStreamSynchronize(si));
        const float in_ms = ms(a, b), out_ms = ms(b, c);
        // both ways at once
        TRY(cudaEventRecord(a, si));
        TRY(cudaStreamWaitEvent(so, a));
        TRY(cudaMemcpyAsync(d_in, h_in, copy_bytes, cudaMemcpyHostToDevice, si));
        TRY(cudaMemcpyAsync(h_out, d_out, copy_bytes, cudaMemcpyDeviceToHost, so));
        TRY(cudaEventRecord(b, si));
        TRY(cudaEventRecord(c, so));
        TRY(cudaStreamSynchronize(si));
        TRY(cudaStreamSynchronize(so));
        const float in2 = ms(a, b), out2 = ms(a, c);
        if (round)
            printf("copies of %.2f GB, pinned: in %.2f GB/s, out %.2f GB/s alone; both at once in %.2f, out %.2f GB/s\n",
                   gb, gb / in_ms * 1e3, gb / out_ms * 1e3, gb / in2 * 1e3, gb / out2 * 1e3);
        // the kernels alone, then beside both copies
        for (int k = 0; k < 2; k++) {
            auto launch = [&]() {
                if (k == 0)
                    stream_rw<<<132 * 8, 256, 0, sk>>>(d_table, table / 4, 4);
                else
                    gather<<<132 * 16, 256, 0, sk>>>(d_table, table / 4, d_sink, 2000);
            };
            TRY(cudaEventRecord(a, sk));
            launch();
            TRY(cudaEventRecord(b, sk));
            TRY(cudaStreamSynchronize(sk));
            const float alone = ms(a, b);
            TRY(cudaEventRecord(c, sk));
            TRY(cudaStreamWaitEvent(si, c));
            TRY(cudaStreamWaitEvent(so, c));
            TRY(cudaMemcpyAsync(d_in, h_in, copy_bytes, cudaMemcpyHostToDevice, si));
            TRY(cudaMemcpyAsync(h_out, d_out, copy_bytes, cudaMemcpyDeviceToHost, so));
            launch();
            TRY(cudaEventRecord(d, sk));
            TRY(cudaEventRecord(e, si));
            TRY(cudaEventRecord(f, so));
            TRY(cudaDeviceSynchronize());
            const float with = ms(c, d), cin = ms(c, e), cout = ms(c, f);
            if (round)
                printf("%s kernel: %.1f ms alone, %.1f ms beside the copies (%+.1f%%); the copies took %.1f in, %.1f out "
                       "(%.2f, %.2f GB/s)\n",
                       k ? "gather (random 4-byte loads from 8 GiB)" : "streaming read-write of 8 GiB x4", alone, with,
                       100.0 * (with - alone) / alone, cin, cout, gb / cin * 1e3, gb / cout * 1e3);
        }
    }
    return 0;
}
