/* sharded_internal.h — what the sharded backend's two files share: backend_sharded.c (its
 * operations, and under mpirun the steps the other ranks follow) and backend_sharded_create.c
 * (the shards planned and their backends made). */
#ifndef LDA_SHARDED_INTERNAL_H
#define LDA_SHARDED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "backend/allreduce.h"
#include "backend/backend.h"
#include "backend/shards.h"

typedef struct {
    uint32_t count;        /* shards with warps */
    uint32_t lo, hi;       /* the shards this process drives: all, or (over ranks) its rank's */
    int over_ranks;        /* shard g is MPI rank g's (params.over_ranks) */
    lda_shard *shards;     /* count: their warps */
    lda_shard_choice choice; /* how they were split (shards.h) */
    uint64_t per_device;   /* the memory a device had for its shard, where the split weighed it */
    lda_layout **layouts;  /* count: this process's shards' layouts (others NULL) */
    lda_backend **parts;   /* count: this process's shards' backends (others NULL) */
    lda_shard_counts *counts;
    uint32_t **own, **total; /* the all-reduce's arrays (this process's shards), per call */
    lda_allreduce *sum;
    size_t doc_rows;       /* cut documents with pieces in several shards */
    uint64_t *word_tokens; /* each word's tokens in the whole layout (layout.h, corpus_word_tokens) */
    lda_count_hist *hists; /* count, once the priors are first learned */
} sharded;

extern const lda_backend_ops lda_sharded_ops;
void lda_sharded_destroy(lda_backend *b);

#endif
