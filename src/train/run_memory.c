/* run_memory.c — see run_memory.h. The terms follow the allocations of backend_cpu.c
 * (lda_cpu_backend_create) and of the trainer's save_model and held-out evaluation; the
 * small ones (per-thread scratch, column partial sums) are left out. */
#include "train/run_memory.h"

#include "backend/backend.h"
#include "backend/sampler_sparse.h"
#include "backend/sampler_alias.h"
#include "backend/sampler_sparselda.h"
#include "backend/zplan.h"
#include "backend/shards.h"
#include "corpus/corpus.h"
#include "train/cvb_start.h"
#include "train/phi_cvb.h"
#include "train/phi_expected.h"
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
    if (p->sampler == LDA_SAMPLER_SPARSELDA)
        b += lda_sparselda_bytes(L, p->num_topics, LDA_ZPLAN_SPARSELDA_PARTS, p->threads);
    if (p->sampler == LDA_SAMPLER_ALIAS || p->sampler == LDA_SAMPLER_MH)
        b += lda_alias_bytes(L, p->num_topics, p->threads);
    return b;
}

uint64_t lda_run_host_bytes(const lda_layout *L, const lda_params *p, int on_cpu, uint64_t num_input_docs,
                            const lda_doc_topics *doc_topics, int holdout)
{
    const uint64_t K = p->num_topics, V = L->vocab_size, P = L->num_positions, N = L->num_tokens;
    const uint32_t shards = p->shards > 1 ? p->shards : 1;
    uint64_t b = 0;
    if (on_cpu) /* the shards together hold every slot and position once, and each its V × K arrays */
        b += lda_run_cpu_state_bytes(L, p, shards > 1) + (shards - 1) * V * K * 3 * sizeof(uint32_t);
    /* Saving takes φ and z fetched, then the model's own φ and z in input order. With
     * --phi-estimate expected or cvb, the pass before it takes z twice (fetched, and in corpus order), its
     * own arrays and the V × K φ it writes (held-out's, counted below, where there is one); while it
     * runs, save may already hold z fetched. The larger of the two. */
    const uint64_t save = (V * K + P) * sizeof(uint32_t) + (V * K + N) * sizeof(uint32_t);
    uint64_t pass = 0;
    if (p->phi_estimate == LDA_PHI_ESTIMATE_EXPECTED || p->phi_estimate == LDA_PHI_ESTIMATE_CVB)
        pass = (2 * P + N) * sizeof(uint32_t) +
               (p->phi_estimate == LDA_PHI_ESTIMATE_CVB
                    ? lda_phi_cvb_bytes(N, L->num_docs, L->vocab_size, p->num_topics)
                    : lda_phi_expected_bytes(N, L->num_docs, L->vocab_size, p->num_topics)) +
               (holdout ? 0 : V * K * sizeof(float));
    b += save > pass ? save : pass;
    /* --cvb-start's state before the first iteration (freed before saving), with z in positions. */
    if (lda_params_cvb_start(p, L->num_docs)) {
        const uint64_t start = lda_cvb_bytes(N, L->num_docs, L->vocab_size, p->num_topics) + P * sizeof(uint32_t);
        const uint64_t later = save > pass ? save : pass;
        b += start > later ? start - later : 0;
    }
    b += L->token_shift ? N * sizeof(int32_t) : 0;                /* the layout's order by word (raw text) */
    b += lda_theta_fetch_bytes(L, p->num_topics, num_input_docs); /* θ's chunks, trained flags */
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
