// testing.cu — single-kernel entry points for the tests (src/cuda_testing.h).
#include <cuda_runtime.h>
#include <string.h>

#include "backend/cuda_testing.h"
#include "backend/allreduce.h"
#include "backend/backend.h"
#include "backend/sampler_sparse.h"
#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "core/gamma.h"
#include "device_state.cuh"
#include "sparse_table.cuh"
#include "zsample.cuh"

template <typename T> static cudaError_t upload(T **dst, const T *src, size_t count)
{
    cudaError_t e = cudaMalloc((void **)dst, count * sizeof(T) + 16);
    if (e == cudaSuccess && src)
        e = cudaMemcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice);
    return e;
}

// φ's mean formed from these counts by the sparse draw (the plan's phi_from_counts).
struct phi_counts {
    const uint32_t *n_wk, *n_k;
    double beta;
};

// The scales of φ's mean of n_k on the device, into *scale (K floats, allocated).
static int upload_phi_scale(const uint32_t *n_k, uint32_t V, uint32_t K, double beta, float **scale, lda_error *err)
{
    device_state s; // the scales' kernel reads n_k, V, K and β alone
    memset(&s, 0, sizeof s);
    s.V = V;
    s.K = K;
    s.beta = beta;
    int rc = -1;
    CUDA_TRY(upload(&s.n_k, n_k, K));
    CUDA_TRY(upload(scale, (const float *)NULL, K));
    s.phi_mean_scale = *scale;
    if (cuda_update_phi_mean_scale(s, err))
        goto fail;
    CUDA_TRY(cudaDeviceSynchronize());
    rc = 0;
fail:
    cudaFree(s.n_k);
    return rc;
}

// long_lists: the sparse draw's compilation (zplan.h): -1 the plan's, 0 short lists', 1 long lists'.
// word_lists (from the counts, long lists): -1 as a training run's plan, 0 none, 1 every word's
// list with room for K topics, read at every run's first token.
static int sample_z(const lda_layout *L, const lda_zdraw *in, lda_sampler sampler, uint32_t split,
                    const phi_counts *counts, int long_lists, int word_lists, uint32_t *z_inout, lda_error *err)
{
    const uint32_t K = in->K;
    const bool collapsed = in->n_mk != NULL;
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.sampler = sampler;
    p.precision = in->precision;
    p.split = split;
    p.theta_collapsed = collapsed;
    lda_gpu_limits limits;
    lda_zplan plan;
    if (lda_cuda_gpu_limits(-1, &limits, err) || lda_zplan_make(&p, L, &limits, &plan, err))
        return -1;
    lda_zplan_draw_only(&plan); // the draw alone: the counts of the harness are not there
    if (long_lists >= 0)
        plan.sparse_long_lists = long_lists;
    if (sampler == LDA_SAMPLER_SPARSE) { // the word lists: the plan's rule, or the one asked for
        const bool listing = counts && plan.sparse_long_lists && word_lists != 0;
        lda_zplan_set_word_lists(L,
                                 !listing         ? LDA_WORD_LISTS_NONE
                                 : word_lists > 0 ? LDA_WORD_LISTS_WHOLE_ROWS
                                                  : LDA_WORD_LISTS_BY_TOKENS,
                                 &plan);
    }
    zsample_args a;
    memset(&a, 0, sizeof a);
    uint32_t *words = NULL, *warp_len = NULL, *slot_len = NULL, *slot_doc_len = NULL, *z = NULL, *n_mk = NULL;
    zsample_sparse_tables sparse;
    size_t *warp_offset = NULL;
    uint64_t *base = NULL;
    float *th = NULL, *ph = NULL, *alpha = NULL, *scale = NULL;
    uint32_t *n_wk = NULL;
    void *scratch = NULL;
    int rc = -1;
    CUDA_TRY(upload(&words, L->words, L->num_positions));
    CUDA_TRY(upload(&warp_offset, L->warp_offset, L->num_warps + 1));
    CUDA_TRY(upload(&warp_len, L->warp_len, L->num_warps));
    CUDA_TRY(upload(&slot_len, L->slot_len, L->num_slots));
    CUDA_TRY(upload(&slot_doc_len, L->slot_doc_len, L->num_slots));
    CUDA_TRY(upload(&base, L->slot_token_base, L->num_slots));
    if (collapsed) {
        CUDA_TRY(upload(&n_mk, (const uint32_t *)in->n_mk, L->num_slots * K));
        CUDA_TRY(upload(&alpha, in->alpha, K));
    }
    else
        CUDA_TRY(upload(&th, in->theta, L->num_slots * K));
    CUDA_TRY(upload(&ph, counts ? (const float *)NULL : in->phi, (size_t)L->vocab_size * K));
    CUDA_TRY(upload(&z, (const uint32_t *)z_inout, L->num_positions));
    CUDA_TRY(cudaMalloc(&scratch, plan.scratch_bytes));
    if (zsample_sparse_prepare(plan, L, scratch, NULL, slot_doc_len, &sparse, err))
        goto fail;
    // the sparse draw keeps n[m,k] as lists: the rows given become them, and the lists the rows
    if (collapsed && sparse.lists &&
        cuda_lists_from_rows(sparse_count_lists(sparse), n_mk, 0, L->num_slots, K, 0, err))
        goto fail;
    if (counts) {
        CUDA_TRY(upload(&n_wk, counts->n_wk, (size_t)L->vocab_size * K));
        if (upload_phi_scale(counts->n_k, L->vocab_size, K, counts->beta, &scale, err))
            goto fail;
        sparse.n_wk = n_wk;
        sparse.phi_scale = scale;
        sparse.beta = (float)counts->beta;
    }
    a.words = words;
    a.warp_offset = warp_offset;
    a.warp_len = warp_len;
    a.slot_len = slot_len;
    a.slot_token_base = base;
    if (collapsed)
        a.alpha = alpha;
    else
        a.theta = th;
    a.n_mk = n_mk;
    a.theta_collapsed = collapsed;
    a.phi = ph;
    a.z = z;
    a.scratch = scratch;
    a.K = K;
    a.num_slots = L->num_slots;
    a.num_warps = L->num_warps;
    a.seed = in->seed;
    a.iteration = in->iteration;
    if (zsample_launch(plan, a, zsample_fused{NULL, NULL, NULL, NULL, 0.0, 0.0, 0}, sparse, 0, err) ||
        (collapsed && sparse.lists && cuda_rows_from_lists(sparse_count_lists(sparse), 0, L->num_slots, K, n_mk, 0, err)))
        goto fail;
    CUDA_TRY(cudaDeviceSynchronize());
    CUDA_TRY(cudaMemcpy(z_inout, z, L->num_positions * sizeof *z, cudaMemcpyDeviceToHost));
    if (collapsed)
        CUDA_TRY(cudaMemcpy(in->n_mk, n_mk, L->num_slots * K * sizeof *n_mk, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(n_wk);
    cudaFree(scale);
    cudaFree(words);
    cudaFree(warp_offset);
    cudaFree(warp_len);
    cudaFree(slot_len);
    cudaFree(slot_doc_len);
    cudaFree(base);
    cudaFree(th);
    cudaFree(alpha);
    cudaFree(n_mk);
    cudaFree(ph);
    cudaFree(z);
    cudaFree(scratch);
    return rc;
}

extern "C" int lda_cuda_sample_z_given(const lda_layout *L, const lda_zdraw *in, lda_sampler sampler, uint32_t split,
                                       uint32_t *z_inout, lda_error *err)
{
    return sample_z(L, in, sampler, split, NULL, -1, -1, z_inout, err);
}

extern "C" int lda_cuda_sample_z_sparse_lists(const lda_layout *L, const lda_zdraw *in, int long_lists,
                                              uint32_t *z_inout, lda_error *err)
{
    return sample_z(L, in, LDA_SAMPLER_SPARSE, 0, NULL, long_lists, -1, z_inout, err);
}

extern "C" int lda_cuda_sample_z_sparse_from_counts(const lda_layout *L, const lda_zdraw *in, const uint32_t *n_wk,
                                                    const uint32_t *n_k, double beta, int long_lists, int word_lists,
                                                    uint32_t *z_inout, lda_error *err)
{
    const phi_counts counts = {n_wk, n_k, beta};
    return sample_z(L, in, LDA_SAMPLER_SPARSE, 0, &counts, long_lists, word_lists, z_inout, err);
}

extern "C" int lda_cuda_sparse_tables(uint32_t V, uint32_t K, lda_precision precision, const float *alpha,
                                      const uint32_t *n_wk, const uint32_t *n_k, double beta, float *phi, void *table,
                                      lda_error *err)
{
    const size_t entries = (size_t)V * K,
                 table_bytes = (size_t)V * lda_sparse_blocks(K) * (precision == LDA_PRECISION_DOUBLE ? 8 : 4);
    device_state s; // the φ update reads the state's counts, φ, α and tables, nothing else
    memset(&s, 0, sizeof s);
    s.V = V;
    s.K = K;
    s.beta = beta;
    s.sparse.V = V;
    s.sparse.precision = precision;
    int rc = -1;
    CUDA_TRY(upload(&s.alpha_float, alpha, K));
    CUDA_TRY(upload(&s.phi, n_wk ? (const float *)NULL : phi, entries));
    CUDA_TRY(upload(&s.n_wk, n_wk, n_wk ? entries : 0));
    CUDA_TRY(upload(&s.n_k, n_k, n_k ? K : 0));
    CUDA_TRY(cudaMalloc(&s.sparse.table, table_bytes + 16));
    if (n_wk) { // φ's mean written, and the tables formed from the counts as the collapsed draw's are
        CUDA_TRY(upload(&s.phi_mean_scale, (const float *)NULL, K));
        s.sparse.n_wk = s.n_wk;
        s.sparse.phi_scale = s.phi_mean_scale;
        s.sparse.beta = (float)beta;
        if (cuda_update_phi(s, LDA_UPDATE_MEAN, 0, 0, err))
            goto fail;
    }
    if (table && sparse_tables_build(s.sparse, s.phi, s.alpha_float, K, 0, err))
        goto fail;
    CUDA_TRY(cudaDeviceSynchronize());
    if (n_wk)
        CUDA_TRY(cudaMemcpy(phi, s.phi, entries * sizeof *phi, cudaMemcpyDeviceToHost));
    if (table)
        CUDA_TRY(cudaMemcpy(table, s.sparse.table, table_bytes, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(s.alpha_float);
    cudaFree(s.phi);
    cudaFree(s.n_wk);
    cudaFree(s.n_k);
    cudaFree(s.phi_mean_scale);
    cudaFree(s.sparse.table);
    return rc;
}

extern "C" int lda_cuda_zplan(const lda_params *p, const lda_layout *L, lda_zplan *plan, lda_error *err)
{
    lda_gpu_limits limits;
    return lda_cuda_gpu_limits(-1, &limits, err) || lda_zplan_make(p, L, &limits, plan, err) ? -1 : 0;
}

extern "C" size_t lda_cuda_memory_bytes(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
        cudaGetLastError();
    return total_bytes;
}

__global__ void philox_kernel(uint64_t seed, const lda_u32x4 *counters, lda_u32x4 *out, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = lda_philox(counters[i], seed);
}

extern "C" int lda_cuda_philox(uint64_t seed, const lda_u32x4 *counters, lda_u32x4 *out, size_t n, lda_error *err)
{
    lda_u32x4 *dc = NULL, *dout = NULL;
    int rc = -1;
    CUDA_TRY(upload(&dc, counters, n));
    CUDA_TRY(upload(&dout, (const lda_u32x4 *)NULL, n));
    philox_kernel<<<(unsigned)((n + 255) / 256), 256>>>(seed, dc, dout, n);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpy(out, dout, n * sizeof *out, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(dc);
    cudaFree(dout);
    return rc;
}

__global__ void log_gamma_kernel(double shape, uint64_t seed, size_t n, double *out)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        lda_rng rng;
        lda_rng_init(&rng, seed, LDA_RNG_TEST, 0, i);
        out[i] = lda_log_gamma_variate_float(&rng, (float)shape); /* the variate the GPU's updates draw */
    }
}

extern "C" int lda_cuda_log_gamma(double shape, uint64_t seed, size_t n, double *out, lda_error *err)
{
    double *d = NULL;
    int rc = -1;
    CUDA_TRY(upload(&d, (const double *)NULL, n));
    log_gamma_kernel<<<(unsigned)((n + 255) / 256), 256>>>(shape, seed, n, d);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpy(out, d, n * sizeof *out, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(d);
    return rc;
}

extern "C" int lda_cuda_allreduce(uint32_t ranks, const int *devices, const uint32_t *const *in, uint32_t *const *out,
                                  size_t count, int *used_nccl, lda_error *err)
{
    uint32_t *arrays[8] = {NULL};
    cudaStream_t streams[8] = {NULL};
    lda_allreduce *ar = NULL;
    int rc = -1;
    if (ranks > 8) {
        lda_error_fail(err, "internal error: at most 8 ranks in this test");
        return -1;
    }
    for (uint32_t g = 0; g < ranks; g++) {
        CUDA_TRY(cudaSetDevice(devices[g]));
        CUDA_TRY(cudaStreamCreate(&streams[g]));
        CUDA_TRY(upload(&arrays[g], in[g], count));
    }
    if (!(ar = lda_allreduce_device_create(ranks, devices, (void *const *)streams, 0, err)) ||
        ar->sum_u32(ar, arrays, arrays, count, err))
        goto done;
    *used_nccl = strcmp(ar->how, "NCCL") == 0;
    for (uint32_t g = 0; g < ranks; g++) {
        CUDA_TRY(cudaSetDevice(devices[g]));
        CUDA_TRY(cudaStreamSynchronize(streams[g]));
        CUDA_TRY(cudaMemcpy(out[g], arrays[g], count * sizeof **out, cudaMemcpyDeviceToHost));
    }
    rc = 0;
fail:
done:
    lda_allreduce_destroy(ar);
    for (uint32_t g = 0; g < ranks; g++) {
        cudaSetDevice(devices[g]);
        cudaFree(arrays[g]);
        if (streams[g])
            cudaStreamDestroy(streams[g]);
    }
    return rc;
}

extern "C" int lda_cuda_word_lists(uint32_t V, uint32_t K, const uint32_t *n_wk, const uint32_t *n_k,
                                   const uint32_t *room, uint32_t *topics, uint32_t *counts, uint32_t *len,
                                   lda_error *err)
{
    uint64_t *offsets = (uint64_t *)lda_malloc_array((size_t)V + 1, sizeof *offsets, "word list offsets", err);
    if (!offsets)
        return -1;
    offsets[0] = 0;
    for (uint32_t w = 0; w < V; w++)
        offsets[w + 1] = offsets[w] + room[w];
    const size_t entries = offsets[V];
    device_state s; // the tables' build reads the counts, the scales and α
    memset(&s, 0, sizeof s);
    s.V = V;
    s.K = K;
    s.beta = 0.01;
    s.sparse.V = V;
    s.sparse.precision = LDA_PRECISION_FLOAT;
    uint64_t *d_offsets = NULL;
    float *alpha = NULL;
    int rc = -1;
    CUDA_TRY(upload(&d_offsets, (const uint64_t *)offsets, (size_t)V + 1));
    CUDA_TRY(upload(&alpha, (const float *)NULL, K));
    CUDA_TRY(cudaMemset(alpha, 0, K * sizeof *alpha));
    CUDA_TRY(upload(&s.n_wk, n_wk, (size_t)V * K));
    if (upload_phi_scale(n_k, V, K, s.beta, &s.phi_mean_scale, err))
        goto fail;
    CUDA_TRY(cudaMalloc(&s.sparse.table, lda_word_prior_prefix_bytes(V, K, LDA_PRECISION_FLOAT) + 16));
    // the lists' room exactly as asked, so a write past it is an error the sanitizer sees
    CUDA_TRY(cudaMalloc(&s.sparse.words.topics, entries * sizeof(uint32_t) + 4));
    CUDA_TRY(cudaMalloc(&s.sparse.words.counts, entries * sizeof(uint32_t) + 4));
    CUDA_TRY(cudaMalloc(&s.sparse.words.len, (size_t)V * sizeof(uint32_t)));
    s.sparse.words.offset = d_offsets;
    s.sparse.n_wk = s.n_wk;
    s.sparse.phi_scale = s.phi_mean_scale;
    s.sparse.beta = (float)s.beta;
    if (sparse_tables_build(s.sparse, NULL, alpha, K, 0, err))
        goto fail;
    CUDA_TRY(cudaDeviceSynchronize());
    CUDA_TRY(cudaMemcpy(topics, s.sparse.words.topics, entries * sizeof *topics, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(counts, s.sparse.words.counts, entries * sizeof *counts, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(len, s.sparse.words.len, (size_t)V * sizeof *len, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    free(offsets);
    cudaFree(d_offsets);
    cudaFree(alpha);
    cudaFree(s.n_wk);
    cudaFree(s.phi_mean_scale);
    cudaFree(s.sparse.table);
    cudaFree(s.sparse.words.topics);
    cudaFree(s.sparse.words.counts);
    cudaFree(s.sparse.words.len);
    return rc;
}

// Word w's n[w,k] and, where the pass counts apart, its own_wk, given 2^32 / V more (word 0 also the
// rest of 2^32): 2^32 in all.
__global__ void overfill_topic_kernel(uint32_t *n_wk, uint32_t *own_wk, uint32_t V, uint32_t K, uint32_t k)
{
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= V)
        return;
    const uint64_t all = 1ull << 32;
    const uint32_t more = (uint32_t)(all / V + (w == 0 ? all % V : 0));
    n_wk[(size_t)w * K + k] += more;
    if (own_wk != n_wk)
        own_wk[(size_t)w * K + k] += more;
}

extern "C" int lda_cuda_test_overfill_topic(lda_backend *b, uint32_t k, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (s.V < 4 || k >= s.K) {
        lda_error_fail(err, "internal error: topic %u of %u overfilled over %u words", k, s.K, s.V);
        return -1;
    }
    if (!s.topic_sum && cuda_topic_totals_setup(s, true, err))
        return -1;
    overfill_topic_kernel<<<(s.V + 255) / 256, 256, 0, s.stream>>>(s.n_wk, s.own_wk, s.V, s.K, k);
    LAUNCH_TRY();
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    s.topic_tokens += 1ull << 32; // n[k] itself, 2^32 more, is as it was
    return 0;
fail:
    return -1;
}
