/* model_check.c — see model_check.h. */
#include "model/model_check.h"

#include <math.h>
#include <stdlib.h>

#include "corpus/vocab_check.h"
#include "model/checksum.h"

int lda_model_check_conf(const lda_model *m, const char *conf_path, lda_error *err)
{
    if (m->heldout_docs > m->num_docs) {
        lda_error_input(err, "%s: heldout_documents = %llu is more than its documents (%llu)", conf_path,
                        (unsigned long long)m->heldout_docs, (unsigned long long)m->num_docs);
        return -1;
    }
    return 0;
}

int lda_model_check_vocab(const lda_model *m, const char *path, lda_error *err)
{
    return vocab_check(m->vocab, m->vocab_size, path, VOCAB_BY_LINE, err);
}

/* Row r of probabilities, n values (columns: their column numbers, NULL for 0..n-1): each in
 * [0, 1], and summing to 1 (complete) or to at most 1 (a row θ keeps in part), within the
 * tolerance. */
static int check_row(const char *path, uint64_t r, const float *v, const uint32_t *columns, uint64_t n, int complete,
                     lda_error *err)
{
    double sum = 0.0;
    for (uint64_t i = 0; i < n; i++) {
        if (!(v[i] >= 0.0f && v[i] <= 1.0f)) {
            lda_error_input(err, "%s: the value at row %llu, column %llu is %g, not a probability (from 0 to 1)", path,
                            (unsigned long long)r, (unsigned long long)(columns ? columns[i] : i), (double)v[i]);
            return -1;
        }
        sum += v[i];
    }
    if (complete ? fabs(sum - 1.0) > LDA_MODEL_SUM_TOLERANCE : sum > 1.0 + LDA_MODEL_SUM_TOLERANCE) {
        lda_error_input(err, "%s: row %llu sums to %.7g; a row of probabilities sums to %s1 (within %g)", path,
                        (unsigned long long)r, sum, complete ? "" : "at most ", LDA_MODEL_SUM_TOLERANCE);
        return -1;
    }
    return 0;
}

int lda_model_check_phi(const lda_model *m, const char *path, lda_error *err)
{
    const size_t V = m->vocab_size;
    for (uint32_t k = 0; k < m->num_topics; k++)
        if (check_row(path, k, m->phi + k * V, NULL, V, 1, err))
            return -1;
    return 0;
}

int lda_model_check_topic_tokens(const lda_model *m, const char *path, lda_error *err)
{
    uint64_t sum = 0;
    for (uint32_t k = 0; k < m->num_topics; k++)
        sum += m->topic_tokens[k];
    if (sum != m->num_tokens) {
        lda_error_input(err, "%s: the topics hold %llu tokens in all; model.conf says %llu", path,
                        (unsigned long long)sum, (unsigned long long)m->num_tokens);
        return -1;
    }
    return 0;
}

int lda_model_check_z(const lda_model *m, const char *path, lda_error *err)
{
    const uint32_t K = m->num_topics;
    if (m->z_checksum && lda_u32_checksum(m->z, m->num_tokens) != m->z_checksum) {
        lda_error_input(err, "%s does not match the z_checksum of its model.conf (a write was cut short, or the file "
                        "was changed)", path);
        return -1;
    }
    for (uint64_t i = 0; i < m->num_tokens; i++)
        if (m->z[i] >= K) {
            lda_error_input(err, "%s: topic %u of token %llu is not below K = %u", path, m->z[i],
                            (unsigned long long)i, K);
            return -1;
        }
    if (!m->topic_tokens)
        return 0;
    uint64_t *count = lda_calloc(K, sizeof *count, "tokens per topic", err);
    if (!count)
        return -1;
    for (uint64_t i = 0; i < m->num_tokens; i++)
        count[m->z[i]]++;
    int rc = 0;
    for (uint32_t k = 0; k < K && rc == 0; k++)
        if (count[k] != m->topic_tokens[k]) {
            lda_error_input(err, "%s: %llu tokens of topic %u, where topic_tokens says %u", path,
                            (unsigned long long)count[k], k, m->topic_tokens[k]);
            rc = -1;
        }
    free(count);
    return rc;
}

int lda_model_check_alpha(const lda_model *m, const char *path, lda_error *err)
{
    for (uint32_t k = 0; k < m->num_topics; k++)
        if (!(m->alpha_learned[k] > 0.0f)) {
            lda_error_input(err, "%s: the learned alpha of topic %u is %g; it must be positive", path, k,
                            (double)m->alpha_learned[k]);
            return -1;
        }
    return 0;
}

/* No topic twice in a row of top:N (a sparse θ's rows ascend: theta.c). */
static int check_distinct(const lda_theta *t, const char *index_path, lda_error *err)
{
    uint64_t *row_of = lda_calloc(t->num_topics, sizeof *row_of, "θ topics", err); /* row + 1 last seen in */
    if (!row_of)
        return -1;
    int rc = 0;
    for (uint64_t d = 0; d < t->num_docs && rc == 0; d++) {
        const lda_theta_row row = lda_theta_get_row(t, d);
        for (uint32_t i = 0; i < row.count && rc == 0; i++) {
            if (row_of[row.topics[i]] == d + 1) {
                lda_error_input(err, "%s: topic %u is in row %llu twice", index_path, row.topics[i],
                                (unsigned long long)d);
                rc = -1;
            }
            row_of[row.topics[i]] = d + 1;
        }
    }
    free(row_of);
    return rc;
}

int lda_model_check_theta(const lda_theta *t, const char *weights_path, const char *index_path, lda_error *err)
{
    const lda_doc_topics_form form = t->form.form;
    if (form == LDA_DOC_TOPICS_NONE)
        return 0;
    if (form == LDA_DOC_TOPICS_TOP && check_distinct(t, index_path, err))
        return -1;
    const int complete = lda_theta_complete(t);
    for (uint64_t d = 0; d < t->num_docs; d++) {
        const lda_theta_row row = lda_theta_get_row(t, d);
        if (check_row(weights_path, d, row.weights, row.topics, row.count, complete, err))
            return -1;
    }
    return 0;
}
