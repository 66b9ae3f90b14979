/* backend_sharded_create.c — the sharded backend made (backend_sharded.c has its operations):
 * the layout's warps split into shards, each shard's layout and backend on its device (one
 * GPU each with --gpus; the process's own under mpirun), checked against the GPUs' memory first,
 * and the all-reduce that sums their counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/sampler_sparse.h"
#include "backend/sharded_internal.h"
#include "util/ranks.h"

/* Room a device keeps beside its shard's state (the CUDA backend's own check keeps the same). */
static const uint64_t device_slack = 64u << 20;

/* What the split weighs (shards.h): where each shard has a GPU of its own (--gpus, mpirun), the
 * CUDA backend's sizing against the least free memory among them; with the test switch
 * (params.shards_by_memory, rank 0's) the sizing of its device against none, so that memory binds.
 * Else nothing (*weighed 0): shards of one device, or the CPU's, by tokens. Every process of an MPI
 * run takes the same figures, so all of them make the same split. */
static int shard_memory(const lda_params *one, uint32_t asked, lda_shard_memory *m, int *weighed, lda_error *err)
{
    int forced = one->shards_by_memory;
    if (one->over_ranks && lda_ranks_bcast(&forced, sizeof forced, err))
        return -1;
    *m = (lda_shard_memory){lda_shard_device_bytes, lda_shard_warp_bytes, one, 0};
    *weighed = forced || (one->device == LDA_DEVICE_CUDA && (one->shard_devices || one->over_ranks));
    if (!*weighed || forced)
        return 0;
    uint64_t least = UINT64_MAX, free_bytes = 0;
    if (one->over_ranks) {
        uint64_t *each = lda_malloc_array(asked, sizeof *each, "shards", err);
        if (!each || lda_cuda_free_bytes(one->cuda_device, &free_bytes, err) ||
            lda_ranks_gather_u64(free_bytes, each, err)) {
            free(each);
            return -1;
        }
        for (uint32_t r = 0; r < asked; r++)
            least = each[r] < least ? each[r] : least;
        free(each);
    } else {
        for (uint32_t g = 0; g < asked; g++) {
            if (lda_cuda_free_bytes((int)g, &free_bytes, err))
                return -1;
            least = free_bytes < least ? free_bytes : least;
        }
    }
    m->per_device = least > device_slack ? least - device_slack : 0;
    return 0;
}

/* The shards with warps (at least one: the whole, empty layout when none has any), split as
 * lda_shard_choose decides. */
static int plan(const lda_layout *L, uint32_t asked, const lda_params *one, sharded *sh, lda_error *err)
{
    lda_shard_memory m;
    int weighed = 0;
    lda_shard *all = lda_malloc_array(asked, sizeof *all, "shards", err);
    if (!all || shard_memory(one, asked, &m, &weighed, err) ||
        lda_shard_choose(L, asked, weighed ? &m : NULL, all, &sh->choice, err)) {
        free(all);
        return -1;
    }
    sh->per_device = weighed ? m.per_device : 0;
    for (uint32_t g = 0; g < asked; g++)
        if (all[g].end_warp > all[g].first_warp || (sh->count == 0 && g + 1 == asked))
            all[sh->count++] = all[g];
    sh->shards = all;
    if (sh->over_ranks && sh->count != asked) {
        lda_error_input(err, "%u MPI processes for a corpus of %zu groups of 32 documents: at most one process a "
                        "group", asked, L->num_warps);
        return -1;
    }
    return 0;
}

const char *lda_backend_describe_shards(const lda_backend *b, char *buf, size_t size)
{
    if (b->ops != &lda_sharded_ops)
        return NULL;
    const sharded *sh = b->impl;
    lda_shard_describe(sh->shards, sh->count, &sh->choice, sh->per_device, buf, size);
    return buf;
}

/* The shards' layouts (this process's kept), their shared documents numbered 0 .. doc_rows - 1
 * (in the whole layout's order of cut documents), every shard using the same numbers. */
static int shard_layouts(lda_backend *b, lda_error *err)
{
    sharded *sh = b->impl;
    const lda_layout *L = b->layout;
    uint32_t *row = lda_malloc_array(L->num_cut_docs + 1, sizeof *row, "shards", err);
    if (!row || !(sh->word_tokens = lda_malloc_array((size_t)L->vocab_size + 1, sizeof *sh->word_tokens, "shards", err))) {
        free(row);
        return -1;
    }
    lda_sparse_word_tokens(L, sh->word_tokens);
    for (size_t c = 0; c < L->num_cut_docs; c++)
        row[c] = LDA_NO_DOC;
    for (uint32_t g = 0; g < sh->count; g++) {
        const lda_shard *s = &sh->shards[g];
        if (!(sh->layouts[g] = lda_layout_warps(L, s->first_warp, s->end_warp, err))) {
            free(row);
            return -1;
        }
        sh->layouts[g]->corpus_word_tokens = sh->word_tokens;
        for (size_t j = 0; j < sh->layouts[g]->num_shared_docs; j++)
            row[sh->layouts[g]->shared_row[j]] = 0;
    }
    sh->doc_rows = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        if (row[c] != LDA_NO_DOC)
            row[c] = (uint32_t)sh->doc_rows++;
    for (uint32_t g = 0; g < sh->count; g++) {
        for (size_t j = 0; j < sh->layouts[g]->num_shared_docs; j++)
            sh->layouts[g]->shared_row[j] = row[sh->layouts[g]->shared_row[j]];
        if (g < sh->lo || g >= sh->hi) { /* another process's */
            lda_layout_free(sh->layouts[g]);
            sh->layouts[g] = NULL;
        }
    }
    free(row);
    return 0;
}

/* The shards' device: --device auto resolved once, for all of them; with --gpus, one GPU each;
 * over ranks, the GPU of the process's place on its machine. */
static int shard_device(lda_params *one, uint32_t shards, lda_error *err)
{
    char why[256];
    const int gpus = lda_cuda_device_count(why, sizeof why);
    if (one->device == LDA_DEVICE_AUTO)
        one->device = gpus > 0 ? LDA_DEVICE_CUDA : LDA_DEVICE_CPU;
    if (one->over_ranks && one->device == LDA_DEVICE_CUDA)
        one->cuda_device = gpus > 0 ? lda_ranks_local_rank() % gpus : 0;
    return one->shard_devices ? lda_backend_check_gpus(shards, err) : 0;
}

/* The z kernel of the whole layout, for every shard: the automatic choice between kernels weighs
 * the layout's fill of the GPU (zplan.c), and the sparse draw's compilation the share of its long
 * lists; a shard's layout, a part of it, could tip either the other way (the shards hold the
 * layout's warps longest first), and the kernels agree in distribution but not bit for bit.
 * Measured: 10^8 tokens at K = 1024 on two H200s, collapsed sparse, each shard choosing for
 * itself gave another model than one GPU's. */
static int whole_layout_plan(const lda_layout *L, lda_params *one, lda_zplan *plan, lda_error *err)
{
    if (one->device != LDA_DEVICE_CUDA)
        return 0;
    lda_gpu_limits gpu;
    if (lda_cuda_gpu_limits(one->shard_devices ? 0 : one->cuda_device, &gpu, err) ||
        lda_zplan_make(one, L, &gpu, plan, err))
        return -1;
    if (plan->kernel == LDA_ZKERNEL_SPARSE && one->sparse_long_lists < 0)
        one->sparse_long_lists = lda_zplan_long_lists(L, one->num_topics);
    if (one->split == LDA_SPLIT_AUTO && plan->kernel == LDA_ZKERNEL_STAGED)
        one->split = LDA_SPLIT_STAGED;
    else if (one->split == LDA_SPLIT_AUTO && plan->kernel == LDA_ZKERNEL_SPLIT)
        one->split = plan->warps_per_group;
    return 0;
}

/* Each GPU of its own holds its shard (a shard of the test switch's, on one GPU, is checked as it
 * is made): else one line, with how many GPUs would hold the run. */
static int shards_fit(lda_backend *b, const lda_params *one, lda_error *err)
{
    sharded *sh = b->impl;
    if (one->device != LDA_DEVICE_CUDA || !(one->shard_devices || one->over_ranks))
        return 0;
    for (uint32_t g = sh->lo; g < sh->hi; g++) {
        lda_params at = *one;
        if (at.shard_devices)
            at.cuda_device = (int)g;
        uint64_t free_bytes = 0;
        const uint64_t need = lda_cuda_state_bytes(sh->layouts[g], &at), slack = device_slack;
        if (lda_cuda_free_bytes(at.cuda_device, &free_bytes, err))
            return -1;
        if (need != UINT64_MAX && need + slack > free_bytes) {
            char advice[512];
            lda_gpu_memory_advice(b->layout, &at, free_bytes > slack ? free_bytes - slack : 0, sh->count + 1, advice,
                                  sizeof advice);
            lda_error_fail(err, "not enough GPU memory for %u shards: shard %u (%llu tokens) needs %.2f GiB on GPU %d, "
                           "%.2f GiB are free%s", sh->count, g, (unsigned long long)sh->shards[g].tokens,
                           need / 1073741824.0, at.cuda_device, free_bytes / 1073741824.0, advice);
            return -1;
        }
    }
    return 0;
}

/* The shards' layouts and backends, with `one` the params of every shard (shard_device and
 * whole_layout_plan made). */
static int create_parts(lda_backend *b, const lda_params *params, lda_params one, lda_error *err)
{
    sharded *sh = b->impl;
    if (shard_layouts(b, err) || shards_fit(b, &one, err))
        return -1;
    for (uint32_t g = sh->lo; g < sh->hi; g++) {
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
    const uint32_t local = sh->hi - sh->lo;
    if (sh->counts[sh->lo].on_device) {
        int devices[LDA_MAX_SHARDS];
        void *streams[LDA_MAX_SHARDS];
        for (uint32_t n = 0; n < local; n++) {
            devices[n] = sh->counts[sh->lo + n].device;
            streams[n] = sh->counts[sh->lo + n].stream;
        }
        sh->sum = lda_allreduce_device_create(local, devices, streams, sh->over_ranks, err);
    } else {
        sh->sum = lda_allreduce_host_create(local, sh->over_ranks, err);
    }
    return sh->sum ? 0 : -1;
}

lda_backend *lda_sharded_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    lda_backend *b = lda_calloc(1, sizeof *b, "backend", err);
    sharded *sh = NULL;
    if (!b)
        return NULL;
    b->ops = &lda_sharded_ops;
    b->layout = L;
    b->params = *params;
    if (!(sh = b->impl = lda_calloc(1, sizeof *sh, "backend", err))) {
        lda_sharded_destroy(b);
        return NULL;
    }
    sh->over_ranks = params->over_ranks;
    if (sh->over_ranks && (uint32_t)lda_ranks_size() != params->shards) {
        lda_error_fail(err, "internal error: %u shards over %d MPI ranks", params->shards, lda_ranks_size());
        lda_sharded_destroy(b);
        return NULL;
    }
    lda_params one = *params; /* shards > 1 stays: the CUDA backend plans a shard's memory */
    if (shard_device(&one, params->shards, err) || whole_layout_plan(L, &one, &b->zplan, err) ||
        plan(L, params->shards, &one, sh, err) ||
        !(sh->layouts = lda_calloc(sh->count, sizeof *sh->layouts, "shards", err)) ||
        !(sh->parts = lda_calloc(sh->count, sizeof *sh->parts, "shards", err)) ||
        !(sh->counts = lda_calloc(sh->count, sizeof *sh->counts, "shards", err)) ||
        !(sh->own = lda_calloc(sh->count, sizeof *sh->own, "shards", err)) ||
        !(sh->total = lda_calloc(sh->count, sizeof *sh->total, "shards", err))) {
        lda_sharded_destroy(b);
        return NULL;
    }
    sh->lo = sh->over_ranks ? (uint32_t)lda_ranks_rank() : 0;
    sh->hi = sh->over_ranks ? sh->lo + 1 : sh->count;
    b->following = sh->over_ranks && sh->lo != 0;
    if (create_parts(b, params, one, err)) {
        lda_sharded_destroy(b);
        return NULL;
    }
    const lda_backend *first = sh->parts[sh->lo];
    b->params.device = first->params.device;
    if (b->params.device != LDA_DEVICE_CUDA)
        b->zplan = first->zplan;
    int used = snprintf(b->description, sizeof b->description, "%u %s (", params->shards,
                        sh->over_ranks ? "MPI processes" : "shards");
    for (uint32_t g = 0; g < sh->count && used > 0 && (size_t)used < sizeof b->description; g++)
        used += snprintf(b->description + used, sizeof b->description - (size_t)used, "%s%llu", g ? ", " : "",
                         (unsigned long long)sh->shards[g].tokens);
    if (used > 0 && (size_t)used < sizeof b->description)
        snprintf(b->description + used, sizeof b->description - (size_t)used, " tokens; counts summed by %s) of %.200s",
                 sh->sum->how, first->description);
    return b;
}
