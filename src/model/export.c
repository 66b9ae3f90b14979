/* export.c — see export.h. */
#include "model/export.h"

#include <stdlib.h>
#include <string.h>

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
        mallet_number(f, m->settings.params.alpha);
        fputc('\t', f);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "%s ", m->vocab[words[i]]);
        fputc('\n', f);
    }
    free(words);
    return 0;
}

static const float *sorting_row; /* qsort has no context argument */

static int by_proportion(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sorting_row[x] != sorting_row[y])
        return sorting_row[x] > sorting_row[y] ? -1 : 1;
    return (x > y) - (x < y);
}

int lda_export_doc_topics(const lda_model *m, int sparse, double threshold, uint32_t max, FILE *f, lda_error *err)
{
    const uint32_t K = m->num_topics;
    uint32_t *order = lda_malloc_array(K, sizeof *order, "topic order", err);
    if (!order)
        return -1;
    if (sparse)
        fprintf(f, "#doc name topic proportion ...\n");
    for (uint64_t d = 0; d < m->num_docs; d++) {
        const float *row = m->theta + d * K;
        fprintf(f, "%llu\t%llu", (unsigned long long)d, (unsigned long long)d);
        if (!sparse) {
            for (uint32_t k = 0; k < K; k++)
                fprintf(f, "\t%.9g", row[k]);
            fputc('\n', f);
            continue;
        }
        for (uint32_t k = 0; k < K; k++)
            order[k] = k;
        sorting_row = row;
        qsort(order, K, sizeof *order, by_proportion);
        fputc('\t', f);
        for (uint32_t i = 0; i < K && (!max || i < max) && row[order[i]] >= threshold; i++)
            fprintf(f, "%u\t%.9g\t", order[i], row[order[i]]);
        fputc('\n', f);
    }
    free(order);
    return 0;
}

/* A JSON array of n floats. */
static void json_floats(FILE *f, const float *x, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, i ? ", %.7g" : "%.7g", x[i]);
    fputc(']', f);
}

int lda_export_pyldavis(const lda_model *m, const corpus *docs, FILE *f, lda_error *err)
{
    const uint32_t K = m->num_topics, V = m->vocab_size;
    uint64_t *freq = lda_calloc(V, sizeof *freq, "term frequencies", err);
    if (!freq)
        return -1;
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
        json_floats(f, m->theta + docs->input_index[d] * K, K);
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
