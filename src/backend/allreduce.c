/* allreduce.c — the host all-reduce; see allreduce.h (the device one is cuda/allreduce_cuda.cu). */
#include "backend/allreduce.h"

#include <stdlib.h>
#include <string.h>

#include "util/ranks.h"

/* Element by element: every rank's value read before any is written, so in place is fine. Then,
 * across processes (mpirun), the processes' sums summed by MPI into rank 0's array, and copied
 * to the others. */
static int host_sum_u32(lda_allreduce *ar, uint32_t *const *send, uint32_t *const *recv, size_t count,
                        lda_error *err)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t total = 0;
        for (uint32_t g = 0; g < ar->ranks; g++)
            total += send[g][i];
        recv[0][i] = total;
    }
    if (ar->across_processes && lda_ranks_sum_u32(recv[0], count, err))
        return -1;
    for (uint32_t g = 1; g < ar->ranks; g++)
        memcpy(recv[g], recv[0], count * sizeof **recv);
    return 0;
}

static void host_destroy(lda_allreduce *ar)
{
    free(ar);
}

lda_allreduce *lda_allreduce_host_create(uint32_t ranks, int across_processes, lda_error *err)
{
    if (ranks == 0) {
        lda_error_fail(err, "internal error: an all-reduce of no ranks");
        return NULL;
    }
    lda_allreduce *ar = lda_calloc(1, sizeof *ar, "all-reduce", err);
    if (!ar)
        return NULL;
    ar->ranks = ranks;
    ar->across_processes = across_processes;
    ar->how = across_processes ? "MPI" : "host sums";
    ar->sum_u32 = host_sum_u32;
    ar->destroy = host_destroy;
    return ar;
}

void lda_allreduce_destroy(lda_allreduce *ar)
{
    if (ar)
        ar->destroy(ar);
}
