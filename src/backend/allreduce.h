/* allreduce.h — the sum of one array over the shards of a run (backend_sharded.c): how the
 * word-topic counts of every device become the totals every device samples with.
 *
 * The counts are integers, so the sum is exact in any order, and every rank receives the same
 * totals. Implementations:
 *  - host: the ranks' arrays are host memory; summed element by element, rank 0 first. CPU
 *    shards use it, and GPU shards can, through host copies of their counts.
 *  - NCCL (ncclAllReduce, ncclUint32, ncclSum, in one group over the ranks' devices): the
 *    arrays are device memory. Not written yet: it is to be compiled only where nccl.h is
 *    found (a Makefile test defining LDA_HAVE_NCCL), which this machine lacks; until then
 *    lda_allreduce_nccl_create refuses, saying why. */
#ifndef LDA_ALLREDUCE_H
#define LDA_ALLREDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lda_allreduce lda_allreduce;
struct lda_allreduce {
    uint32_t ranks;
    /* recv[g][i] = Σ over ranks h of send[h][i], for every rank g and i < count; recv[g] may be
     * send[g] (in place). */
    int (*sum_u32)(lda_allreduce *ar, uint32_t *const *send, uint32_t *const *recv, size_t count, lda_error *err);
    void (*destroy)(lda_allreduce *ar);
    void *impl;
};

lda_allreduce *lda_allreduce_host_create(uint32_t ranks, lda_error *err);
/* Rank g on CUDA device devices[g]. */
lda_allreduce *lda_allreduce_nccl_create(uint32_t ranks, const int *devices, lda_error *err);
void lda_allreduce_destroy(lda_allreduce *ar);

#ifdef __cplusplus
}
#endif

#endif
