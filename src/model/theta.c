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

typedef struct {
    lda_theta *t;
    int fill;       /* sparse: 0 counts a row's entries, 1 stores them */
    uint64_t rows;  /* rows given in this pass */
} build_ctx;

static int keep_row(void *vctx, uint64_t d, const float *row, lda_error *err)
{
    build_ctx *b = vctx;
    lda_theta *t = b->t;
    const uint32_t K = t->num_topics, n = t->form.top;
    const float eps = (float)t->form.threshold;
    if (d >= t->num_docs) {
        lda_error_fail(err, "internal error: θ row %llu of %llu", (unsigned long long)d,
                       (unsigned long long)t->num_docs);
        return -1;
    }
    b->rows++;
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
    uint64_t at = b->fill ? t->indptr[d] : 0;
    for (uint32_t k = 0; k < K; k++)
        if (row[k] >= eps) {
            if (b->fill) {
                t->topics[at] = k;
                t->weights[at] = row[k];
            }
            at++;
        }
    if (!b->fill) {
        t->indptr[d + 1] = at; /* a count until the prefix sum */
    } else if (at != t->indptr[d + 1]) {
        lda_error_fail(err, "internal error: θ row %llu changed between the passes", (unsigned long long)d);
        return -1;
    }
    return 0;
}

static int one_pass(build_ctx *b, lda_theta_source src, void *src_ctx, lda_error *err)
{
    b->rows = 0;
    if (src(src_ctx, keep_row, b, err))
        return -1;
    if (b->rows != b->t->num_docs) {
        lda_error_fail(err, "internal error: %llu θ rows of %llu", (unsigned long long)b->rows,
                       (unsigned long long)b->t->num_docs);
        return -1;
    }
    return 0;
}

int lda_theta_build(lda_theta *t, const lda_doc_topics *form, uint64_t D, uint32_t K, lda_theta_source src,
                    void *src_ctx, lda_error *err)
{
    memset(t, 0, sizeof *t);
    t->form = *form;
    t->num_docs = D;
    t->num_topics = K;
    build_ctx b = {t, 0, 0};
    int rc = -1;
    switch (form->form) {
    case LDA_DOC_TOPICS_DENSE:
        rc = !(t->dense = lda_malloc_array(D * K, sizeof *t->dense, "theta", err)) || one_pass(&b, src, src_ctx, err);
        break;
    case LDA_DOC_TOPICS_TOP:
        rc = !(t->topics = lda_malloc_array(D * form->top, sizeof *t->topics, "top topics", err)) ||
             !(t->weights = lda_malloc_array(D * form->top, sizeof *t->weights, "top topics", err)) ||
             one_pass(&b, src, src_ctx, err);
        break;
    case LDA_DOC_TOPICS_SPARSE:
        if (!(t->indptr = lda_calloc(D + 1, sizeof *t->indptr, "sparse theta", err)) || one_pass(&b, src, src_ctx, err))
            break;
        for (uint64_t d = 0; d < D; d++)
            t->indptr[d + 1] += t->indptr[d];
        b.fill = 1;
        rc = !(t->topics = lda_malloc_array(t->indptr[D], sizeof *t->topics, "sparse theta", err)) ||
             !(t->weights = lda_malloc_array(t->indptr[D], sizeof *t->weights, "sparse theta", err)) ||
             one_pass(&b, src, src_ctx, err);
        break;
    case LDA_DOC_TOPICS_NONE:
        return 0;
    default:
        lda_error_fail(err, "internal error: θ of an unresolved form");
        break;
    }
    if (rc)
        lda_theta_free(t);
    return rc ? -1 : 0;
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
