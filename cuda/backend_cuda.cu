// backend_cuda.cu — the CUDA backend behind backend.h: device memory for one run, sized
// up front, and the iteration as a sequence of kernels on one stream.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/sampler_sparse.h"
#include "backend_cuda_internal.cuh"
#include "check.cuh"
#include "device_state.cuh"
#include "stream_pass.cuh"
#include "zsample.cuh"

int cuda_enter(lda_backend *b, lda_error *err)
{
    CUDA_TRY(cudaSetDevice(((cuda_impl *)b->impl)->device));
    return 0;
fail:
    return -1;
}

// What is missing, said plainly: without a driver the runtime reports "CUDA driver version is
// insufficient for CUDA runtime version", which reads as "upgrade your driver" on a machine that
// has no NVIDIA GPU at all. Whether the driver's library loads tells the two apart.
extern "C" int lda_cuda_device_count(char *why, size_t why_size)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        const char *missing = e == cudaErrorNoDevice                               ? "no NVIDIA GPU found"
                              : e == cudaErrorInsufficientDriver && !driver         ? "no NVIDIA GPU or driver found"
                              : e == cudaErrorInsufficientDriver
                                  ? "the NVIDIA driver is older than this build's CUDA needs: update the driver"
                                  : "no usable CUDA device";
        snprintf(why, why_size, "%s (CUDA: %s)", missing, cudaGetErrorString(e));
        if (driver)
            dlclose(driver);
        cudaGetLastError(); // clear the sticky error for the caller
        return 0;
    }
    if (n == 0)
        snprintf(why, why_size, "no NVIDIA GPU found");
    return n;
}

cut_chunk *cuda_cut_chunks(const lda_layout *L, size_t *count)
{
    size_t n = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        n += (L->cut_offsets[c + 1] - L->cut_offsets[c] + LDA_JOIN_CHUNK - 1) / LDA_JOIN_CHUNK;
    cut_chunk *chunks = (cut_chunk *)malloc((n ? n : 1) * sizeof *chunks);
    if (!chunks)
        return NULL;
    size_t i = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        for (size_t p = L->cut_offsets[c]; p < L->cut_offsets[c + 1]; p += LDA_JOIN_CHUNK) {
            const size_t left = L->cut_offsets[c + 1] - p;
            chunks[i++] = cut_chunk{(uint32_t)c, (uint32_t)p, (uint32_t)(left < LDA_JOIN_CHUNK ? left : LDA_JOIN_CHUNK)};
        }
    *count = n;
    return chunks;
}

extern "C" int lda_cuda_gpu_limits(int device, lda_gpu_limits *out, lda_error *err)
{
    int smem = 0, sms = 0;
    if (device < 0)
        CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    out->max_smem_per_block = (size_t)smem;
    out->sm_count = sms;
    return 0;
fail:
    return -1;
}

// Bytes of device memory a run needs: the sum of the arrays lda_device_bytes_plan lists.
static size_t bytes_needed(const lda_layout *L, const lda_params *p, const lda_zplan *plan)
{
    lda_device_bytes b;
    lda_device_bytes_plan(L, p, plan, &b);
    return b.total;
}

static void free_state(device_state &s)
{
    cuda_stream_free(s);
    void *ptrs[] = {s.words, s.warp_offset, s.warp_len, s.slot_len, s.slot_doc, s.slot_doc_len, s.slot_piece,
                    s.cut_offsets, s.cut_slots, s.cut_base, s.cut_delta, s.cut_chunks, s.slot_token_base, s.theta, s.theta_chunk, s.phi,
                    s.z, s.z_prev, s.n_mk, s.n_wk, s.n_k, s.scratch, s.word_scratch, s.phi_partial, s.phi_scale, s.phi_mean_scale, s.partials,
                    s.alpha_float, s.alpha, s.lgamma_alpha, s.hist_doc, s.hist_word, s.hist_doc_over,
                    s.hist_over_count, s.hist_word_over, s.shared_slot, s.shared_row, s.own_docs, s.total_docs,
                    s.doc_window, (void *)s.cut_lists.offset, s.cut_lists.topics, s.cut_lists.counts, s.cut_lists.len,
                    s.own_wk != s.n_wk ? s.own_wk : NULL, s.own_k != s.n_k ? s.own_k : NULL,
                    s.changes.offsets, s.changes.fill, s.changes.chunks, s.word_alpha};
    for (void *ptr : ptrs)
        if (ptr)
            cudaFree(ptr);
    if (s.topic_sum)
        cudaFreeHost(s.topic_sum);
    if (s.stream)
        cudaStreamDestroy(s.stream);
    if (s.ev_start)
        cudaEventDestroy(s.ev_start);
    if (s.ev_updated)
        cudaEventDestroy(s.ev_updated);
    if (s.ev_parts) {
        for (uint32_t i = 0; i < 2 * s.refresh; i++)
            if (s.ev_parts[i])
                cudaEventDestroy(s.ev_parts[i]);
        free(s.ev_parts);
    }
    memset(&s, 0, sizeof s);
}

template <typename T> static cudaError_t alloc_copy(T **dst, const T *src, size_t count)
{
    cudaError_t e = cudaMalloc((void **)dst, count * sizeof(T) + 16);
    if (e == cudaSuccess && src)
        e = cudaMemcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice);
    return e;
}

// streamed: the tokens (words, z) and the slots' lists stay in host memory (stream_pass.cu holds
// them and the buffers they pass through), so they are not allocated here.
static int create_state(device_state &s, const lda_layout *L, const lda_params *p, const lda_zplan *plan,
                        bool streamed, lda_error *err)
{
    const size_t K = p->num_topics, V = L->vocab_size;
    memset(&s, 0, sizeof s);
    s.num_slots = L->num_slots;
    s.num_warps = L->num_warps;
    s.num_positions = L->num_positions;
    s.num_tokens = L->num_tokens;
    s.num_cut_docs = L->num_cut_docs;
    s.V = L->vocab_size;
    s.K = p->num_topics;
    s.partials_count = lda_eval_partials(L->num_warps, L->num_slots, s.V);
    CUDA_TRY(cudaStreamCreate(&s.stream));
    CUDA_TRY(cudaEventCreate(&s.ev_start));
    CUDA_TRY(cudaEventCreate(&s.ev_updated));
    s.refresh = p->refresh;
    if (!(s.ev_parts = (cudaEvent_t *)calloc(2 * (size_t)s.refresh, sizeof *s.ev_parts))) {
        lda_error_fail(err, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < 2 * s.refresh; i++)
        CUDA_TRY(cudaEventCreate(&s.ev_parts[i]));
    if (!streamed)
        CUDA_TRY(alloc_copy(&s.words, L->words, L->num_positions));
    CUDA_TRY(alloc_copy(&s.warp_offset, L->warp_offset, L->num_warps + 1));
    CUDA_TRY(alloc_copy(&s.warp_len, L->warp_len, L->num_warps));
    CUDA_TRY(alloc_copy(&s.slot_len, L->slot_len, L->num_slots));
    CUDA_TRY(alloc_copy(&s.slot_doc, L->slot_doc, L->num_slots));
    CUDA_TRY(alloc_copy(&s.slot_doc_len, L->slot_doc_len, L->num_slots));
    CUDA_TRY(alloc_copy(&s.slot_piece, L->slot_piece, L->num_slots));
    CUDA_TRY(alloc_copy(&s.cut_offsets, L->cut_offsets, L->num_cut_docs + 1));
    CUDA_TRY(alloc_copy(&s.cut_slots, L->cut_slots, L->num_cut_docs ? L->cut_offsets[L->num_cut_docs] : 0));
    if (plan->kernel == LDA_ZKERNEL_SPARSE) { // n[m,k] as lists (count_lists.cuh), read through the window
        s.doc_window_slots = lda_device_window_slots(L->num_slots, (uint32_t)K);
        CUDA_TRY(alloc_copy(&s.doc_window, (const uint32_t *)NULL, s.doc_window_slots * K));
        uint64_t *offsets = lda_cut_list_offsets(L, (uint32_t)K);
        if (!offsets) {
            lda_error_fail(err, "out of memory");
            goto fail;
        }
        uint64_t *offset_copy = NULL;
        const cudaError_t e = alloc_copy(&offset_copy, offsets, L->num_cut_docs + 1);
        const uint64_t entries = offsets[L->num_cut_docs];
        free(offsets);
        s.cut_lists.offset = offset_copy;
        CUDA_TRY(e);
        CUDA_TRY(alloc_copy(&s.cut_lists.topics, (const uint32_t *)NULL, entries));
        CUDA_TRY(alloc_copy(&s.cut_lists.counts, (const uint32_t *)NULL, entries));
        CUDA_TRY(alloc_copy(&s.cut_lists.len, (const uint32_t *)NULL, L->num_cut_docs));
    } else {
        CUDA_TRY(alloc_copy(&s.cut_base, (const uint32_t *)NULL, L->num_cut_docs * K));
        CUDA_TRY(alloc_copy(&s.cut_delta, (const uint32_t *)NULL, L->num_cut_docs * K));
        CUDA_TRY(cudaMemset(s.cut_delta, 0, L->num_cut_docs * K * sizeof(uint32_t)));
        CUDA_TRY(alloc_copy(&s.n_mk, (const uint32_t *)NULL, L->num_slots * K));
    }
    {
        cut_chunk *chunks = cuda_cut_chunks(L, &s.num_cut_chunks);
        if (!chunks) {
            lda_error_fail(err, "out of memory");
            goto fail;
        }
        const cudaError_t e = alloc_copy(&s.cut_chunks, chunks, s.num_cut_chunks);
        free(chunks);
        CUDA_TRY(e);
    }
    CUDA_TRY(alloc_copy(&s.slot_token_base, L->slot_token_base, L->num_slots));
    if (p->theta_collapsed) { // θ formed from the counts when read (cuda_theta_rows)
        s.theta_chunk_slots = lda_device_window_slots(L->num_slots, (uint32_t)K);
        CUDA_TRY(alloc_copy(&s.theta_chunk, (const float *)NULL, s.theta_chunk_slots * K));
    } else {
        CUDA_TRY(alloc_copy(&s.theta, (const float *)NULL, L->num_slots * K));
    }
    CUDA_TRY(alloc_copy(&s.phi, (const float *)NULL, V * K));
    if (!streamed) {
        CUDA_TRY(alloc_copy(&s.z, (const uint32_t *)NULL, L->num_positions));
        CUDA_TRY(cudaMemset(s.z, 0, L->num_positions * sizeof(uint32_t)));
    }
    if (!plan->z_marks_changes) // else the draw marks a changed token's old topic in z
        CUDA_TRY(alloc_copy(&s.z_prev, (const uint32_t *)NULL, L->num_positions));
    CUDA_TRY(alloc_copy(&s.n_wk, (const uint32_t *)NULL, V * K));
    CUDA_TRY(alloc_copy(&s.n_k, (const uint32_t *)NULL, K));
    s.own_wk = s.n_wk; // until it becomes a shard
    s.own_k = s.n_k;
    CUDA_TRY(alloc_copy(&s.phi_partial, (const double *)NULL, lda_phi_chunks(s.V) * K));
    CUDA_TRY(alloc_copy(&s.phi_scale, (const double *)NULL, K));
    CUDA_TRY(alloc_copy(&s.phi_mean_scale, (const float *)NULL, K));
    CUDA_TRY(alloc_copy(&s.alpha_float, (const float *)NULL, K));
    CUDA_TRY(alloc_copy(&s.alpha, (const double *)NULL, K));
    CUDA_TRY(alloc_copy(&s.lgamma_alpha, (const double *)NULL, K));
    if (p->optimize_interval) { // the histograms that learning the priors reads
        s.hist_over_cap = L->num_tokens / LDA_HIST_CAP + 1;
        CUDA_TRY(alloc_copy(&s.hist_doc, (const uint32_t *)NULL, K * LDA_HIST_CAP));
        CUDA_TRY(alloc_copy(&s.hist_word, (const uint32_t *)NULL, LDA_HIST_CAP));
        CUDA_TRY(alloc_copy(&s.hist_doc_over, (const unsigned long long *)NULL, s.hist_over_cap));
        CUDA_TRY(alloc_copy(&s.hist_word_over, (const uint32_t *)NULL, s.hist_over_cap));
        CUDA_TRY(alloc_copy(&s.hist_over_count, (const unsigned long long *)NULL, 2));
    }
    CUDA_TRY(alloc_copy(&s.partials, (const double *)NULL, s.partials_count));
    if (plan->kernel == LDA_ZKERNEL_SPARSE)
        CUDA_TRY(alloc_copy(&s.word_alpha, (const double *)NULL, (size_t)s.V));
    if (streamed) { // the scratch but for the slots' lists: its start, and the word lists' part
        lda_sparse_scratch sc;
        lda_sparse_scratch_plan(L, plan->K, plan->precision, (lda_word_lists)plan->sparse_word_lists,
                                plan->word_list_room, &sc);
        CUDA_TRY(cudaMalloc(&s.scratch, sc.lists_at));
        CUDA_TRY(cudaMalloc(&s.word_scratch, sc.word_offsets_at ? sc.total_bytes - sc.word_offsets_at : 16));
    } else {
        CUDA_TRY(cudaMalloc(&s.scratch, plan->scratch_bytes));
    }
    if (zsample_sparse_prepare(*plan, L, s.scratch, s.word_scratch, s.slot_doc_len, &s.sparse, err))
        goto fail;
    return 0;
fail:
    free_state(s);
    return -1;
}

// φ from the counts (which the caller has made current), from the stream `phi_stream`.
int cuda_backend_update_phi(lda_backend *b, uint32_t phi_stream, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    const lda_params *p = &b->params;
    if (p->freeze_phi)
        return 0;
    if (b->zplan.phi_from_counts) {
        s.phi_stale = true;
        return cuda_update_phi_mean_scale(s, err);
    }
    return cuda_update_phi(s, lda_phi_update(p), p->seed, phi_stream, err);
}

// φ for those who read it (evaluation, fetch) where the draw forms it from the counts.
int cuda_backend_ensure_phi(lda_backend *b, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (!s.phi_stale)
        return 0;
    if (cuda_update_phi(s, LDA_UPDATE_MEAN, b->params.seed, 0, err))
        return -1;
    s.phi_stale = false;
    return 0;
}

// θ and φ as at the end of `iteration` (params.h, lda_phi_stream). θ as a mean of the counts
// that the z kernel forms itself (fused_theta_mean) is left for ensure_theta; the θ-collapsed
// models keep no θ at all (their draws read n[m,k] + α; θ is formed from the counts when read,
// cuda_theta_rows: at K = 10,000 on wiki43k the mean of every row took 2.3 ms of a 9.5 ms
// iteration, and θ was half of the state's D × K arrays).
int cuda_backend_update_model(lda_backend *b, uint32_t iteration, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    const lda_params *p = &b->params;
    if (b->zplan.fused_theta_mean)
        s.theta_stale = true;
    else if (!p->theta_collapsed && cuda_update_theta(s, lda_theta_update(p), p->seed, iteration, err))
        return -1;
    return cuda_backend_update_phi(b, lda_phi_stream(iteration, p->refresh - 1, p->refresh), err);
}

// θ for those who read it (evaluation, fetch, scoring): the mean of the current counts.
int cuda_backend_ensure_theta(lda_backend *b, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (!s.theta_stale)
        return 0;
    if (cuda_update_theta(s, LDA_UPDATE_MEAN, b->params.seed, 0, err))
        return -1;
    s.theta_stale = false;
    return 0;
}

int cuda_start_counts(lda_backend *b, const uint32_t *z, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (z)
        CUDA_TRY(cudaMemcpyAsync(s.z, z, s.num_positions * sizeof(uint32_t), cudaMemcpyHostToDevice, s.stream));
    else if (cuda_init_z(s, b->params.seed, lda_params_start_topics(&b->params), err))
        return -1;
    return cuda_count(s, err) || cuda_join_cut_counts(s, true, err) ? -1 : 0;
fail:
    return -1;
}

static int cuda_start(lda_backend *b, const uint32_t *z, uint32_t iteration, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (s.chunked ? cuda_stream_start(b, z, err) : cuda_start_counts(b, z, err))
        return -1;
    if (cuda_topic_totals_queue(s, err) || cuda_backend_update_model(b, iteration, err))
        return -1;
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    return cuda_topic_totals_verify(s, err);
fail:
    return -1;
}

void cuda_zsample_args(const lda_backend *b, const device_state &s, uint32_t iteration, uint32_t part,
                       zsample_args *out, zsample_sparse_tables *sparse)
{
    zsample_args &a = *out;
    memset(&a, 0, sizeof a);
    a.words = s.words;
    a.warp_offset = s.warp_offset;
    a.warp_len = s.warp_len;
    a.slot_len = s.slot_len;
    a.slot_token_base = s.slot_token_base;
    if (b->params.theta_collapsed)
        a.alpha = s.alpha_float;
    else
        a.theta = s.theta;
    a.n_mk = s.n_mk;
    a.theta_collapsed = b->params.theta_collapsed;
    a.phi = s.phi;
    a.z = s.z;
    a.scratch = s.scratch;
    a.K = s.K;
    a.num_slots = s.num_slots;
    a.num_warps = s.num_warps;
    a.seed = b->params.seed;
    a.iteration = iteration;
    a.part = (uint16_t)part;
    a.part_count = (uint16_t)b->params.refresh; // at most 256 (--refresh)
    *sparse = s.sparse;
    if (b->zplan.phi_from_counts) { // φ[w,k] from n[w,k] and the scales (core/phi_mean.h)
        sparse->n_wk = s.n_wk;
        sparse->phi_scale = s.phi_mean_scale;
        sparse->beta = (float)s.beta;
    }
}

int cuda_backend_zsample(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    zsample_args a;
    zsample_sparse_tables sparse;
    cuda_zsample_args(b, s, iteration, part, &a, &sparse);
    const lda_zplan &plan = b->zplan;
    const zsample_fused f = {plan.fused_counts ? s.own_wk : NULL, plan.fused_counts ? s.own_k : NULL, s.slot_doc_len,
                             b->priors.learned ? s.alpha : NULL, b->priors.alpha[0], s.alpha_sum,
                             plan.fused_theta_mean};
    return zsample_launch(plan, a, f, sparse, s.stream, err);
}

// One iteration: z in --refresh parts, each followed by the count update for its tokens
// and (but after the last) φ; then, the counts final, the priors learned when due, and θ and φ. z_prev keeps the topics the iteration began
// with (or the draw marks each changed token's old topic in z, the plan's z_marks_changes); the
// parts touch disjoint tokens, so each part's count update reads it as it was.
static int cuda_iterate(lda_backend *b, uint32_t iteration, lda_iter_timing *timing, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    const uint32_t R = b->params.refresh;
    const bool fused_counts = b->zplan.fused_counts;
    float z_ms = 0, update_ms = 0;
    CUDA_TRY(cudaEventRecord(s.ev_start, s.stream));
    if (!fused_counts && s.z_prev)
        CUDA_TRY(cudaMemcpyAsync(s.z_prev, s.z, s.num_positions * sizeof *s.z, cudaMemcpyDeviceToDevice, s.stream));
    for (uint32_t part = 0; part < R && s.chunked; part++) { // R = 1 (lda_stream_refusal)
        CUDA_TRY(cudaEventRecord(s.ev_parts[2 * part], s.stream));
        if (cuda_stream_pass(b, iteration, err))
            return -1;
        CUDA_TRY(cudaEventRecord(s.ev_parts[2 * part + 1], s.stream));
    }
    for (uint32_t part = 0; part < R && !s.chunked; part++) {
        CUDA_TRY(cudaEventRecord(s.ev_parts[2 * part], s.stream));
        if (cuda_backend_zsample(b, iteration, part, err))
            return -1;
        CUDA_TRY(cudaEventRecord(s.ev_parts[2 * part + 1], s.stream));
        if (!fused_counts && cuda_count_changes(s, b->params.theta_collapsed, part, R, err))
            return -1;
        if (cuda_join_cut_counts(s, false, err))
            return -1;
        if (part + 1 < R && cuda_backend_update_phi(b, lda_phi_stream(iteration, part, R), err))
            return -1;
    }
    if (cuda_topic_totals_queue(s, err) || lda_backend_learn_priors(b, iteration, err) ||
        cuda_backend_update_model(b, iteration, err))
        return -1;
    CUDA_TRY(cudaEventRecord(s.ev_updated, s.stream));
    CUDA_TRY(cudaEventSynchronize(s.ev_updated));
    if (cuda_topic_totals_verify(s, err))
        return -1;
    for (uint32_t part = 0; part < R; part++) { // z: the draws alone; updates: the rest
        float ms = 0;
        CUDA_TRY(cudaEventElapsedTime(&ms, s.ev_parts[2 * part], s.ev_parts[2 * part + 1]));
        z_ms += ms;
    }
    {
        float total_ms = 0;
        CUDA_TRY(cudaEventElapsedTime(&total_ms, s.ev_start, s.ev_updated));
        update_ms = total_ms - z_ms;
    }
    if (timing) {
        timing->z_seconds = z_ms * 1e-3;
        timing->update_seconds = update_ms * 1e-3;
        timing->copy_wait_seconds = 0;
        if (tokens_streamed(s)) {
            float waited_ms = 0;
            if (cuda_stream_waited_ms(*s.chunked, &waited_ms, err))
                return -1;
            timing->copy_wait_seconds = waited_ms * 1e-3;
        }
    }
    return 0;
fail:
    return -1;
}

static int cuda_evaluate(lda_backend *b, lda_eval *out, lda_error *err)
{
    return cuda_enter(b, err) || lda_backend_evaluate_from_terms(b, out, err) ? -1 : 0;
}

// θ's rows to the host, as many at a time as the state gives them (cuda_theta_rows).
static int theta_to_host(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    device_state &s = ((cuda_impl *)b->impl)->s;
    const size_t K = s.K, step = cuda_theta_rows_at_once(s);
    if (cuda_backend_ensure_theta(b, err))
        return -1;
    if (tokens_streamed(s))
        return cuda_stream_theta_to_host(b, first, count, theta, err);
    for (size_t done = 0; done < count; done += step) {
        const size_t n = count - done < step ? count - done : step;
        const float *rows = NULL;
        if (cuda_theta_rows(s, first + done, n, &rows, err))
            return -1;
        CUDA_TRY(cudaMemcpyAsync(theta + done * K, rows, n * K * sizeof *theta, cudaMemcpyDeviceToHost, s.stream));
        CUDA_TRY(cudaStreamSynchronize(s.stream)); // the chunk is reused by the next rows
    }
    return 0;
fail:
    return -1;
}

static int cuda_fetch_theta_rows(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    const device_state &s = ((cuda_impl *)b->impl)->s;
    if (first > s.num_slots || count > s.num_slots - first) {
        lda_error_fail(err, "internal error: θ rows %zu..+%zu of %zu", first, count, s.num_slots);
        return -1;
    }
    return theta_to_host(b, first, count, theta, err);
}

static int cuda_fetch(lda_backend *b, float *theta, float *phi, uint32_t *z, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    const size_t K = s.K;
    if (theta && theta_to_host(b, 0, s.num_slots, theta, err))
        return -1;
    if (phi && cuda_backend_ensure_phi(b, err))
        return -1;
    if (phi)
        CUDA_TRY(cudaMemcpyAsync(phi, s.phi, (size_t)s.V * K * sizeof *phi, cudaMemcpyDeviceToHost, s.stream));
    if (z && !tokens_streamed(s))
        CUDA_TRY(cudaMemcpyAsync(z, s.z, s.num_positions * sizeof *z, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    if (z && tokens_streamed(s)) // the pass's copies back are done once s.stream is; the host's z is 16-bit
        for (size_t i = 0; i < s.num_positions; i++)
            z[i] = s.chunked->host_z[i];
    return 0;
fail:
    return -1;
}

static int cuda_fetch_counts(lda_backend *b, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    const size_t K = s.K;
    if (n_mk && tokens_streamed(s) && cuda_stream_doc_rows_to_host(b, n_mk, err))
        return -1;
    for (size_t first = 0, step = cuda_doc_rows_at_once(s); n_mk && !tokens_streamed(s) && first < s.num_slots;
         first += step) {
        const size_t n = s.num_slots - first < step ? s.num_slots - first : step;
        const uint32_t *rows = NULL;
        if (cuda_doc_rows(s, first, n, &rows, err))
            return -1;
        CUDA_TRY(cudaMemcpyAsync(n_mk + first * K, rows, n * K * sizeof *n_mk, cudaMemcpyDeviceToHost, s.stream));
        CUDA_TRY(cudaStreamSynchronize(s.stream)); // the window is reused by the next rows
    }
    if (n_wk)
        CUDA_TRY(cudaMemcpyAsync(n_wk, s.n_wk, (size_t)s.V * K * sizeof *n_wk, cudaMemcpyDeviceToHost, s.stream));
    if (n_k)
        CUDA_TRY(cudaMemcpyAsync(n_k, s.n_k, K * sizeof *n_k, cudaMemcpyDeviceToHost, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    return 0;
fail:
    return -1;
}

static int cuda_set_phi(lda_backend *b, const float *phi, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    if (b->zplan.phi_from_counts) { // its draws would not read the φ given
        lda_error_fail(err, "internal error: φ set for a draw that forms φ from the counts");
        return -1;
    }
    CUDA_TRY(cudaMemcpyAsync(s.phi, phi, (size_t)s.V * s.K * sizeof *phi, cudaMemcpyHostToDevice, s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream));
    s.phi_stale = false;
    return 0;
fail:
    return -1;
}

static void cuda_destroy(lda_backend *b)
{
    cuda_impl *impl = (cuda_impl *)b->impl;
    if (impl) {
        cudaSetDevice(impl->device); // best effort: the frees below are on it, and nothing can report
        free_state(impl->s);
        free(impl);
    }
    free(b);
}

// The priors (b->priors) to the device: the θ-collapsed weights' float α, the double α and
// lgamma(α) of the θ update and the joint log-likelihood; Σα and β travel as arguments.
static int cuda_priors_changed(lda_backend *b, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    device_state &s = ((cuda_impl *)b->impl)->s;
    const lda_priors &p = b->priors;
    CUDA_TRY(cudaMemcpyAsync(s.alpha_float, p.alpha_float, p.K * sizeof *s.alpha_float, cudaMemcpyHostToDevice,
                             s.stream));
    CUDA_TRY(cudaMemcpyAsync(s.alpha, p.alpha, p.K * sizeof *s.alpha, cudaMemcpyHostToDevice, s.stream));
    CUDA_TRY(cudaMemcpyAsync(s.lgamma_alpha, p.lgamma_alpha, p.K * sizeof *s.lgamma_alpha, cudaMemcpyHostToDevice,
                             s.stream));
    CUDA_TRY(cudaStreamSynchronize(s.stream)); // the host arrays may change after this returns
    s.alpha_sum = p.alpha_sum;
    s.beta = p.beta;
    return 0;
fail:
    return -1;
}

static int cuda_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    if (cuda_enter(b, err))
        return -1;
    const device_state &s = ((cuda_impl *)b->impl)->s;
    return tokens_streamed(s) ? cuda_stream_histograms(b, h, err) : cuda_count_histograms(s, h, err);
}

static const lda_backend_ops cuda_ops = {
    cuda_start,   cuda_iterate, cuda_evaluate,       cuda_fetch,      cuda_fetch_theta_rows, cuda_fetch_counts,
    cuda_set_phi, lda_backend_score_from_terms, cuda_priors_changed, cuda_histograms, cuda_destroy,
    // The steps of a shard of several (backend_cuda_shard.cu); a backend of one GPU runs
    // cuda_start and cuda_iterate, the same work with fewer waits.
    cuda_become_shard, cuda_set_z, cuda_draw_step, cuda_counts_summed, cuda_update_step, cuda_eval_terms, cuda_finish,
};

extern "C" uint64_t lda_cuda_state_bytes(const lda_layout *L, const lda_params *p)
{
    lda_gpu_limits limits;
    lda_zplan plan;
    lda_error ignored;
    if (lda_cuda_gpu_limits(p->cuda_device, &limits, &ignored) || lda_zplan_make(p, L, &limits, &plan, &ignored))
        return UINT64_MAX;
    return bytes_needed(L, p, &plan);
}

extern "C" int lda_cuda_free_bytes(int device, uint64_t *out, lda_error *err)
{
    size_t free_bytes = 0, total_bytes = 0;
    int current = 0;
    CUDA_TRY(cudaGetDevice(&current));
    if (device >= 0)
        CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    CUDA_TRY(cudaSetDevice(current));
    *out = free_bytes;
    return 0;
fail:
    return -1;
}

// Whether the z pass goes a chunk of warps at a time, and whether its tokens are streamed from
// the host (backend/stream_plan.h makes the choice; here the device's free memory, less the
// margin check_fits keeps).
static int choose_stream(const lda_layout *L, const lda_params *p, const lda_zplan *plan, lda_stream_plan *out,
                         lda_error *err)
{
    memset(out, 0, sizeof *out);
    if (p->freeze_phi) // inference (φ given): its corpus is the documents asked about, kept in memory
        return 0;
    size_t forced = 0;
    const lda_stream_mode mode = (lda_stream_mode)p->stream_tokens;
    if (lda_stream_forced_warps(&forced, err))
        return -1;
    const char *refusal = lda_stream_refusal(p, plan);
    if (refusal && (forced || mode == LDA_STREAM_ON)) {
        lda_error_input(err, "%s: %s", forced ? LDA_STREAM_CHUNK_WARPS_ENV : "--stream-tokens on", refusal);
        return -1;
    }
    if (refusal)
        return 0;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    {
        const uint64_t usable = free_bytes > (64u << 20) ? free_bytes - (64u << 20) : 0;
        const uint64_t cut_entries = lda_cut_list_entries(L, p->num_topics);
        const uint64_t need = bytes_needed(L, p, plan); // chunks in device memory add more: check_fits
        return lda_stream_plan_make(L, p->num_topics, mode, need, cut_entries, usable, forced, out, err);
    }
fail:
    return -1;
}

// Where the plan writes φ (a corpus large beside V × K: zplan.h, LDA_ZPLAN_PHI_WRITTEN_SHARE) but
// the tokens are to stream (asked, or not fitting in device memory), the plan made again with φ
// formed from the counts, which streaming needs; p remembers it.
static int plan_for_streaming(const lda_layout *L, lda_params *p, const lda_gpu_limits *limits, lda_zplan *plan,
                              lda_error *err)
{
    size_t forced = 0, free_bytes = 0, total_bytes = 0;
    if (!lda_zplan_writes_counts_mean(p, plan) || lda_stream_refusal_params(p))
        return 0;
    if (lda_stream_forced_warps(&forced, err))
        return -1;
    if (!forced && p->stream_tokens != LDA_STREAM_ON) {
        if (p->stream_tokens == LDA_STREAM_OFF)
            return 0;
        CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (bytes_needed(L, p, plan) + (64u << 20) <= free_bytes)
            return 0;
    }
    p->phi_counts_only = 1;
    return lda_zplan_make(p, L, limits, plan, err);
fail:
    return -1;
}

// The plan's rules (zplan.c) refuse what no kernel can run; here what this device cannot hold
// (chunks in device memory add the pass's own arrays; streamed, the stream plan has weighed it).
static int check_fits(const lda_layout *L, const lda_params *p, const lda_zplan *plan, const lda_stream_plan *chunks,
                      const cudaDeviceProp &prop, lda_error *err)
{
    const uint64_t extra = chunks->num_chunks ? lda_stream_pass_bytes(L, p->num_topics,
                                                                      lda_cut_list_entries(L, p->num_topics))
                                              : 0;
    if ((uint64_t)L->vocab_size * p->num_topics >= (1ull << 32)) {
        lda_error_input(err, "V x K = %u x %u is too large for the CUDA backend (at most 2^32 entries of phi)",
                        L->vocab_size, p->num_topics);
        return -1;
    }
    if (chunks->streamed)
        return 0;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    {
        lda_device_bytes rows;
        lda_device_bytes_plan(L, p, plan, &rows);
        const size_t need = rows.total + extra;
        if (need + (64u << 20) > free_bytes) {
            char advice[512] = "", shares[256];
            lda_device_bytes_describe(&rows, L->num_tokens, 3, shares, sizeof shares); // where most of it goes
            if (p->shards <= 1) // a shard's advice comes from the sharded backend, which has the whole layout
                lda_gpu_memory_advice(L, p, free_bytes > (64u << 20) ? free_bytes - (64u << 20) : 0, 2, advice,
                                      sizeof advice);
            lda_error_fail(err,
                           "not enough GPU memory on %s: this run needs %.2f GiB (K=%u, %zu documents, V=%u, "
                           "sampler %s, %s), %.2f GiB are free%s (device memory: %s)",
                           prop.name, need / 1073741824.0, p->num_topics, L->num_docs, L->vocab_size,
                           lda_choice_name(lda_sampler_choices, p->sampler),
                           lda_choice_name(lda_precision_choices, p->precision), free_bytes / 1073741824.0, advice,
                           shares);
            return -1;
        }
    }
    return 0;
fail:
    return -1;
}

// The count update by word (zplan.h's counts_by_word), but where the z pass goes a chunk of
// warps at a time (a chunk's draw reads φ after the chunks before it were counted) or the switch
// (backend/word_changes.h) is off. The plan's line says when it is on.
static int setup_word_changes(lda_backend *b, bool chunked, lda_error *err)
{
    lda_word_changes_settings settings;
    if (lda_word_changes_settings_get(&settings, err))
        return -1;
    lda_zplan &z = b->zplan;
    z.counts_by_word = !chunked && !settings.off;
    if (!z.counts_by_word)
        return 0;
    if (cuda_word_changes_setup(((cuda_impl *)b->impl)->s, &settings, err))
        return -1;
    const size_t used = strlen(z.why);
    snprintf(z.why + used, sizeof z.why - used, "; n[w,k]'s changes added up by word");
    return 0;
}

extern "C" lda_backend *lda_cuda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0) {
        lda_error_input(err, "--device cuda: %s", why);
        return NULL;
    }
    lda_backend *b = (lda_backend *)calloc(1, sizeof *b);
    cuda_impl *impl = (cuda_impl *)calloc(1, sizeof *impl);
    cudaDeviceProp prop;
    if (!b || !impl) {
        lda_error_fail(err, "out of memory");
        free(b);
        free(impl);
        return NULL;
    }
    b->ops = &cuda_ops;
    b->layout = L;
    b->params = *params;
    b->params.device = LDA_DEVICE_CUDA;
    b->impl = impl;
    if (params->cuda_device >= 0)
        CUDA_TRY(cudaSetDevice(params->cuda_device));
    CUDA_TRY(cudaGetDevice(&impl->device));
    CUDA_TRY(cudaGetDeviceProperties(&prop, impl->device));
    {
        lda_gpu_limits limits;
        lda_stream_plan chunks;
        memset(&chunks, 0, sizeof chunks);
        if (lda_cuda_gpu_limits(impl->device, &limits, err) || lda_zplan_make(params, L, &limits, &b->zplan, err) ||
            plan_for_streaming(L, &b->params, &limits, &b->zplan, err) ||
            choose_stream(L, &b->params, &b->zplan, &chunks, err) ||
            check_fits(L, params, &b->zplan, &chunks, prop, err) ||
            create_state(impl->s, L, params, &b->zplan, chunks.streamed, err) ||
            (chunks.num_chunks && cuda_stream_setup(b, &chunks, err)) ||
            cuda_topic_totals_setup(impl->s, chunks.num_chunks > 0, err)) {
            free_state(impl->s);
            lda_stream_plan_free(&chunks);
            goto fail_quiet;
        }
        if (b->zplan.counts_by_word && setup_word_changes(b, chunks.num_chunks > 0, err)) {
            free_state(impl->s);
            lda_stream_plan_free(&chunks);
            goto fail_quiet;
        }
        snprintf(b->stream_why, sizeof b->stream_why, "%s", chunks.why);
        b->tokens_streamed = chunks.streamed;
        lda_stream_plan_free(&chunks);
    }
    snprintf(b->description, sizeof b->description, "CUDA: %.200s (%d SMs, %.0f GiB), sampler %s, %.2f GiB of state",
             prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0,
             lda_choice_name(lda_sampler_choices, params->sampler), bytes_needed(L, params, &b->zplan) / 1073741824.0);
    return b;
fail:
fail_quiet:
    free(impl);
    free(b);
    return NULL;
}
