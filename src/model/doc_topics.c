/* doc_topics.c — the --doc-topics setting; see doc_topics.h. */
#include "model/doc_topics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "util/memory.h"

lda_doc_topics lda_doc_topics_default(void)
{
    return (lda_doc_topics){LDA_DOC_TOPICS_AUTO, 0, 0.0};
}

const lda_choice lda_doc_topics_choices[] = {
    {"auto", LDA_DOC_TOPICS_AUTO, "dense up to 1 GiB of θ, else sparse:0.01 (said on stderr)"},
    {"dense", LDA_DOC_TOPICS_DENSE, "theta.npy: D x K float32"},
    {"top:N", LDA_DOC_TOPICS_TOP, "each document's N largest topics: doc_topics_index.npy, doc_topics_weight.npy"},
    {"sparse:EPS", LDA_DOC_TOPICS_SPARSE, "the entries >= EPS as CSR: theta_indptr.npy, theta_indices.npy, "
                                          "theta_data.npy (sparse: EPS 0.01)"},
    {"none", LDA_DOC_TOPICS_NONE, "no θ file"},
    {NULL, 0, NULL},
};

int lda_doc_topics_parse(const char *where, const char *text, lda_doc_topics *out, lda_error *err)
{
    const int plain = lda_choice_parse(lda_doc_topics_choices, text); /* auto, dense, none */
    if (plain >= 0 && plain != LDA_DOC_TOPICS_TOP && plain != LDA_DOC_TOPICS_SPARSE) {
        *out = (lda_doc_topics){(lda_doc_topics_form)plain, 0, 0.0};
        return 0;
    }
    if (strcmp(text, "sparse") == 0) {
        *out = (lda_doc_topics){LDA_DOC_TOPICS_SPARSE, 0, LDA_DOC_TOPICS_DEFAULT_EPS};
        return 0;
    }
    lda_error ignored;
    if (strncmp(text, "top:", 4) == 0) {
        *out = (lda_doc_topics){LDA_DOC_TOPICS_TOP, 0, 0.0};
        if (lda_parse_u32(where, text + 4, 1, LDA_DOC_TOPICS_MAX_TOP, &out->top, &ignored) == 0)
            return 0;
        lda_error_input(err, "%s: expected top:N with N from 1 to %u, got '%s'", where, LDA_DOC_TOPICS_MAX_TOP, text);
        return -1;
    }
    if (strncmp(text, "sparse:", 7) == 0) {
        *out = (lda_doc_topics){LDA_DOC_TOPICS_SPARSE, 0, 0.0};
        if (lda_parse_double(where, text + 7, 0.0, 1, 1.0, &out->threshold, &ignored) == 0)
            return 0;
        lda_error_input(err, "%s: expected sparse:EPS with 0 < EPS <= 1, got '%s'", where, text);
        return -1;
    }
    lda_error_input(err, "%s: expected auto, dense, top:N, sparse, sparse:EPS or none, got '%s'", where, text);
    return -1;
}

const char *lda_doc_topics_format(const lda_doc_topics *d, char *buf, size_t size)
{
    switch (d->form) {
    case LDA_DOC_TOPICS_TOP:
        snprintf(buf, size, "top:%u", d->top);
        break;
    case LDA_DOC_TOPICS_SPARSE: /* the shortest form that reads back as the same double */
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(buf, size, "sparse:%.*g", digits, d->threshold);
            if (strtod(buf + 7, NULL) == d->threshold)
                break;
        }
        break;
    default:
        snprintf(buf, size, "%s", lda_choice_name(lda_doc_topics_choices, d->form)); /* auto, dense, none */
        break;
    }
    return buf;
}

int lda_doc_topics_same(const lda_doc_topics *a, const lda_doc_topics *b)
{
    return a->form == b->form && (a->form != LDA_DOC_TOPICS_TOP || a->top == b->top) &&
           (a->form != LDA_DOC_TOPICS_SPARSE || a->threshold == b->threshold);
}

lda_doc_topics lda_doc_topics_resolve(const lda_doc_topics *d, uint64_t num_docs, uint32_t K, char *why,
                                      size_t why_size)
{
    lda_doc_topics r = *d;
    if (why && why_size)
        why[0] = '\0';
    if (r.form == LDA_DOC_TOPICS_AUTO) {
        const lda_doc_topics dense = {LDA_DOC_TOPICS_DENSE, 0, 0.0};
        const uint64_t bytes = lda_doc_topics_bytes(&dense, num_docs, K);
        char size[32], limit[32];
        if (bytes <= LDA_DOC_TOPICS_AUTO_DENSE_BYTES) {
            r = dense;
            if (why)
                snprintf(why, why_size, "dense θ of %s (at most %s: theta.npy)", lda_size_text(bytes, size),
                         lda_size_text(LDA_DOC_TOPICS_AUTO_DENSE_BYTES, limit));
        } else {
            r = (lda_doc_topics){LDA_DOC_TOPICS_SPARSE, 0, LDA_DOC_TOPICS_DEFAULT_EPS};
            if (why)
                snprintf(why, why_size, "a dense θ would take %s (%llu documents x %u topics, above %s): writing "
                         "the entries of at least %g instead (sparse:%g: theta_indptr.npy, theta_indices.npy, "
                         "theta_data.npy); --doc-topics dense writes theta.npy", lda_size_text(bytes, size),
                         (unsigned long long)num_docs, K, lda_size_text(LDA_DOC_TOPICS_AUTO_DENSE_BYTES, limit),
                         LDA_DOC_TOPICS_DEFAULT_EPS, LDA_DOC_TOPICS_DEFAULT_EPS);
        }
    }
    if (r.form == LDA_DOC_TOPICS_TOP && r.top > K)
        r.top = K;
    return r;
}

static const char *const dense_files[] = {"theta.npy", NULL};
static const char *const top_files[] = {"doc_topics_index.npy", "doc_topics_weight.npy", NULL};
static const char *const sparse_files[] = {"theta_indptr.npy", "theta_indices.npy", "theta_data.npy", NULL};
static const char *const no_files[] = {NULL};

const char *const lda_doc_topics_all_files[] = {"theta.npy",        "theta.bin",         "doc_topics_index.npy",
                                                "doc_topics_weight.npy", "theta_indptr.npy", "theta_indices.npy",
                                                "theta_data.npy",   NULL};

const char *const *lda_doc_topics_files(lda_doc_topics_form form)
{
    switch (form) {
    case LDA_DOC_TOPICS_DENSE:
        return dense_files;
    case LDA_DOC_TOPICS_TOP:
        return top_files;
    case LDA_DOC_TOPICS_SPARSE:
        return sparse_files;
    default:
        return no_files;
    }
}

uint32_t lda_doc_topics_row_bound(const lda_doc_topics *d, uint32_t K)
{
    switch (d->form) {
    case LDA_DOC_TOPICS_DENSE:
        return K;
    case LDA_DOC_TOPICS_TOP:
        return d->top < K ? d->top : K;
    case LDA_DOC_TOPICS_SPARSE: {
        const double most = floor(1.0 / d->threshold) + 1.0;
        return most < (double)K ? (uint32_t)most : K;
    }
    default:
        return 0;
    }
}

uint64_t lda_doc_topics_bytes(const lda_doc_topics *d, uint64_t num_docs, uint32_t K)
{
    const uint64_t entries = num_docs * lda_doc_topics_row_bound(d, K);
    switch (d->form) {
    case LDA_DOC_TOPICS_DENSE:
        return entries * sizeof(float);
    case LDA_DOC_TOPICS_TOP:
        return entries * (sizeof(uint32_t) + sizeof(float));
    case LDA_DOC_TOPICS_SPARSE:
        return entries * (sizeof(uint32_t) + sizeof(float)) + (num_docs + 1) * sizeof(uint64_t);
    default:
        return 0;
    }
}
