/* ranks.c — see ranks.h. */
#include "util/ranks.h"

#include <stdlib.h>
#include <string.h>

#ifdef LDA_HAVE_MPI
#include <mpi.h>
#endif

/* The launchers' variables for the number of processes: Open MPI's, then the PMI ones (MPICH,
 * Slurm, MVAPICH). */
static long launched_size(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return 1;
}

int lda_ranks_launched(void)
{
    return launched_size() > 1;
}

#ifdef LDA_HAVE_MPI

static int started, world_rank, world_size = 1, node_rank;

/* MPI counts in int: larger transfers go in pieces of this many bytes (or elements). */
#define PIECE ((size_t)1 << 30)

static int mpi_fail(int rc, const char *what, lda_error *err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    lda_error_fail(err, "MPI error in %s (rank %d of %d): %.*s", what, world_rank, world_size, len, text);
    return -1;
}

#define MPI_TRY(call, what)                                                                               \
    do {                                                                                                  \
        int rc_ = (call);                                                                                 \
        if (rc_ != MPI_SUCCESS)                                                                           \
            return mpi_fail(rc_, what, err);                                                              \
    } while (0)

int lda_ranks_start(int *argc, char ***argv, lda_error *err)
{
    if (!lda_ranks_launched() || started)
        return 0;
    MPI_TRY(MPI_Init(argc, argv), "MPI_Init");
    started = 1;
    /* errors come back as codes, reported by the caller in one line */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &world_size), "MPI_Comm_size");
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
    MPI_TRY(MPI_Comm_rank(node, &node_rank), "MPI_Comm_rank");
    MPI_Comm_free(&node);
    return 0;
}

void lda_ranks_stop(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
}

void lda_ranks_abort(int status)
{
    if (started && world_size > 1)
        MPI_Abort(MPI_COMM_WORLD, status);
}

int lda_ranks_rank(void)
{
    return world_rank;
}

int lda_ranks_size(void)
{
    return world_size;
}

int lda_ranks_local_rank(void)
{
    return node_rank;
}

int lda_ranks_bcast(void *data, size_t bytes, lda_error *err)
{
    for (size_t at = 0; world_size > 1 && at < bytes; at += PIECE) {
        const size_t n = bytes - at < PIECE ? bytes - at : PIECE;
        MPI_TRY(MPI_Bcast((char *)data + at, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
    return 0;
}

int lda_ranks_send(int to, const void *data, size_t bytes, lda_error *err)
{
    for (size_t at = 0; at < bytes; at += PIECE) {
        const size_t n = bytes - at < PIECE ? bytes - at : PIECE;
        MPI_TRY(MPI_Send((const char *)data + at, (int)n, MPI_BYTE, to, 0, MPI_COMM_WORLD), "MPI_Send");
    }
    return 0;
}

int lda_ranks_recv(int from, void *data, size_t bytes, lda_error *err)
{
    for (size_t at = 0; at < bytes; at += PIECE) {
        const size_t n = bytes - at < PIECE ? bytes - at : PIECE;
        MPI_TRY(MPI_Recv((char *)data + at, (int)n, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv");
    }
    return 0;
}

int lda_ranks_sum_u32(uint32_t *data, size_t count, lda_error *err)
{
    for (size_t at = 0; world_size > 1 && at < count; at += PIECE) {
        const size_t n = count - at < PIECE ? count - at : PIECE;
        MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, data + at, (int)n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD),
                "MPI_Allreduce");
    }
    return 0;
}

int lda_ranks_sum_f64_to_root(double *data, size_t count, lda_error *err)
{
    for (size_t at = 0; world_size > 1 && at < count; at += PIECE) {
        const size_t n = count - at < PIECE ? count - at : PIECE;
        MPI_TRY(MPI_Reduce(world_rank == 0 ? MPI_IN_PLACE : data + at, data + at, (int)n, MPI_DOUBLE, MPI_SUM, 0,
                           MPI_COMM_WORLD),
                "MPI_Reduce");
    }
    return 0;
}

int lda_ranks_gather_u64(uint64_t value, uint64_t *out, lda_error *err)
{
    if (world_size == 1) {
        out[0] = value;
        return 0;
    }
    MPI_TRY(MPI_Allgather(&value, 1, MPI_UINT64_T, out, 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather");
    return 0;
}

#else /* without MPI: one process */

int lda_ranks_start(int *argc, char ***argv, lda_error *err)
{
    (void)argc;
    (void)argv;
    if (lda_ranks_launched()) {
        lda_error_input(err, "started by mpirun as one of %ld processes, but this ldagpu was built without MPI "
                        "(rebuild with mpicc on the PATH)", launched_size());
        return -1;
    }
    return 0;
}

void lda_ranks_stop(void) {}
void lda_ranks_abort(int status)
{
    (void)status;
}
int lda_ranks_rank(void)
{
    return 0;
}
int lda_ranks_size(void)
{
    return 1;
}
int lda_ranks_local_rank(void)
{
    return 0;
}
int lda_ranks_bcast(void *data, size_t bytes, lda_error *err)
{
    (void)data;
    (void)bytes;
    (void)err;
    return 0;
}

static int alone(lda_error *err)
{
    lda_error_fail(err, "internal error: a message between ranks in a run of one process");
    return -1;
}

int lda_ranks_send(int to, const void *data, size_t bytes, lda_error *err)
{
    (void)to;
    (void)data;
    (void)bytes;
    return alone(err);
}
int lda_ranks_recv(int from, void *data, size_t bytes, lda_error *err)
{
    (void)from;
    (void)data;
    (void)bytes;
    return alone(err);
}
int lda_ranks_sum_u32(uint32_t *data, size_t count, lda_error *err)
{
    (void)data;
    (void)count;
    (void)err;
    return 0;
}
int lda_ranks_sum_f64_to_root(double *data, size_t count, lda_error *err)
{
    (void)data;
    (void)count;
    (void)err;
    return 0;
}
int lda_ranks_gather_u64(uint64_t value, uint64_t *out, lda_error *err)
{
    (void)err;
    out[0] = value;
    return 0;
}

#endif
