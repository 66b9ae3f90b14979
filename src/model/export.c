/* export.c — see export.h. */
#include "model/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/doc_names.h"
#include "model/matrix_file.h"
#include "model/topwords.h"
#include "util/atomic_file.h"
#include "util/json.h"

/* x with at most 5 decimals and no trailing zeros, as Java's NumberFormat in Mallet. */
static void mallet_number(FILE *f, double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.5f", x);
    char *end = buf + strlen(buf);
    while (end > buf && end[-1] == '0')
        *--end = 0;
    if (end > buf && end[-1] == '.')
        *--end = 0;
    fputs(buf, f);
}

int lda_export_topic_keys(const lda_model *m, uint32_t top, FILE *f, lda_error *err)
{
    uint32_t n = top < m->vocab_size ? top : m->vocab_size;
    uint32_t *words = lda_malloc_array(n ? n : 1, sizeof *words, "top words", err);
    if (!words)
        return -1;
    for (uint32_t k = 0; k < m->num_topics; k++) {
        lda_top_indices(m->phi + (size_t)k * m->vocab_size, m->vocab_size, n, words);
        fprintf(f, "%u\t", k);
        mallet_number(f, m->alpha_learned ? m->alpha_learned[k] : m->settings.params.alpha); /* as learned, if it was */
        fputc('\t', f);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "%s ", m->vocab[words[i]]);
        fputc('\n', f);
    }
    free(words);
    return 0;
}

int lda_export_doc_topics_check(const lda_model *m, const char *dir, int sparse, double threshold, uint32_t max,
                                lda_error *err)
{
    const lda_theta *t = &m->theta;
    const lda_doc_topics *form = &t->form;
    char need[256];
    if (lda_theta_complete(t) ||
        (sparse && form->form == LDA_DOC_TOPICS_TOP && max >= 1 && max <= form->top) ||
        (sparse && form->form == LDA_DOC_TOPICS_SPARSE && (float)threshold >= (float)form->threshold))
        return 0;
    if (form->form == LDA_DOC_TOPICS_TOP)
        snprintf(need, sizeof need, "these document topics need more (--doc-topics-max %u or less exports exactly "
                 "what it keeps)", form->top);
    else if (form->form == LDA_DOC_TOPICS_SPARSE)
        snprintf(need, sizeof need, "these document topics need more (--doc-topics-threshold %g or more exports "
                 "exactly what it keeps)", form->threshold);
    else
        snprintf(need, sizeof need, "document topics need θ");
    lda_theta_refuse(t, dir, need, "dense", err);
    return -1;
}

int lda_export_doc_topics(const lda_model *m, int sparse, double threshold, uint32_t max, FILE *f, lda_error *err)
{
    const uint32_t K = m->num_topics;
    const float at_least = (float)threshold;
    uint32_t *topics = lda_malloc_array(K, sizeof *topics, "topic order", err);
    float *weights = lda_malloc_array(K, sizeof *weights, "topic order", err);
    int rc = -1;
    if (!topics || !weights)
        goto out;
    if (sparse)
        fprintf(f, "#doc name topic proportion ...\n");
    for (uint64_t d = 0; d < m->num_docs; d++) {
        char row_number[24];
        fprintf(f, "%llu\t%s", (unsigned long long)d, lda_doc_name(m->doc_names, d, row_number));
        if (!sparse) {
            lda_theta_row_dense(&m->theta, d, weights);
            for (uint32_t k = 0; k < K; k++)
                fprintf(f, "\t%.9g", weights[k]);
            fputc('\n', f);
            continue;
        }
        const lda_theta_row row = lda_theta_get_row(&m->theta, d);
        const uint32_t n = lda_top_entries(row.topics, row.weights, row.count, max ? max : K, topics, weights);
        fputc('\t', f);
        for (uint32_t i = 0; i < n && weights[i] >= at_least; i++)
            fprintf(f, "%u\t%.9g\t", topics[i], weights[i]);
        fputc('\n', f);
    }
    rc = 0;
out:
    free(topics);
    free(weights);
    return rc;
}

/* A JSON array of n floats. */
static void json_floats(FILE *f, const float *x, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, i ? ", %.7g" : "%.7g", x[i]);
    fputc(']', f);
}

/* Row d of θ as pyLDAvis takes it: every entry, or the kept ones rescaled to sum to 1. */
static void pyldavis_row(const lda_theta *t, uint64_t d, float *row, uint64_t *empty_rows)
{
    const uint32_t K = t->num_topics;
    lda_theta_row_dense(t, d, row);
    if (lda_theta_complete(t))
        return;
    double sum = 0.0;
    for (uint32_t k = 0; k < K; k++)
        sum += row[k];
    for (uint32_t k = 0; k < K; k++)
        row[k] = sum > 0.0 ? (float)(row[k] / sum) : 1.0f / (float)K;
    *empty_rows += !(sum > 0.0);
}

int lda_export_pyldavis(const lda_model *m, const corpus *docs, FILE *f, uint64_t *empty_rows, lda_error *err)
{
    const uint32_t K = m->num_topics, V = m->vocab_size;
    *empty_rows = 0;
    if (m->theta.form.form == LDA_DOC_TOPICS_NONE) {
        lda_error_fail(err, "internal error: pyLDAvis from a model without θ");
        return -1;
    }
    uint64_t *freq = lda_calloc(V, sizeof *freq, "term frequencies", err);
    float *row = lda_malloc_array(K, sizeof *row, "a theta row", err);
    if (!freq || !row) {
        free(freq);
        free(row);
        return -1;
    }
    for (size_t t = 0; t < docs->num_tokens; t++)
        freq[docs->words[t]]++;
    fprintf(f, "{\"topic_term_dists\": [");
    for (uint32_t k = 0; k < K; k++) {
        fputs(k ? ",\n  " : "\n  ", f);
        json_floats(f, m->phi + (size_t)k * V, V);
    }
    fprintf(f, "],\n\"doc_topic_dists\": [");
    for (size_t d = 0; d < docs->num_docs; d++) {
        fputs(d ? ",\n  " : "\n  ", f);
        pyldavis_row(&m->theta, docs->input_index[d], row, empty_rows);
        json_floats(f, row, K);
    }
    fprintf(f, "],\n\"doc_lengths\": [");
    for (size_t d = 0; d < docs->num_docs; d++)
        fprintf(f, d ? ", %zu" : "%zu", docs->doc_offsets[d + 1] - docs->doc_offsets[d]);
    fprintf(f, "],\n\"vocab\": [");
    for (uint32_t w = 0; w < V; w++) {
        fputs(w ? ", " : "", f);
        lda_json_string(f, m->vocab[w]);
    }
    fprintf(f, "],\n\"term_frequency\": [");
    for (uint32_t w = 0; w < V; w++)
        fprintf(f, w ? ", %llu" : "%llu", (unsigned long long)freq[w]);
    fprintf(f, "]}\n");
    free(freq);
    free(row);
    return 0;
}

int lda_export_counts(const lda_model *m, const corpus *docs, const char *dir, lda_error *err)
{
    const size_t K = m->num_topics, V = m->vocab_size, D = m->num_docs;
    if (docs->num_tokens != m->num_tokens) {
        lda_error_input(err, "the corpus has %zu tokens to count where the model was trained on %llu: it is not the "
                        "training corpus as it was", docs->num_tokens, (unsigned long long)m->num_tokens);
        return -1;
    }
    uint32_t *n_kw = lda_calloc(K * V, sizeof *n_kw, "topic-word counts", err);
    uint32_t *n_dk = n_kw ? lda_calloc(D * K > 0 ? D * K : 1, sizeof *n_dk, "document-topic counts", err) : NULL;
    char *kw = NULL, *dk = NULL;
    int rc = -1;
    if (!n_dk)
        goto out;
    for (size_t d = 0; d < docs->num_docs; d++) {
        uint32_t *row = n_dk + docs->input_index[d] * K;
        for (size_t t = docs->doc_offsets[d]; t < docs->doc_offsets[d + 1]; t++) {
            n_kw[(size_t)m->z[t] * V + docs->words[t]]++;
            row[m->z[t]]++;
        }
    }
    if (lda_make_dirs(dir, err) || !(kw = lda_path_join(dir, "topic_word_counts.npy", err)) ||
        !(dk = lda_path_join(dir, "doc_topic_counts.npy", err)) ||
        lda_matrix_write(kw, LDA_MATRIX_U32, K, V, n_kw, err) || lda_matrix_write(dk, LDA_MATRIX_U32, D, K, n_dk, err))
        goto out;
    rc = 0;
out:
    free(n_kw);
    free(n_dk);
    free(kw);
    free(dk);
    return rc;
}
