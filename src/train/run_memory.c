/* run_memory.c — see run_memory.h. The terms follow the allocations of backend_cpu.c
 * (lda_cpu_backend_create) and of the trainer's save_model and held-out evaluation; the
 * small ones (per-thread scratch, column partial sums) are left out. */
#include "train/run_memory.h"

#include "backend/backend.h"
#include "backend/sampler_sparse.h"
#include "backend/shards.h"
#include "corpus/corpus.h"
#include "train/theta_fetch.h"
#include "util/memory.h"

/* The readers refuse documents the layout could not hold: the two limits are one. */
_Static_assert(CORPUS_MAX_DOC_TOKENS == UINT32_MAX / LDA_WARP, "the readers' limit is the layout's");

uint64_t lda_run_cpu_state_bytes(const lda_layout *L, const lda_params *p, int shard)
{
    const uint64_t K = p->num_topics, S = L->num_slots, V = L->vocab_size, P = L->num_positions,
                   N = L->num_tokens;
    uint64_t b = 0;
    b += (V + 1 + N) * sizeof(size_t);               /* word index */
    b += S * K * 2 * sizeof(uint32_t);               /* θ, n[m,k] */
    b += V * K * (shard ? 3 : 2) * sizeof(uint32_t); /* φ, n[w,k] (a shard's own and the totals) */
    b += P * sizeof(uint32_t) + K * sizeof(uint32_t); /* z, n[k] */
    if (shard) /* its layout: words, and per slot its document, lengths, piece, token base */
        b += P * sizeof(uint32_t) + S * (4 * sizeof(uint32_t) + sizeof(uint64_t));
    if (p->sampler == LDA_SAMPLER_SPARSE)
        b += lda_word_prior_prefix_bytes(L->vocab_size, p->num_topics, p->precision);
    return b;
}

/* The largest shard of L split `count` ways, by bytes_of. */
static int largest_shard_bytes(const lda_layout *L, const lda_params *p, uint32_t count, lda_device_bytes_fn bytes_of,
                               uint64_t *out, lda_error *err)
{
    lda_shard shards[LDA_MAX_SHARDS];
    if (lda_shard_plan(L, count, shards, err))
        return -1;
    *out = 0;
    for (uint32_t g = 0; g < count; g++) {
        lda_layout *S = lda_layout_warps(L, shards[g].first_warp, shards[g].end_warp, err);
        if (!S)
            return -1;
        const uint64_t bytes = bytes_of(S, p);
        *out = bytes > *out ? bytes : *out;
        lda_layout_free(S);
    }
    return 0;
}

int lda_run_devices_needed(const lda_layout *L, const lda_params *p, uint32_t from, uint64_t per_device,
                           lda_device_bytes_fn bytes_of, uint32_t *needed, lda_error *err)
{
    *needed = 0;
    for (uint32_t n = from ? from : 1; n <= LDA_MAX_SHARDS; n++) {
        uint64_t largest;
        if (largest_shard_bytes(L, p, n, bytes_of, &largest, err))
            return -1;
        if (largest <= per_device) {
            *needed = n;
            return 0;
        }
    }
    return 0;
}

uint64_t lda_run_host_bytes(const lda_layout *L, const lda_params *p, int on_cpu, uint64_t num_input_docs,
                            const lda_doc_topics *doc_topics, int holdout)
{
    const uint64_t K = p->num_topics, V = L->vocab_size, P = L->num_positions, N = L->num_tokens;
    const uint32_t shards = p->shards > 1 ? p->shards : 1;
    uint64_t b = 0;
    if (on_cpu) /* the shards together hold every slot and position once, and each its V × K arrays */
        b += lda_run_cpu_state_bytes(L, p, shards > 1) + (shards - 1) * V * K * 3 * sizeof(uint32_t);
    b += (V * K + P) * sizeof(uint32_t);                          /* φ and z fetched to save them */
    b += (V * K + N) * sizeof(uint32_t);                          /* the model's φ, z in input order */
    b += lda_theta_chunk_slots(L, p->num_topics) * K * sizeof(float) + num_input_docs; /* θ's chunk, trained flags */
    b += lda_doc_topics_bytes(doc_topics, num_input_docs, p->num_topics); /* the model's θ in its form */
    if (holdout)
        b += V * K * sizeof(float) * (on_cpu ? 3 : 1);            /* φ fetched, and the completion's φ, n[w,k] */
    return b;
}

int lda_run_check_memory(const lda_layout *L, const lda_params *p, uint64_t num_input_docs,
                         const lda_doc_topics *doc_topics, int holdout, lda_error *err)
{
    char why[256];
    int on_cpu = p->device == LDA_DEVICE_CPU || (p->device == LDA_DEVICE_AUTO && lda_cuda_device_count(why, sizeof why) == 0);
    uint64_t need = lda_run_host_bytes(L, p, on_cpu, num_input_docs, doc_topics, holdout), available;
    if (lda_memory_available(&available, err))
        return -1;
    if (need <= available)
        return 0;
    char a[32], b[32];
    lda_error_fail(err, "not enough memory for this run: it needs %s (K=%u, %zu documents, V=%u, %s), and %s are "
                   "available", lda_size_text(need, a), p->num_topics, L->num_docs, L->vocab_size,
                   on_cpu ? "training on the CPU" : "the model as saved", lda_size_text(available, b));
    return -1;
}
