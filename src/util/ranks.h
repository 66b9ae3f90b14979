/* ranks.h — the processes of one run started by mpirun (one process a GPU, on one machine or
 * several): who this process is, and the few collective operations the sharded backend needs
 * (backend_sharded.c). MPI is the transport; nothing here is home-made.
 *
 * A process is in an MPI run only when mpirun started it (the launcher's environment says so,
 * lda_ranks_launched) and this ldagpu was built with MPI (the Makefile defines LDA_HAVE_MPI where
 * mpicc is found). Otherwise, and before lda_ranks_start, there is one rank, 0 of 1, and every
 * operation below is what one process would do alone (a broadcast leaves the data as it is).
 *
 * Every operation is collective over all ranks, in the same order on every rank; byte counts
 * may exceed INT_MAX (sent in pieces). On failure they return -1 with err. */
#ifndef LDA_RANKS_H
#define LDA_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether mpirun (or another MPI launcher) started this process as one of several. */
int lda_ranks_launched(void);
/* MPI started, for a launched process (a no-op otherwise, and in a build without MPI, which
 * then refuses a launch of several with err). */
int lda_ranks_start(int *argc, char ***argv, lda_error *err);
/* MPI ended (at exit; after a failure on one rank the others are aborted: lda_ranks_abort). */
void lda_ranks_stop(void);
void lda_ranks_abort(int status);

int lda_ranks_rank(void);
int lda_ranks_size(void);
/* This rank's place among the ranks of its machine (its GPU: the local rank modulo the GPUs). */
int lda_ranks_local_rank(void);

/* From rank 0 to every rank. */
int lda_ranks_bcast(void *data, size_t bytes, lda_error *err);
/* Point to point (rank 0 collecting the shards' arrays; rank 0 handing z out). */
int lda_ranks_send(int to, const void *data, size_t bytes, lda_error *err);
int lda_ranks_recv(int from, void *data, size_t bytes, lda_error *err);
/* In place, on every rank: the element-wise sum over the ranks (integers modulo 2^32). */
int lda_ranks_sum_u32(uint32_t *data, size_t count, lda_error *err);
/* On rank 0: the element-wise sum over the ranks (others' arrays left as they were). Exact
 * where every element is non-zero on at most one rank: the ranks' terms of their own warps. */
int lda_ranks_sum_f64_to_root(double *data, size_t count, lda_error *err);
/* out[r] = value of rank r, on every rank (size entries). */
int lda_ranks_gather_u64(uint64_t value, uint64_t *out, lda_error *err);

#ifdef __cplusplus
}
#endif

#endif
