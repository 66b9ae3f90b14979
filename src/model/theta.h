/* theta.h — a model's document–topic proportions θ in the form it keeps (doc_topics.h):
 * built row by row without a dense D × K array unless the form is dense, written and read
 * back (checked: hostile until checked), and read row by row by its consumers.
 *
 * What a consumer gets from a lossy form (top:N, sparse:EPS) is the entries kept, the others
 * reading as 0: exact for whatever only needs those (the documents most about a topic among
 * entries ≥ EPS, a document's M ≤ N largest topics), an approximation otherwise, which each
 * consumer either says or refuses (lda_theta_refuse's line names the way to get every entry:
 * θ is rebuilt exactly from z, so `ldagpu train --resume MODEL -n 0 --doc-topics dense`
 * rewrites it). */
#ifndef LDA_THETA_H
#define LDA_THETA_H

#include <stdint.h>

#include "core/error.h"
#include "model/doc_topics.h"
#include "util/threadpool.h"

typedef struct {
    lda_doc_topics form;  /* resolved: dense, top:N (N ≤ K), sparse:EPS or none */
    uint64_t num_docs;
    uint32_t num_topics;
    float *dense;         /* dense: D × K */
    uint32_t *topics;     /* top: D × N, largest first; sparse: the kept entries' topics, ascending in a row */
    float *weights;       /* the same shape as topics */
    uint64_t *indptr;     /* sparse: D + 1, row d is entries indptr[d] .. indptr[d+1] */
} lda_theta;

/* A row's stored entries: topics NULL means every topic in order (dense). */
typedef struct {
    uint32_t count;
    const uint32_t *topics;
    const float *weights;
} lda_theta_row;

lda_theta_row lda_theta_get_row(const lda_theta *t, uint64_t d);
/* Whether every entry is kept: dense, or top:N with N = K. */
int lda_theta_complete(const lda_theta *t);
/* Row d with the entries left out as 0: K floats into out. */
void lda_theta_row_dense(const lda_theta *t, uint64_t d, float *out);

/* A source of θ rows: calls fn once for every document d < D, in any order, with its K
 * proportions, and stops at fn's first failure. */
typedef int (*lda_theta_row_fn)(void *fn_ctx, uint64_t d, const float *row, lda_error *err);
typedef int (*lda_theta_source)(void *src_ctx, lda_theta_row_fn fn, void *fn_ctx, lda_error *err);

/* Builds θ of D documents and K topics in the resolved form `form` from a source. */
int lda_theta_build(lda_theta *t, const lda_doc_topics *form, uint64_t D, uint32_t K, lda_theta_source src,
                    void *src_ctx, lda_error *err);

/* θ built from blocks of rows, each block's kept entries selected over a pool's threads. Every
 * row has its own place from the start (top:N and sparse:EPS keep lda_doc_topics_row_bound
 * entries a row while building, the memory the run's plan counts; sparse rows are packed
 * together at the end), so the bytes do not depend on the threads or on the order of the rows. */
typedef struct lda_theta_spill lda_theta_spill;
typedef struct {
    lda_theta *t;
    uint32_t stride;        /* entries a row's place holds while building */
    uint64_t rows;          /* rows given so far */
    lda_theta_spill *spill; /* sparse rows with more entries than their place (rows that sum above 1) */
    size_t num_spilled, spill_cap;
} lda_theta_builder;

/* A document number in a block that stands for no row (a padding slot, a cut document's other piece). */
#define LDA_THETA_NO_ROW UINT64_MAX

int lda_theta_build_begin(lda_theta_builder *bld, lda_theta *t, const lda_doc_topics *form, uint64_t D,
                          uint32_t K, lda_error *err);
/* Keeps `count` rows: row i is docs[i]'s K proportions at rows + i * row_step (row_step 0: the
 * same row for every document), skipped where docs[i] is LDA_THETA_NO_ROW. pool may be NULL
 * (this thread alone). */
int lda_theta_build_rows(lda_theta_builder *bld, lda_pool *pool, const uint64_t *docs, const float *rows,
                         size_t row_step, size_t count, lda_error *err);
/* Checks that D rows were given and finishes t; on failure t is freed. */
int lda_theta_build_end(lda_theta_builder *bld, lda_error *err);
/* Frees what a build that stops before its end holds, t included. */
void lda_theta_build_abort(lda_theta_builder *bld);

/* Writes t's files into dir (atomically, each .npy: matrix_file.h). */
int lda_theta_write(const lda_theta *t, const char *dir, lda_error *err);
/* Removes from dir the θ files of every form but `keep` (a model rewritten in another form). */
int lda_theta_remove_other_forms(lda_doc_topics_form keep, const char *dir, lda_error *err);
/* Reads the files of the resolved form `form` of D × K from dir, checking their sizes, that
 * every topic is below K, that a sparse θ's rows are well formed, and their values
 * (lda_model_check_theta, model_check.h). */
int lda_theta_read(lda_theta *t, const char *dir, const lda_doc_topics *form, uint64_t D, uint32_t K,
                   lda_error *err);
void lda_theta_free(lda_theta *t);

/* The n largest of `count` entries (topics NULL: topic i is entry i), largest first, ties by
 * the smaller topic id: the one order of top:N and of every "largest first" output. Writes
 * min(n, count) entries and returns that number. */
uint32_t lda_top_entries(const uint32_t *topics, const float *weights, uint32_t count, uint32_t n,
                         uint32_t *out_topics, float *out_weights);

/* Fills err with the one line of a consumer that needs more of θ than the model at dir keeps:
 * "DIR keeps θ as FORM (...); NEED: rewrite it with 'ldagpu train --resume DIR -n 0
 * --doc-topics SUGGEST'" (status 2). */
void lda_theta_refuse(const lda_theta *t, const char *dir, const char *need, const char *suggest, lda_error *err);

#endif
