/* backend_sharded.c — one backend over several: the documents split by whole warps of the one
 * layout (shards.h), each shard a backend of params.device of its own (a GPU each, with --gpus),
 * the word-topic counts summed over the shards after every z pass (allreduce.h).
 *
 * Why the model is byte for byte the one-device model: every random number is keyed on
 * (seed, purpose, iteration, index), the index being a token's corpus-order position, a
 * document's id or a (word, topic) pair, all of which a shard's slots keep; each --refresh
 * part is the same set of warps; a shard's z pass reads θ, φ and its documents' counts exactly
 * as the one device does, and leaves its own tokens' word counts, whose sum (integers: exact)
 * is the one device's count; φ is then drawn on every shard from the same totals and keys, so
 * every shard holds the same φ; θ is per document. The priors are learned from the merged
 * histograms (optimize_priors.h: the same as the whole layout's), and the log-likelihoods are
 * the one device's terms added in the whole layout's order (eval_cpu.h). So the shards only
 * change where the work is done, never what is computed, and the shard count is not a recorded
 * setting: a run resumed with another count goes on with the same bytes.
 *
 * The shards are driven one after the other here; on GPUs their launches are asynchronous,
 * so the devices work side by side (the next step for --gpus: each child on its own device). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/allreduce.h"
#include "backend/backend.h"
#include "backend/eval_cpu.h"
#include "backend/shards.h"
#include "core/phi_chunks.h"

typedef struct {
    uint32_t count;        /* shards with warps, each a backend */
    lda_shard *shards;     /* count: their warps */
    lda_layout **layouts;  /* count: their layouts */
    lda_backend **parts;   /* count */
    lda_shard_counts *counts;
    uint32_t **own, **total; /* count: the all-reduce's arrays, per call */
    lda_allreduce *sum;
    size_t doc_rows;       /* cut documents with pieces in several shards */
    lda_count_hist *hists; /* count, once the priors are first learned */
} sharded;

static sharded *state(lda_backend *b)
{
    return b->impl;
}

/* One array of every shard's counts (by its offset in lda_shard_counts) summed into another's. */
static int sum_one(sharded *sh, size_t own, size_t total, size_t count, lda_error *err)
{
    for (uint32_t g = 0; g < sh->count; g++) {
        sh->own[g] = *(uint32_t **)((char *)&sh->counts[g] + own);
        sh->total[g] = *(uint32_t **)((char *)&sh->counts[g] + total);
    }
    return count ? sh->sum->sum_u32(sh->sum, sh->own, sh->total, count, err) : 0;
}

/* The totals of the word-topic, topic and shared documents' counts, on every shard. */
static int sum_counts(lda_backend *b, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics;
    if (sum_one(sh, offsetof(lda_shard_counts, own_wk), offsetof(lda_shard_counts, total_wk),
                (size_t)b->layout->vocab_size * K, err) ||
        sum_one(sh, offsetof(lda_shard_counts, own_k), offsetof(lda_shard_counts, total_k), K, err) ||
        sum_one(sh, offsetof(lda_shard_counts, own_docs), offsetof(lda_shard_counts, total_docs), sh->doc_rows * K,
                err))
        return -1;
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->counts_summed(sh->parts[g], err))
            return -1;
    return 0;
}

/* Every shard's queued work done (backend.h: finish). */
static int finish_all(sharded *sh, lda_error *err)
{
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->finish && sh->parts[g]->ops->finish(sh->parts[g], err))
            return -1;
    return 0;
}

static int sharded_set_z(lda_backend *b, const uint32_t *z, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++) {
        lda_backend *p = sh->parts[g];
        if (p->ops->set_z(p, z ? z + b->layout->warp_offset[sh->shards[g].first_warp] : NULL, err))
            return -1;
    }
    return sum_counts(b, err) || finish_all(sh, err) ? -1 : 0;
}

static int sharded_draw_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->draw_step(sh->parts[g], iteration, part, err))
            return -1;
    return sum_counts(b, err) || finish_all(sh, err) ? -1 : 0;
}

static int sharded_update_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->update_step(sh->parts[g], iteration, part, err))
            return -1;
    return finish_all(sh, err);
}

/* Each shard's terms at its warps' places in the whole layout's arrays; the words' from the
 * first shard (every shard holds the totals). */
static int sharded_eval_terms(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                              double *word_chunks, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++) {
        const lda_shard *s = &sh->shards[g];
        lda_layout *part_scored = scored ? lda_layout_warps(scored, s->first_warp, s->end_warp, err) : NULL;
        if (scored && !part_scored)
            return -1;
        const int rc = sh->parts[g]->ops->eval_terms(sh->parts[g], part_scored,
                                                     pred_warps ? pred_warps + s->first_warp : NULL,
                                                     doc_warps ? doc_warps + s->first_warp : NULL,
                                                     g == 0 ? word_chunks : NULL, err);
        lda_layout_free(part_scored);
        if (rc)
            return -1;
    }
    return 0;
}

/* θ, n[m,k] and z of the whole layout are the shards' one after the other (shards.h). */
static int sharded_fetch(lda_backend *b, float *theta, float *phi, uint32_t *z, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics;
    for (uint32_t g = 0; g < sh->count; g++) {
        const lda_shard *s = &sh->shards[g];
        if (sh->parts[g]->ops->fetch(sh->parts[g], theta ? theta + s->first_warp * LDA_WARP * K : NULL,
                                     g == 0 ? phi : NULL, z ? z + b->layout->warp_offset[s->first_warp] : NULL,
                                     err))
            return -1;
    }
    return 0;
}

static int sharded_fetch_theta_rows(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics, end = first + count;
    if (first > b->layout->num_slots || count > b->layout->num_slots - first) {
        lda_error_fail(err, "internal error: θ rows %zu..+%zu of %zu", first, count, b->layout->num_slots);
        return -1;
    }
    for (uint32_t g = 0; g < sh->count; g++) {
        const size_t s0 = sh->shards[g].first_warp * LDA_WARP, s1 = sh->shards[g].end_warp * LDA_WARP;
        const size_t lo = first > s0 ? first : s0, hi = end < s1 ? end : s1;
        if (lo < hi && sh->parts[g]->ops->fetch_theta_rows(sh->parts[g], lo - s0, hi - lo, theta + (lo - first) * K, err))
            return -1;
    }
    return 0;
}

static int sharded_fetch_counts(lda_backend *b, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics;
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->fetch_counts(sh->parts[g], n_mk ? n_mk + sh->shards[g].first_warp * LDA_WARP * K : NULL,
                                            g == 0 ? n_wk : NULL, g == 0 ? n_k : NULL, err))
            return -1;
    return 0;
}

static int sharded_set_phi(lda_backend *b, const float *phi, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->set_phi(sh->parts[g], phi, err))
            return -1;
    return 0;
}

static int sharded_priors_changed(lda_backend *b, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = 0; g < sh->count; g++)
        if (lda_backend_set_priors(sh->parts[g], &b->priors, err))
            return -1;
    return 0;
}

static int sharded_count_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    sharded *sh = state(b);
    if (!sh->hists) {
        if (!(sh->hists = lda_calloc(sh->count, sizeof *sh->hists, "count histograms", err)))
            return -1;
        for (uint32_t g = 0; g < sh->count; g++) /* room for the totals' words: the whole corpus's tokens */
            if (lda_count_hist_alloc(&sh->hists[g], b->params.num_topics, b->layout->num_tokens, err))
                return -1;
    }
    for (uint32_t g = 0; g < sh->count; g++)
        if (sh->parts[g]->ops->count_histograms(sh->parts[g], &sh->hists[g], err))
            return -1;
    lda_count_hist_merge(h, sh->hists, sh->count);
    return 0;
}

static void sharded_destroy(lda_backend *b)
{
    sharded *sh = b->impl;
    if (sh) {
        for (uint32_t g = 0; g < sh->count; g++) {
            lda_backend_destroy(sh->parts[g]);
            lda_layout_free(sh->layouts[g]);
            if (sh->hists)
                lda_count_hist_free(&sh->hists[g]);
        }
        lda_allreduce_destroy(sh->sum);
        free(sh->shards);
        free(sh->layouts);
        free(sh->parts);
        free(sh->counts);
        free(sh->own);
        free(sh->total);
        free(sh->hists);
        free(sh);
    }
    free(b);
}

static const lda_backend_ops sharded_ops = {
    lda_backend_start_in_steps, lda_backend_iterate_in_steps, lda_backend_evaluate_from_terms, sharded_fetch,
    sharded_fetch_theta_rows, sharded_fetch_counts, sharded_set_phi, lda_backend_score_from_terms, sharded_priors_changed,
    sharded_count_histograms, sharded_destroy,
    NULL, /* a sharded backend is not itself a shard */
    sharded_set_z, sharded_draw_step, NULL, sharded_update_step, sharded_eval_terms,
    NULL, /* its steps wait for the shards' */
};

/* The shards with warps (at least one: the whole, empty layout when none has any). */
static int plan(const lda_layout *L, uint32_t asked, sharded *sh, lda_error *err)
{
    lda_shard *all = lda_malloc_array(asked, sizeof *all, "shards", err);
    if (!all || lda_shard_plan(L, asked, all, err)) {
        free(all);
        return -1;
    }
    for (uint32_t g = 0; g < asked; g++)
        if (all[g].end_warp > all[g].first_warp || (sh->count == 0 && g + 1 == asked))
            all[sh->count++] = all[g];
    sh->shards = all;
    return 0;
}

/* The shards' layouts, their shared documents numbered 0 .. doc_rows - 1 (in the whole layout's
 * order of cut documents), every shard using the same numbers. */
static int shard_layouts(lda_backend *b, lda_error *err)
{
    sharded *sh = state(b);
    const lda_layout *L = b->layout;
    uint32_t *row = lda_malloc_array(L->num_cut_docs + 1, sizeof *row, "shards", err);
    if (!row)
        return -1;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        row[c] = LDA_NO_DOC;
    for (uint32_t g = 0; g < sh->count; g++) {
        const lda_shard *s = &sh->shards[g];
        if (!(sh->layouts[g] = lda_layout_warps(L, s->first_warp, s->end_warp, err))) {
            free(row);
            return -1;
        }
        for (size_t j = 0; j < sh->layouts[g]->num_shared_docs; j++)
            row[sh->layouts[g]->shared_row[j]] = 0;
    }
    sh->doc_rows = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        if (row[c] != LDA_NO_DOC)
            row[c] = (uint32_t)sh->doc_rows++;
    for (uint32_t g = 0; g < sh->count; g++)
        for (size_t j = 0; j < sh->layouts[g]->num_shared_docs; j++)
            sh->layouts[g]->shared_row[j] = row[sh->layouts[g]->shared_row[j]];
    free(row);
    return 0;
}

/* The shards' device: --device auto resolved once, for all of them; with --gpus, one GPU each. */
static int shard_device(lda_params *one, uint32_t shards, lda_error *err)
{
    char why[256];
    if (one->device == LDA_DEVICE_AUTO)
        one->device = lda_cuda_device_count(why, sizeof why) > 0 ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU;
    return one->shard_devices ? lda_backend_check_gpus(shards, err) : 0;
}

/* The z kernel of the whole layout, for every shard: the automatic choice between kernels weighs
 * the layout's fill of the GPU (zplan.c), and a shard's layout, a part of it, could tip it the
 * other way; the kernels agree in distribution but not bit for bit. */
static int whole_layout_plan(const lda_layout *L, lda_params *one, lda_zplan *plan, lda_error *err)
{
    if (one->device != LDA_DEVICE_CUDA)
        return 0;
    lda_gpu_limits gpu;
    if (lda_cuda_gpu_limits(one->shard_devices ? 0 : one->cuda_device, &gpu, err) ||
        lda_zplan_make(one, L, &gpu, plan, err))
        return -1;
    if (one->split == LDA_SPLIT_AUTO && plan->kernel == LDA_ZKERNEL_STAGED)
        one->split = LDA_SPLIT_STAGED;
    else if (one->split == LDA_SPLIT_AUTO && plan->kernel == LDA_ZKERNEL_SPLIT)
        one->split = plan->warps_per_group;
    return 0;
}

static int create_parts(lda_backend *b, const lda_params *params, lda_error *err)
{
    sharded *sh = state(b);
    lda_params one = *params; /* shards > 1 stays: the CUDA backend plans a shard's memory */
    if (shard_layouts(b, err) || shard_device(&one, sh->count, err) ||
        whole_layout_plan(b->layout, &one, &b->zplan, err))
        return -1;
    for (uint32_t g = 0; g < sh->count; g++) {
        if (one.shard_devices)
            one.cuda_device = (int)g;
        lda_backend *p = sh->parts[g] = lda_backend_create_one(sh->layouts[g], &one, err);
        if (!p)
            return -1;
        if (!p->ops->become_shard) {
            lda_error_input(err, "%u shards: the %s backend cannot be split over devices yet", params->shards,
                            p->description);
            return -1;
        }
        if (p->ops->become_shard(p, sh->doc_rows, &sh->counts[g], err))
            return -1;
    }
    if (sh->counts[0].on_device) {
        int devices[LDA_MAX_SHARDS];
        void *streams[LDA_MAX_SHARDS];
        for (uint32_t g = 0; g < sh->count; g++) {
            devices[g] = sh->counts[g].device;
            streams[g] = sh->counts[g].stream;
        }
        sh->sum = lda_allreduce_device_create(sh->count, devices, streams, err);
    } else {
        sh->sum = lda_allreduce_host_create(sh->count, err);
    }
    return sh->sum ? 0 : -1;
}

lda_backend *lda_sharded_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    lda_backend *b = lda_calloc(1, sizeof *b, "backend", err);
    sharded *sh = NULL;
    if (!b)
        return NULL;
    b->ops = &sharded_ops;
    b->layout = L;
    b->params = *params;
    if (!(sh = b->impl = lda_calloc(1, sizeof *sh, "backend", err)) || plan(L, params->shards, sh, err) ||
        !(sh->layouts = lda_calloc(sh->count, sizeof *sh->layouts, "shards", err)) ||
        !(sh->parts = lda_calloc(sh->count, sizeof *sh->parts, "shards", err)) ||
        !(sh->counts = lda_calloc(sh->count, sizeof *sh->counts, "shards", err)) ||
        !(sh->own = lda_calloc(sh->count, sizeof *sh->own, "shards", err)) ||
        !(sh->total = lda_calloc(sh->count, sizeof *sh->total, "shards", err))) {
        sharded_destroy(b);
        return NULL;
    }
    if (create_parts(b, params, err)) {
        sharded_destroy(b);
        return NULL;
    }
    const lda_backend *first = sh->parts[0];
    b->params.device = first->params.device;
    if (b->params.device != LDA_DEVICE_CUDA)
        b->zplan = first->zplan;
    int used = snprintf(b->description, sizeof b->description, "%u shards (", params->shards);
    for (uint32_t g = 0; g < sh->count && used > 0 && (size_t)used < sizeof b->description; g++)
        used += snprintf(b->description + used, sizeof b->description - (size_t)used, "%s%llu", g ? ", " : "",
                         (unsigned long long)sh->shards[g].tokens);
    if (used > 0 && (size_t)used < sizeof b->description)
        snprintf(b->description + used, sizeof b->description - (size_t)used, " tokens; counts summed by %s) of %.200s",
                 sh->sum->how, first->description);
    return b;
}
