/* theta.c — θ in the form a model keeps; see theta.h. */
#include "model/theta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/matrix_file.h"
#include "model/model_check.h"
#include "util/atomic_file.h"

void lda_theta_free(lda_theta *t)
{
    free(t->dense);
    free(t->topics);
    free(t->weights);
    free(t->indptr);
    memset(t, 0, sizeof *t);
}

lda_theta_row lda_theta_get_row(const lda_theta *t, uint64_t d)
{
    const uint32_t K = t->num_topics;
    switch (t->form.form) {
    case LDA_DOC_TOPICS_DENSE:
        return (lda_theta_row){K, NULL, t->dense + d * K};
    case LDA_DOC_TOPICS_TOP:
        return (lda_theta_row){t->form.top, t->topics + d * t->form.top, t->weights + d * t->form.top};
    case LDA_DOC_TOPICS_SPARSE:
        return (lda_theta_row){(uint32_t)(t->indptr[d + 1] - t->indptr[d]), t->topics + t->indptr[d],
                               t->weights + t->indptr[d]};
    default:
        return (lda_theta_row){0, NULL, NULL};
    }
}

int lda_theta_complete(const lda_theta *t)
{
    return t->form.form == LDA_DOC_TOPICS_DENSE || (t->form.form == LDA_DOC_TOPICS_TOP && t->form.top == t->num_topics);
}

void lda_theta_row_dense(const lda_theta *t, uint64_t d, float *out)
{
    const lda_theta_row row = lda_theta_get_row(t, d);
    if (!row.topics && row.count) { /* dense */
        memcpy(out, row.weights, (size_t)row.count * sizeof *out);
        return;
    }
    memset(out, 0, (size_t)t->num_topics * sizeof *out);
    for (uint32_t i = 0; i < row.count; i++)
        out[row.topics[i]] = row.weights[i];
}

/* ---- the largest entries ---- */

/* Entry (wa, ka) comes before (wb, kb): a larger weight, or the same and a smaller topic. */
static int before(float wa, uint32_t ka, float wb, uint32_t kb)
{
    return wa > wb || (wa == wb && ka < kb);
}

static void swap_entries(uint32_t *k, float *w, uint32_t i, uint32_t j)
{
    uint32_t tk = k[i];
    float tw = w[i];
    k[i] = k[j];
    w[i] = w[j];
    k[j] = tk;
    w[j] = tw;
}

/* The heap keeps its last-ordered entry at the root: every parent comes after its children. */
static void sift_down(uint32_t *k, float *w, uint32_t size, uint32_t i)
{
    for (;;) {
        uint32_t last = i, l = 2 * i + 1, r = l + 1;
        if (l < size && before(w[last], k[last], w[l], k[l]))
            last = l;
        if (r < size && before(w[last], k[last], w[r], k[r]))
            last = r;
        if (last == i)
            return;
        swap_entries(k, w, i, last);
        i = last;
    }
}

static void sift_up(uint32_t *k, float *w, uint32_t i)
{
    while (i > 0 && before(w[(i - 1) / 2], k[(i - 1) / 2], w[i], k[i])) {
        swap_entries(k, w, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

uint32_t lda_top_entries(const uint32_t *topics, const float *weights, uint32_t count, uint32_t n,
                         uint32_t *out_topics, float *out_weights)
{
    const uint32_t m = n < count ? n : count;
    uint32_t size = 0;
    if (m == 0)
        return 0;
    /* O(count log m): a heap of the m best so far, the worst of them at its root. */
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t k = topics ? topics[i] : i;
        if (size < m) {
            out_topics[size] = k;
            out_weights[size] = weights[i];
            sift_up(out_topics, out_weights, size++);
        } else if (before(weights[i], k, out_weights[0], out_topics[0])) {
            out_topics[0] = k;
            out_weights[0] = weights[i];
            sift_down(out_topics, out_weights, m, 0);
        }
    }
    for (uint32_t end = m - 1; end > 0; end--) { /* the worst to the end, one by one */
        swap_entries(out_topics, out_weights, 0, end);
        sift_down(out_topics, out_weights, end, 0);
    }
    return m;
}

/* ---- building from rows ---- */

/* A sparse row with more entries ≥ EPS than its place holds, kept whole on the side. */
struct lda_theta_spill {
    uint64_t d;
    uint32_t count;
    uint32_t *topics;
    float *weights;
};

/* What one task of a block found: its spilled rows, or the first row it could not keep. */
typedef struct {
    lda_theta_spill *spill;
    size_t num_spilled, spill_cap;
    uint64_t bad_doc;  /* LDA_THETA_NO_ROW: none */
    int out_of_memory;
} task_out;

static int spill_push(lda_theta_spill **spill, size_t *num, size_t *cap, lda_theta_spill s)
{
    if (*num == *cap) {
        const size_t grown = *cap ? 2 * *cap : 16;
        lda_theta_spill *p = realloc(*spill, grown * sizeof *p);
        if (!p)
            return -1;
        *spill = p;
        *cap = grown;
    }
    (*spill)[(*num)++] = s;
    return 0;
}

/* The entries of row ≥ eps, topics ascending: the one definition of a sparse row. Writes at
 * most `room` of them and returns how many there are. */
static uint32_t select_at_least(const float *row, uint32_t K, float eps, uint32_t room, uint32_t *topics,
                                float *weights)
{
    uint32_t at = 0;
    for (uint32_t k = 0; k < K; k++)
        if (row[k] >= eps) {
            if (at < room) {
                topics[at] = k;
                weights[at] = row[k];
            }
            at++;
        }
    return at;
}

/* Keeps row d in t's form: the one place each form reads a row. */
static int keep_row(const lda_theta_builder *bld, uint64_t d, const float *row, task_out *o)
{
    lda_theta *t = bld->t;
    const uint32_t K = t->num_topics, n = bld->stride;
    switch (t->form.form) {
    case LDA_DOC_TOPICS_DENSE:
        memcpy(t->dense + d * K, row, (size_t)K * sizeof *row);
        return 0;
    case LDA_DOC_TOPICS_TOP:
        lda_top_entries(NULL, row, K, n, t->topics + d * n, t->weights + d * n);
        return 0;
    case LDA_DOC_TOPICS_SPARSE:
        break;
    default:
        return 0;
    }
    const float eps = (float)t->form.threshold;
    const uint32_t count = select_at_least(row, K, eps, n, t->topics + d * n, t->weights + d * n);
    t->indptr[d + 1] = count; /* a count until lda_theta_build_end's prefix sum */
    if (count <= n)
        return 0;
    lda_theta_spill s = {d, count, malloc((size_t)count * sizeof *s.topics), malloc((size_t)count * sizeof *s.weights)};
    if (!s.topics || !s.weights || spill_push(&o->spill, &o->num_spilled, &o->spill_cap, s)) {
        free(s.topics);
        free(s.weights);
        o->out_of_memory = 1;
        return -1;
    }
    select_at_least(row, K, eps, count, s.topics, s.weights);
    return 0;
}

typedef struct {
    const lda_theta_builder *bld;
    const uint64_t *docs;
    const float *rows;
    size_t row_step, count, tasks;
    task_out *out;
} block_ctx;

/* Task i: a contiguous range of the block's rows. */
static void keep_range(void *vctx, size_t task, int worker)
{
    (void)worker;
    const block_ctx *c = vctx;
    const uint32_t K = c->bld->t->num_topics;
    task_out *o = &c->out[task];
    for (size_t i = c->count * task / c->tasks, end = c->count * (task + 1) / c->tasks; i < end; i++) {
        const uint64_t d = c->docs[i];
        if (d == LDA_THETA_NO_ROW)
            continue;
        if (d >= c->bld->t->num_docs) {
            o->bad_doc = d;
            return;
        }
        if (keep_row(c->bld, d, c->rows + i * c->row_step * K, o))
            return;
    }
}

int lda_theta_build_begin(lda_theta_builder *bld, lda_theta *t, const lda_doc_topics *form, uint64_t D,
                          uint32_t K, lda_error *err)
{
    memset(bld, 0, sizeof *bld);
    memset(t, 0, sizeof *t);
    bld->t = t;
    t->form = *form;
    t->num_docs = D;
    t->num_topics = K;
    bld->stride = lda_doc_topics_row_bound(form, K);
    const uint64_t entries = D * bld->stride;
    int failed = 0;
    switch (form->form) {
    case LDA_DOC_TOPICS_DENSE:
        failed = !(t->dense = lda_malloc_array(entries, sizeof *t->dense, "theta", err));
        break;
    case LDA_DOC_TOPICS_SPARSE: /* its entries are built as top:N's are, in places of row-bound entries */
        failed = !(t->indptr = lda_calloc(D + 1, sizeof *t->indptr, "sparse theta", err)) ||
                 !(t->topics = lda_malloc_array(entries, sizeof *t->topics, "sparse theta", err)) ||
                 !(t->weights = lda_malloc_array(entries, sizeof *t->weights, "sparse theta", err));
        break;
    case LDA_DOC_TOPICS_TOP:
        failed = !(t->topics = lda_malloc_array(entries, sizeof *t->topics, "top topics", err)) ||
                 !(t->weights = lda_malloc_array(entries, sizeof *t->weights, "top topics", err));
        break;
    case LDA_DOC_TOPICS_NONE:
        break;
    default:
        lda_error_fail(err, "internal error: θ of an unresolved form");
        failed = 1;
        break;
    }
    if (failed)
        lda_theta_build_abort(bld);
    return failed ? -1 : 0;
}

int lda_theta_build_rows(lda_theta_builder *bld, lda_pool *pool, const uint64_t *docs, const float *rows,
                         size_t row_step, size_t count, lda_error *err)
{
    if (bld->t->form.form == LDA_DOC_TOPICS_NONE || count == 0)
        goto counted;
    const size_t threads = pool ? (size_t)lda_pool_threads(pool) : 1, tasks = threads < count ? threads : count;
    task_out *out = lda_calloc(tasks, sizeof *out, "theta's tasks", err);
    if (!out)
        return -1;
    for (size_t i = 0; i < tasks; i++)
        out[i].bad_doc = LDA_THETA_NO_ROW;
    block_ctx c = {bld, docs, rows, row_step, count, tasks, out};
    if (pool)
        lda_pool_run(pool, tasks, keep_range, &c);
    else
        keep_range(&c, 0, 0);
    int rc = 0;
    for (size_t i = 0; i < tasks; i++) { /* the spilled rows taken over in task order, failures reported */
        for (size_t j = 0; j < out[i].num_spilled; j++)
            if (rc == 0 && spill_push(&bld->spill, &bld->num_spilled, &bld->spill_cap, out[i].spill[j])) {
                lda_error_fail(err, "out of memory (θ's rows)");
                rc = -1;
            } else if (rc) {
                free(out[i].spill[j].topics);
                free(out[i].spill[j].weights);
            }
        free(out[i].spill);
        if (rc == 0 && out[i].bad_doc != LDA_THETA_NO_ROW) {
            lda_error_fail(err, "internal error: θ row %llu of %llu", (unsigned long long)out[i].bad_doc,
                           (unsigned long long)bld->t->num_docs);
            rc = -1;
        }
        if (rc == 0 && out[i].out_of_memory) {
            lda_error_fail(err, "out of memory (θ's rows)");
            rc = -1;
        }
    }
    free(out);
    if (rc)
        return -1;
counted:
    for (size_t i = 0; i < count; i++)
        bld->rows += docs[i] != LDA_THETA_NO_ROW;
    return 0;
}

static int by_doc(const void *a, const void *b)
{
    const uint64_t x = ((const lda_theta_spill *)a)->d, y = ((const lda_theta_spill *)b)->d;
    return (x > y) - (x < y);
}

/* A sparse θ's rows packed in document order from their places (and the spilled rows). */
static int pack_sparse(lda_theta_builder *bld, lda_error *err)
{
    lda_theta *t = bld->t;
    const uint64_t D = t->num_docs, n = bld->stride;
    for (uint64_t d = 0; d < D; d++)
        t->indptr[d + 1] += t->indptr[d];
    const uint64_t nnz = t->indptr[D];
    uint32_t *topics = t->topics;
    float *weights = t->weights;
    if (bld->num_spilled) { /* rows past their places: into new arrays (no row ever is, unless rows sum above 1) */
        qsort(bld->spill, bld->num_spilled, sizeof *bld->spill, by_doc);
        if (!(topics = lda_malloc_array(nnz, sizeof *topics, "sparse theta", err)) ||
            !(weights = lda_malloc_array(nnz, sizeof *weights, "sparse theta", err))) {
            free(topics);
            return -1;
        }
    }
    /* In place, rows move only towards the start: row d goes to indptr[d] <= d * n, over rows already moved. */
    for (uint64_t d = 0, s = 0; d < D; d++) {
        const uint64_t count = t->indptr[d + 1] - t->indptr[d];
        const int spilled = s < bld->num_spilled && bld->spill[s].d == d;
        memmove(topics + t->indptr[d], spilled ? bld->spill[s].topics : t->topics + d * n, count * sizeof *topics);
        memmove(weights + t->indptr[d], spilled ? bld->spill[s].weights : t->weights + d * n, count * sizeof *weights);
        s += spilled;
    }
    if (topics != t->topics) {
        free(t->topics);
        free(t->weights);
    }
    /* the places' room beyond the kept entries given back */
    uint32_t *kt = realloc(topics, (nnz ? nnz : 1) * sizeof *topics);
    float *kw = realloc(weights, (nnz ? nnz : 1) * sizeof *weights);
    t->topics = kt ? kt : topics;
    t->weights = kw ? kw : weights;
    return 0;
}

static void free_spill(lda_theta_builder *bld)
{
    for (size_t i = 0; i < bld->num_spilled; i++) {
        free(bld->spill[i].topics);
        free(bld->spill[i].weights);
    }
    free(bld->spill);
    bld->spill = NULL;
    bld->num_spilled = bld->spill_cap = 0;
}

int lda_theta_build_end(lda_theta_builder *bld, lda_error *err)
{
    lda_theta *t = bld->t;
    int rc = 0;
    if (t->form.form != LDA_DOC_TOPICS_NONE && bld->rows != t->num_docs) {
        lda_error_fail(err, "internal error: %llu θ rows of %llu", (unsigned long long)bld->rows,
                       (unsigned long long)t->num_docs);
        rc = -1;
    } else if (t->form.form == LDA_DOC_TOPICS_SPARSE) {
        rc = pack_sparse(bld, err);
    }
    if (rc) {
        lda_theta_build_abort(bld);
        return -1;
    }
    free_spill(bld);
    return 0;
}

void lda_theta_build_abort(lda_theta_builder *bld)
{
    free_spill(bld);
    if (bld->t)
        lda_theta_free(bld->t);
}

/* The row-by-row sources: each row a block of one. */
static int keep_one(void *vbld, uint64_t d, const float *row, lda_error *err)
{
    return lda_theta_build_rows(vbld, NULL, &d, row, 0, 1, err);
}

int lda_theta_build(lda_theta *t, const lda_doc_topics *form, uint64_t D, uint32_t K, lda_theta_source src,
                    void *src_ctx, lda_error *err)
{
    lda_theta_builder bld;
    if (lda_theta_build_begin(&bld, t, form, D, K, err))
        return -1;
    if (form->form != LDA_DOC_TOPICS_NONE && src(src_ctx, keep_one, &bld, err)) {
        lda_theta_build_abort(&bld);
        return -1;
    }
    return lda_theta_build_end(&bld, err);
}

/* ---- files ---- */

/* A file's name without ".npy": the name lda_matrix_save and lda_matrix_load_sized take. */
static const char *stem(const char *file, char buf[64])
{
    snprintf(buf, 64, "%.*s", (int)(strlen(file) - 4), file);
    return buf;
}

int lda_theta_write(const lda_theta *t, const char *dir, lda_error *err)
{
    const uint64_t D = t->num_docs, n = t->form.top, nnz = t->indptr ? t->indptr[D] : 0;
    const char *const *f = lda_doc_topics_files(t->form.form);
    char a[64], b[64], c[64];
    switch (t->form.form) {
    case LDA_DOC_TOPICS_DENSE:
        return lda_matrix_save(dir, stem(f[0], a), LDA_MATRIX_F32, D, t->num_topics, t->dense, err);
    case LDA_DOC_TOPICS_TOP:
        return lda_matrix_save(dir, stem(f[0], a), LDA_MATRIX_U32, D, n, t->topics, err) ||
               lda_matrix_save(dir, stem(f[1], b), LDA_MATRIX_F32, D, n, t->weights, err);
    case LDA_DOC_TOPICS_SPARSE:
        return lda_matrix_save(dir, stem(f[0], a), LDA_MATRIX_U64, D + 1, 0, t->indptr, err) ||
               lda_matrix_save(dir, stem(f[1], b), LDA_MATRIX_U32, nnz, 0, t->topics, err) ||
               lda_matrix_save(dir, stem(f[2], c), LDA_MATRIX_F32, nnz, 0, t->weights, err);
    default:
        return 0;
    }
}

int lda_theta_remove_other_forms(lda_doc_topics_form keep, const char *dir, lda_error *err)
{
    const char *const *kept = lda_doc_topics_files(keep);
    for (const char *const *name = lda_doc_topics_all_files; *name; name++) {
        int is_kept = 0;
        for (const char *const *k = kept; *k; k++)
            is_kept |= strcmp(*k, *name) == 0;
        if (is_kept || (keep == LDA_DOC_TOPICS_DENSE && strcmp(*name, "theta.bin") == 0))
            continue; /* a dense θ's .bin is removed as its .npy is written (lda_matrix_save) */
        char *path = lda_path_join(dir, *name, err);
        if (!path)
            return -1;
        if (unlink(path) != 0 && errno != ENOENT) {
            lda_error_fail(err, "cannot remove %s: %s", path, strerror(errno));
            free(path);
            return -1;
        }
        free(path);
    }
    return 0;
}

/* Every topic below K; width: entries a row (top:N), 0 for a sparse θ's entries. */
static int check_topics(const char *dir, const char *file, const uint32_t *topics, uint64_t n, uint64_t width,
                        uint32_t K, lda_error *err)
{
    for (uint64_t i = 0; i < n; i++)
        if (topics[i] >= K) {
            lda_error_input(err, "%s/%s: topic %u at %s %llu is not below K = %u", dir, file, topics[i],
                            width ? "row" : "entry", (unsigned long long)(width ? i / width : i), K);
            return -1;
        }
    return 0;
}

/* A CSR of D rows: pointers from 0 to nnz, never decreasing; topics ascending in each row. */
static int check_sparse(const lda_theta *t, const char *dir, lda_error *err)
{
    const char *const *f = lda_doc_topics_files(LDA_DOC_TOPICS_SPARSE);
    const uint64_t D = t->num_docs;
    if (t->indptr[0] != 0) {
        lda_error_input(err, "%s/%s: the first row pointer is %llu, not 0", dir, f[0],
                        (unsigned long long)t->indptr[0]);
        return -1;
    }
    for (uint64_t d = 0; d < D; d++) {
        if (t->indptr[d + 1] < t->indptr[d]) {
            lda_error_input(err, "%s/%s: row pointer %llu (%llu) is below the one before it (%llu)", dir, f[0],
                            (unsigned long long)(d + 1), (unsigned long long)t->indptr[d + 1],
                            (unsigned long long)t->indptr[d]);
            return -1;
        }
        for (uint64_t i = t->indptr[d] + 1; i < t->indptr[d + 1]; i++)
            if (t->topics[i] <= t->topics[i - 1]) {
                lda_error_input(err, "%s/%s: the topics of row %llu are not in increasing order (%u after %u)", dir,
                                f[1], (unsigned long long)d, t->topics[i], t->topics[i - 1]);
                return -1;
            }
    }
    return 0;
}

int lda_theta_read(lda_theta *t, const char *dir, const lda_doc_topics *form, uint64_t D, uint32_t K,
                   lda_error *err)
{
    memset(t, 0, sizeof *t);
    t->form = *form;
    t->num_docs = D;
    t->num_topics = K;
    const char *const *f = lda_doc_topics_files(form->form);
    const uint64_t n = form->top;
    char a[64], b[64], c[64], *index = NULL, *weights = NULL, *ptr = NULL;
    int rc = 0;
    switch (form->form) {
    case LDA_DOC_TOPICS_DENSE:
        rc = lda_matrix_load_sized(dir, "theta", LDA_MATRIX_F32, D, K, (void **)&t->dense, &weights, err);
        break;
    case LDA_DOC_TOPICS_TOP:
        rc = lda_matrix_load_sized(dir, stem(f[0], a), LDA_MATRIX_U32, D, n, (void **)&t->topics, &index, err) ||
             lda_matrix_load_sized(dir, stem(f[1], b), LDA_MATRIX_F32, D, n, (void **)&t->weights, &weights, err) ||
             check_topics(dir, f[0], t->topics, D * n, n, K, err);
        break;
    case LDA_DOC_TOPICS_SPARSE:
        rc = lda_matrix_load_sized(dir, stem(f[0], a), LDA_MATRIX_U64, D + 1, 1, (void **)&t->indptr, &ptr, err) ||
             lda_matrix_load_sized(dir, stem(f[1], b), LDA_MATRIX_U32, t->indptr[D], 1, (void **)&t->topics, &index,
                                   err) ||
             lda_matrix_load_sized(dir, stem(f[2], c), LDA_MATRIX_F32, t->indptr[D], 1, (void **)&t->weights,
                                   &weights, err) ||
             check_topics(dir, f[1], t->topics, t->indptr[D], 0, K, err) || check_sparse(t, dir, err);
        break;
    default:
        break;
    }
    rc = rc || (weights && lda_model_check_theta(t, weights, index, err));
    free(index);
    free(weights);
    free(ptr);
    if (rc)
        lda_theta_free(t);
    return rc ? -1 : 0;
}

void lda_theta_refuse(const lda_theta *t, const char *dir, const char *need, const char *suggest, lda_error *err)
{
    char form[64], what[128];
    if (t->form.form == LDA_DOC_TOPICS_TOP)
        snprintf(what, sizeof what, "each document's %u largest topics only", t->form.top);
    else if (t->form.form == LDA_DOC_TOPICS_SPARSE)
        snprintf(what, sizeof what, "its entries of at least %g only", t->form.threshold);
    else
        snprintf(what, sizeof what, "no θ at all");
    lda_error_input(err, "%s keeps θ as %s (%s); %s: rewrite it with 'ldagpu train --resume %s -n 0 --doc-topics %s' "
                    "(θ is rebuilt exactly from z)", dir, lda_doc_topics_format(&t->form, form, sizeof form), what,
                    need, dir, suggest);
}
