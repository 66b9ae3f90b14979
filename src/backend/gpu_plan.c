/* gpu_plan.c — how many GPUs a run may use and needs: --gpus checked against the machine, and the
 * advice a "not enough GPU memory" message ends with (backend.h). */
#include <stdio.h>

#include "backend/backend.h"
#include "backend/device_bytes.h"
#include "backend/shards.h"
#include "backend/zplan.h"

int lda_backend_check_gpus(uint32_t gpus, lda_error *err)
{
    char why[256];
    const int here = lda_cuda_device_count(why, sizeof why);
    if (here <= 0) {
        lda_error_input(err, "--gpus %u: %s", gpus, why);
        return -1;
    }
    if ((uint32_t)here < gpus) {
        lda_error_input(err, "--gpus %u: this machine has %d CUDA device%s", gpus, here, here == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int lda_backend_check_device(lda_device device, lda_error *err)
{
    char why[256];
    if (device != LDA_DEVICE_CUDA || lda_cuda_device_count(why, sizeof why) > 0)
        return 0;
    lda_error_input(err, "--device cuda: %s", why);
    return -1;
}

/* The z plan a shard's bytes are sized by: its GPU's, or on the CPU the CPU's. */
static int sizing_plan(const lda_layout *L, const lda_params *p, lda_zplan *plan)
{
    lda_error ignored = {0};
    lda_gpu_limits limits;
    if (p->device != LDA_DEVICE_CUDA)
        return lda_zplan_cpu(p, 1, plan, &ignored);
    return lda_cuda_gpu_limits(p->cuda_device, &limits, &ignored) || lda_zplan_make(p, L, &limits, plan, &ignored);
}

uint64_t lda_shard_device_bytes(const lda_layout *L, const lda_params *p)
{
    lda_zplan plan;
    lda_device_bytes b;
    if (p->device == LDA_DEVICE_CUDA) /* the CUDA backend's own figure */
        return lda_cuda_state_bytes(L, p);
    if (sizing_plan(L, p, &plan))
        return UINT64_MAX;
    lda_device_bytes_plan(L, p, &plan, &b);
    return b.total;
}

uint64_t lda_shard_warp_bytes(const lda_layout *L, const lda_params *p, uint64_t *per_warp)
{
    lda_zplan plan;
    return sizing_plan(L, p, &plan) ? UINT64_MAX : lda_device_bytes_warps(L, p, &plan, per_warp);
}

void lda_gpu_memory_advice(const lda_layout *whole, const lda_params *p, uint64_t per_device, uint32_t from,
                           char *out, size_t size)
{
    const double GiB = 1073741824.0;
    lda_params split = *p;
    split.shards = 2; /* a shard's bytes: its own counts apart from the totals */
    split.over_ranks = split.shard_devices = 0;
    uint32_t needed = 0;
    uint64_t largest = 0;
    lda_error ignored = {0};
    int used;
    const lda_shard_memory m = {lda_shard_device_bytes, lda_shard_warp_bytes, &split, per_device};
    const uint64_t split_most = lda_gpu_max_tokens(&split);
    if (whole->num_tokens > split_most) /* no number of GPUs takes it (a shard's tokens would fit) */
        used = snprintf(out, size, "; on several GPUs a run takes at most %llu tokens", (unsigned long long)split_most);
    else if (lda_shards_needed(whole, from < 2 ? 2 : from, &m, &needed, &largest, &ignored))
        used = snprintf(out, size, "%s", "");
    else if (needed)
        used = snprintf(out, size, "; split over %u GPUs like this one it would need at most %.2f GiB each (--gpus %u, "
                        "or mpirun -np %u)", needed, largest / GiB, needed, needed);
    else
        used = snprintf(out, size, "; not even %u GPUs like this one would hold it", LDA_MAX_SHARDS);
    /* the dense D x K arrays: θ unless θ is collapsed, n[m,k] unless the sparse draw keeps it as lists */
    const int theta = !p->theta_collapsed, counts = p->sampler != LDA_SAMPLER_SPARSE;
    const uint64_t dense = (uint64_t)whole->num_slots * p->num_topics * (theta + counts) * sizeof(uint32_t);
    const uint64_t all = lda_cuda_state_bytes(whole, p);
    if (used >= 0 && (size_t)used < size && all != UINT64_MAX && dense && 2 * dense > all)
        snprintf(out + used, size - (size_t)used, "; most of it is the dense D x K array%s %s (%.2f GiB for %zu "
                 "documents at K=%u)", theta && counts ? "s" : "", theta && counts ? "theta and n[m,k]" : theta ? "theta" : "n[m,k]",
                 dense / GiB, whole->num_docs, p->num_topics);
}
