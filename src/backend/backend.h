/* backend.h — the one interface the training driver talks to.
 *
 * A backend owns the iteration state (z, the counts n[m,k], n[w,k], n[k], and θ, φ) on its
 * device. The driver starts it, asks for iterations and evaluations, and fetches results;
 * it never knows whether the CPU or the GPU did the work. Arrays crossing the interface are
 * in the layout's order (layout.h): θ is num_slots × K, φ is V × K (row per word), z and
 * positions as in the layout, counts n_mk num_slots × K, n_wk V × K, n_k K. */
#ifndef LDA_BACKEND_H
#define LDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "backend/optimize_priors.h"
#include "backend/zplan.h"
#include "core/priors.h"
#include "core/error.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double z_seconds;      /* drawing z */
    double update_seconds; /* counts and the θ/φ update */
    double copy_wait_seconds; /* tokens streamed from host memory: of z_seconds, the time the GPU's
                                 draw waited for the chunks' copies (what they did not hide) */
} lda_iter_timing;

typedef struct {
    double loglik_pred;  /* mean over tokens of log Σ_k θ[m,k] φ[w,k] */
    double loglik_joint; /* log p(w, z | α, β) / N, from the counts */
} lda_eval;

typedef struct lda_backend lda_backend;

/* A shard's counts (become_shard): its own tokens' n[w,k] and n[k], and the totals over every
 * shard, which φ, the histograms and the evaluation read; the same for the rows of the cut
 * documents whose pieces are in several shards (shards.h: its pieces' rows summed, the
 * documents' counts). Host or device memory. */
typedef struct {
    uint32_t *own_wk, *own_k;     /* V × K, K: this shard's tokens, kept by its z passes */
    uint32_t *total_wk, *total_k; /* V × K, K: filled by the caller (the all-reduce) */
    uint32_t *own_docs, *total_docs; /* doc_rows × K (become_shard) */
    int on_device;                /* 0: host arrays; 1: the backend's device's memory */
    int device;                   /* on_device: the CUDA device */
    void *stream;                 /* on_device: the cudaStream_t the steps queue their work on */
} lda_shard_counts;

typedef struct {
    /* Sets z (uniformly at random when z is NULL) and computes the counts and θ, φ exactly
     * as at the end of iteration `iteration` (0 = the initial state), so a run resumed from
     * a saved z continues the same random stream. */
    int (*start)(lda_backend *b, const uint32_t *z, uint32_t iteration, lda_error *err);
    /* One iteration: draw every z from θ and φ, then recount and update θ and φ. */
    int (*iterate)(lda_backend *b, uint32_t iteration, lda_iter_timing *timing, lda_error *err);
    int (*evaluate)(lda_backend *b, lda_eval *out, lda_error *err);
    /* Copies state to the host; any pointer may be NULL. */
    int (*fetch)(lda_backend *b, float *theta, float *phi, uint32_t *z, lda_error *err);
    /* θ of slots first .. first + count - 1 (count × K): the model's θ written a chunk at a
     * time, without a second whole copy on the host. */
    int (*fetch_theta_rows)(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err);
    int (*fetch_counts)(lda_backend *b, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err);
    /* Replaces φ (V × K). With params.freeze_phi set, start and iterate then leave φ alone
     * and update only z and θ: inference of new documents under a trained model. */
    int (*set_phi)(lda_backend *b, const float *phi, lda_error *err);
    /* Σ over the tokens of `scored` of log Σ_k θ[s,k] φ[w,k], using this backend's θ and φ.
     * `scored` must have this backend's slots (lda_layout_build_like), e.g. the second halves
     * of documents whose first halves this backend was trained on (document completion). */
    int (*score)(lda_backend *b, const lda_layout *scored, double *sum_loglik, lda_error *err);
    /* b->priors changed: the backend takes them up (the GPU copies them to the device); they
     * apply from the next z draw and θ/φ update on. */
    int (*priors_changed)(lda_backend *b, lda_error *err);
    /* The histograms of the current counts that learning the priors needs (optimize_priors.h;
     * the CPU backend's are the reference). */
    int (*count_histograms)(lda_backend *b, lda_count_hist *h, lda_error *err);
    void (*destroy)(lda_backend *b);

    /* ---- The steps of start and iterate, for a backend that is one shard of several
     * (backend_sharded.c interleaves them with the all-reduce of the counts). NULL in a backend
     * that cannot be a shard yet. ---- */
    /* From now on this backend is one shard: its z passes count its own tokens into
     * out->own_wk and own_k (and its shared documents' pieces into own_docs, doc_rows rows),
     * and φ, the histograms and the evaluation read out->total_wk and total_k, which the caller
     * fills after draw_step (or set_z), then calls counts_summed. */
    int (*become_shard)(lda_backend *b, size_t doc_rows, lda_shard_counts *out, lda_error *err);
    /* start's first half: z (at positions; NULL: at random) and the counts, no θ or φ. */
    int (*set_z)(lda_backend *b, const uint32_t *z, lda_error *err);
    /* Part `part` (of params.refresh; of the whole layout: lda_layout_local_part) of
     * iteration's z draw, and the counts. */
    int (*draw_step)(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err);
    /* The totals are in: the shared documents' rows take theirs (before anything reads n[m,k]). */
    int (*counts_summed)(lda_backend *b, lda_error *err);
    /* The counts final (totals in): φ from the part's stream; after the last part θ too. */
    int (*update_step)(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err);
    /* The log-likelihood terms, before they are summed (eval_cpu.h, in a fixed order over the
     * whole layout): per warp, Σ log Σ_k θ φ over the tokens of `scored` (NULL: the backend's
     * own layout) into pred_warps, and the joint's document terms into doc_warps; per
     * vocabulary chunk, the joint's word terms into word_chunks. Any pointer may be NULL. */
    int (*eval_terms)(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                      double *word_chunks, lda_error *err);
    /* Waits until the work the steps queued is done; NULL where the steps finish before they
     * return. The sharded backend waits for every shard where a phase ends (the totals in, the
     * update made), so its iterations are timed as they run. */
    int (*finish)(lda_backend *b, lda_error *err);
} lda_backend_ops;

struct lda_backend {
    const lda_backend_ops *ops;
    const lda_layout *layout; /* borrowed; outlives the backend */
    lda_params params;        /* as given, alpha and device resolved */
    char description[512];    /* "CPU (2 threads)", "CUDA: NVIDIA H100 80GB HBM3 ...", ... */
    lda_zplan zplan;          /* how z is drawn, and why (printed by train and bench) */
    char stream_why[400];     /* CUDA: where the tokens are (backend/stream_plan.h), printed by train; "": not
                                 weighed */
    int tokens_streamed;      /* ... in host memory, passing through the GPU a chunk at a time */
    lda_priors priors;        /* α per topic and β the backend samples with (core/priors.h) */
    lda_count_hist *hist;     /* with params.optimize_interval: the histograms learning reads */
    int following;            /* a process other than rank 0 of an MPI run: it does not train, its backend
                                 follows rank 0's (lda_backend_follow) */
    void *impl;
};

/* Creates the backend params->device asks for; auto picks CUDA when a GPU is present. Its
 * priors are params' symmetric α (resolved) and β. */
lda_backend *lda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err);
void lda_backend_destroy(lda_backend *b);
/* The bytes of device memory the CUDA backend plans for layout L (on params.cuda_device's kind
 * of GPU; a shard's own counts included where params.shards > 1); UINT64_MAX without CUDA. */
uint64_t lda_cuda_state_bytes(const lda_layout *L, const lda_params *p);
/* The same sizing for a shard's split (backend/shards.h): a layout's bytes, and the part of them
 * each of its warps brings, the rest returned (lda_device_bytes_warps); on the CUDA device by its
 * plan, on the CPU (whose shards are a test) by the CPU's plan (the dense draw's arrays, no
 * scratch); UINT64_MAX where it cannot be known (no GPU). */
uint64_t lda_shard_device_bytes(const lda_layout *L, const lda_params *p);
uint64_t lda_shard_warp_bytes(const lda_layout *L, const lda_params *p, uint64_t *per_warp);
/* The free memory of CUDA device `device` (-1: the current one). */
int lda_cuda_free_bytes(int device, uint64_t *out, lda_error *err);
/* The end of a "not enough GPU memory" message for a run of the whole layout `whole`: the fewest
 * GPUs with per_device bytes each (at least `from`) that would hold it split (--gpus N, or
 * mpirun -np N), or that no number would (or, past the tokens several GPUs take, zplan.h's
 * lda_gpu_max_tokens, that limit); and, where they are most of it, that the dense D × K
 * arrays (θ and n[m,k]) are what runs out. */
void lda_gpu_memory_advice(const lda_layout *whole, const lda_params *p, uint64_t per_device, uint32_t from,
                           char *out, size_t size);
/* A sharded backend's split (backend/shards.h: by tokens or by memory, and each shard's tokens and
 * device bytes) into buf, which it returns; NULL where b is not split. */
const char *lda_backend_describe_shards(const lda_backend *b, char *buf, size_t size);
/* --gpus N: refuses (bad input, one line) where this machine has fewer than N CUDA devices. */
int lda_backend_check_gpus(uint32_t gpus, lda_error *err);
/* --device cuda: refuses (bad input, saying what is missing) where there is no usable GPU, so a
 * command says so before it reads its input. Any other device: 0. */
int lda_backend_check_device(lda_device device, lda_error *err);
/* The same on one device whatever params->shards says (each shard of a sharded backend). */
lda_backend *lda_backend_create_one(const lda_layout *L, const lda_params *params, lda_error *err);
/* b with its priors set from its params (α resolved) and taken up; NULL (b destroyed) on failure
 * or when b is NULL. */
lda_backend *lda_backend_with_priors(lda_backend *b, lda_error *err);

/* evaluate and score from b's eval_terms (and n[k] from fetch_counts), the terms added in the
 * order of the whole layout (eval_cpu.h): the sharded backend's and the CUDA backend's, so that
 * one GPU and several print the same figures. */
int lda_backend_evaluate_from_terms(lda_backend *b, lda_eval *out, lda_error *err);
int lda_backend_score_from_terms(lda_backend *b, const lda_layout *scored, double *sum_loglik, lda_error *err);

/* Replaces the priors (a resumed run's learned ones; a model's, for inference) before start. */
int lda_backend_set_priors(lda_backend *b, const lda_priors *priors, lda_error *err);

/* Called by each backend's iterate once the counts are current and before θ and φ are
 * updated (so a run resumed after `iteration` recomputes them with the priors it saved):
 * learns α and β from the counts when params.optimize_interval says `iteration` is due. */
int lda_backend_learn_priors(lda_backend *b, uint32_t iteration, lda_error *err);

/* start and iterate made of the steps above (the CPU backend's, and a sharded one's): set_z
 * then the last part's update_step; per part, draw_step, then (after the last) the priors
 * learned when due, then update_step. */
int lda_backend_start_in_steps(lda_backend *b, const uint32_t *z, uint32_t iteration, lda_error *err);
int lda_backend_iterate_in_steps(lda_backend *b, uint32_t iteration, lda_iter_timing *timing, lda_error *err);

/* On an MPI rank other than 0 (b->following): runs b's part of every operation rank 0's backend
 * makes, until rank 0's is destroyed (backend_sharded.c). */
int lda_backend_follow(lda_backend *b, lda_error *err);

/* Each backend's constructor. With params->shards > 1, lda_backend_create makes the sharded
 * backend (backend_sharded.c) over shards of params->device's backend. */
lda_backend *lda_sharded_backend_create(const lda_layout *L, const lda_params *params, lda_error *err);
lda_backend *lda_cpu_backend_create(const lda_layout *L, const lda_params *params, lda_error *err);
lda_backend *lda_cuda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err);
/* The z plan's limits of CUDA device `device` (-1: the current one); -1 with err without CUDA. */
int lda_cuda_gpu_limits(int device, lda_gpu_limits *out, lda_error *err);
/* Number of usable CUDA devices (0 when none, or when built without CUDA); why in `why`. */
int lda_cuda_device_count(char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
