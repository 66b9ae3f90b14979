/* gpu_plan.c — how many GPUs a run may use and needs: --gpus checked against the machine, and the
 * advice a "not enough GPU memory" message ends with (backend.h). */
#include <stdio.h>

#include "backend/backend.h"
#include "backend/shards.h"

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
    if (lda_shards_needed(whole, &split, from < 2 ? 2 : from, per_device, lda_cuda_state_bytes, &needed, &largest,
                          &ignored))
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
