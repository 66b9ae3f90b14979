/* allreduce.h — the sum of one array over the shards of a run (backend_sharded.c): how the
 * word-topic counts of every device become the totals every device samples with.
 *
 * The counts are integers, so the sum is exact in any order, and every rank receives the same
 * totals. Implementations:
 *  - host: the ranks' arrays are host memory; summed element by element, rank 0 first. CPU
 *    shards use it.
 * Across the processes of an MPI run (util/ranks.h; one rank a process) the sum takes in every
 * process's ranks: by MPI_Allreduce for host arrays; for device arrays by NCCL, bootstrapped
 * through MPI (ncclCommInitRank, its id broadcast from rank 0), where every process has a
 * device of its own, or else (processes sharing a GPU, which NCCL refuses) through host copies
 * and MPI_Allreduce.
 *  - device (cuda/allreduce_cuda.cu): the arrays are device memory, each rank's on its CUDA
 *    device, its work queued on its stream. Through NCCL (one communicator a device;
 *    ncclAllReduce of ncclUint32 with ncclSum, the ranks in one group, each on its own stream,
 *    so the host never waits) where the build has NCCL (the Makefile defines LDA_HAVE_NCCL where
 *    nccl.h is found) and the devices are distinct. Otherwise (no NCCL; or shards sharing a device,
 *    as the test switch LDAGPU_SHARDS makes them, which NCCL refuses): gathered onto rank 0's
 *    device, summed there, and copied back, with peer copies (staged through the host by the
 *    driver where the devices cannot reach each other). */
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
    uint32_t ranks;           /* this process's */
    int across_processes;     /* each process's ranks summed over every process of an MPI run too */
    const char *how; /* "host sums", "NCCL", "peer copies": said with the run's description */
    /* recv[g][i] = Σ over ranks h of send[h][i], for every rank g and i < count; recv[g] may be
     * send[g] (in place). */
    int (*sum_u32)(lda_allreduce *ar, uint32_t *const *send, uint32_t *const *recv, size_t count, lda_error *err);
    void (*destroy)(lda_allreduce *ar);
    void *impl;
};

lda_allreduce *lda_allreduce_host_create(uint32_t ranks, int across_processes, lda_error *err);
/* Rank g on CUDA device devices[g], streams[g] its cudaStream_t. Refuses in a build without CUDA. */
lda_allreduce *lda_allreduce_device_create(uint32_t ranks, const int *devices, void *const *streams,
                                           int across_processes, lda_error *err);
void lda_allreduce_destroy(lda_allreduce *ar);

#ifdef __cplusplus
}
#endif

#endif
