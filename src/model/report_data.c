/* report_data.c — what the report shows, computed from the model and its documents
 * (report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/text_fields.h"
#include "model/report.h"
#include "model/topic_map.h"
#include "model/topwords.h"
#include "util/gzlines.h"

enum { SNIPPET_BYTES = 280, SNIPPET_WORDS = 10 };

void lda_report_free(lda_html_report *r)
{
    const size_t n = r->m ? (size_t)r->m->num_topics * r->top_docs : 0;
    for (size_t i = 0; r->docs && i < n; i++)
        free(r->docs[i].text);
    free(r->docs);
    free(r->top);
    free(r->xy);
    free(r->coherence);
    free(r->term_frequency);
    r->docs = NULL;
    r->top = NULL;
    r->xy = NULL;
    r->coherence = NULL;
    r->term_frequency = NULL;
}

static int gather_map(lda_html_report *r, int threads, lda_error *err)
{
    const lda_model *m = r->m;
    const size_t K = m->num_topics;
    double *dist = lda_malloc_array(K * K, sizeof *dist, "topic distances", err);
    int rc = !dist || !(r->xy = lda_malloc_array(2 * K, sizeof *r->xy, "the topic map", err)) ||
             lda_topic_distances(m->phi, m->num_topics, m->vocab_size, threads, dist, err) ||
             lda_classical_mds(dist, m->num_topics, r->xy, err);
    free(dist);
    return rc ? -1 : 0;
}

/* Inserts (d, share) into a topic's best list (length n, best first) if it belongs there. */
static void offer(lda_report_doc *best, uint32_t n, uint64_t d, float share, uint64_t length)
{
    if (n == 0 || (best[n - 1].input_index != UINT64_MAX && share <= best[n - 1].share))
        return;
    uint32_t i = n - 1;
    while (i > 0 && (best[i - 1].input_index == UINT64_MAX || share > best[i - 1].share)) {
        best[i] = best[i - 1];
        i--;
    }
    best[i] = (lda_report_doc){d, share, length, NULL};
}

/* The documents most about each topic: among the trained documents, or, without them, among
 * the rows of θ that are not uniform (held-out and empty documents have the uniform row). */
static void rank_documents(lda_html_report *r, const corpus *docs)
{
    const lda_model *m = r->m;
    const uint32_t K = m->num_topics, n = r->top_docs;
    for (size_t i = 0; i < (size_t)K * n; i++)
        r->docs[i] = (lda_report_doc){UINT64_MAX, 0, 0, NULL};
    /* Without the documents, θ's rows: none when it is not kept (model.conf's documents alone
     * may say 2^40). */
    const size_t count = docs ? docs->num_docs : m->theta.form.form == LDA_DOC_TOPICS_NONE ? 0 : m->num_docs;
    for (size_t i = 0; i < count; i++) {
        uint64_t d = docs ? docs->input_index[i] : i;
        const lda_theta_row row = lda_theta_get_row(&m->theta, d); /* the entries θ keeps (theta.h) */
        if (!docs) {
            int uniform = 1;
            for (uint32_t j = 0; j < row.count && uniform; j++)
                uniform = row.weights[j] == 1.0f / (float)K;
            if (uniform)
                continue;
        }
        uint64_t length = docs ? docs->doc_offsets[i + 1] - docs->doc_offsets[i] : 0;
        for (uint32_t j = 0; j < row.count; j++) {
            const uint32_t k = row.topics ? row.topics[j] : j;
            offer(r->docs + (size_t)k * n, n, d, row.weights[j], length);
        }
    }
}

/* What the documents shown can be, from the θ the model keeps. */
static const char *theta_note(const lda_theta *t, char *buf, size_t size)
{
    char form[64];
    lda_doc_topics_format(&t->form, form, sizeof form);
    switch (t->form.form) {
    case LDA_DOC_TOPICS_TOP:
        if (lda_theta_complete(t))
            return NULL;
        snprintf(buf, size, "The model keeps each document's %u largest topics only (doc_topics = %s): a document "
                 "is listed under a topic only where that topic is among them.", t->form.top, form);
        return buf;
    case LDA_DOC_TOPICS_SPARSE:
        snprintf(buf, size, "The model keeps the entries of θ of at least %g only (doc_topics = %s): a topic whose "
                 "documents all have less of it lists none.", t->form.threshold, form);
        return buf;
    case LDA_DOC_TOPICS_NONE:
        snprintf(buf, size, "The model keeps no θ (doc_topics = none): no documents are listed.");
        return buf;
    default:
        return NULL;
    }
}

/* Raw text: the start of each chosen document's text (its line less a named format's fields),
 * cut at a character boundary, with control characters as spaces. */
static int text_snippets(lda_html_report *r, const char *path, lda_error *err)
{
    const size_t total = (size_t)r->m->num_topics * r->top_docs;
    uint64_t max = 0;
    for (size_t i = 0; i < total; i++)
        if (r->docs[i].input_index != UINT64_MAX && r->docs[i].input_index > max)
            max = r->docs[i].input_index;
    gzlines *g = gzlines_open(path, err);
    if (!g)
        return -1;
    char *line;
    size_t line_len;
    for (uint64_t d = 0; d <= max && (line = gzlines_next(g, &line_len, err)); d++) {
        text_fields fields; /* a line that no longer fits its format is shown whole */
        char why[TEXT_FIELDS_WHY_MAX];
        const int fits = !text_fields_split(r->m->settings.corpus.format, line, line_len, &fields, why);
        const char *text = fits ? fields.text : line;
        const size_t len = fits ? fields.text_len : line_len;
        for (size_t i = 0; i < total; i++) {
            if (r->docs[i].input_index != d)
                continue;
            size_t n = len < SNIPPET_BYTES ? len : SNIPPET_BYTES;
            while (n < len && n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
                n--; /* not inside a UTF-8 sequence */
            char *s = malloc(n + 4);
            if (!s) {
                lda_error_fail(err, "out of memory");
                gzlines_close(g);
                return -1;
            }
            for (size_t j = 0; j < n; j++)
                s[j] = (unsigned char)text[j] < 0x20 ? ' ' : text[j];
            strcpy(s + n, n < len ? "…" : "");
            r->docs[i].text = s;
        }
    }
    int failed = gzlines_failed(g);
    gzlines_close(g);
    return failed ? -1 : 0;
}

static const uint32_t *sorting_counts; /* qsort has no context argument */

static int by_count(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sorting_counts[x] != sorting_counts[y])
        return sorting_counts[x] > sorting_counts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* UCI and LDA-C have no text: a document's most frequent words, "word ×3". */
static int word_snippets(lda_html_report *r, const corpus *docs, lda_error *err)
{
    const lda_model *m = r->m;
    const size_t total = (size_t)m->num_topics * r->top_docs;
    uint32_t *count = lda_calloc(m->vocab_size, sizeof *count, "word counts", err);
    uint32_t *ids = lda_malloc_array(m->vocab_size, sizeof *ids, "word ids", err);
    size_t *where = lda_malloc_array(m->num_docs ? m->num_docs : 1, sizeof *where, "document positions", err);
    int rc = -1;
    if (!count || !ids || !where)
        goto out;
    for (size_t i = 0; i < docs->num_docs; i++)
        where[docs->input_index[i]] = i;
    for (size_t i = 0; i < total; i++) {
        if (r->docs[i].input_index == UINT64_MAX)
            continue;
        size_t d = where[r->docs[i].input_index], distinct = 0;
        for (size_t t = docs->doc_offsets[d]; t < docs->doc_offsets[d + 1]; t++)
            if (count[docs->words[t]]++ == 0)
                ids[distinct++] = docs->words[t];
        sorting_counts = count;
        qsort(ids, distinct, sizeof *ids, by_count);
        size_t cap = 64, len = 0;
        char *s = malloc(cap);
        for (size_t j = 0; s && j < distinct && j < SNIPPET_WORDS; j++) {
            const char *w = m->vocab[ids[j]];
            size_t need = strlen(w) + 32;
            if (len + need > cap) {
                char *grown = realloc(s, cap = 2 * (len + need));
                if (!grown) {
                    free(s);
                    s = NULL;
                    break;
                }
                s = grown;
            }
            len += (size_t)snprintf(s + len, cap - len, "%s%s ×%u", j ? ", " : "", w, count[ids[j]]);
        }
        for (size_t j = 0; j < distinct; j++)
            count[ids[j]] = 0;
        if (!s) {
            lda_error_fail(err, "out of memory");
            goto out;
        }
        r->docs[i].text = s;
    }
    rc = 0;
out:
    free(count);
    free(ids);
    free(where);
    return rc;
}

int lda_report_gather(lda_html_report *r, const corpus *docs, const char *corpus_path, const char *note, int threads,
                      lda_error *err)
{
    const lda_model *m = r->m;
    const uint32_t K = m->num_topics;
    r->top_words = r->top_words < m->vocab_size ? r->top_words : m->vocab_size;
    r->corpus_note = docs ? NULL : note;
    if (!(r->top = lda_malloc_array((size_t)K * r->top_words, sizeof *r->top, "top words", err)) ||
        !(r->docs = lda_calloc((size_t)K * (r->top_docs ? r->top_docs : 1), sizeof *r->docs, "top documents", err)))
        goto fail;
    for (uint32_t k = 0; k < K; k++)
        lda_top_indices(m->phi + (size_t)k * m->vocab_size, m->vocab_size, r->top_words,
                        r->top + (size_t)k * r->top_words);
    if (gather_map(r, threads, err))
        goto fail;
    r->theta_note = theta_note(&m->theta, r->theta_note_text, sizeof r->theta_note_text);
    rank_documents(r, docs);
    if (!docs)
        return 0;
    if (!(r->term_frequency = lda_calloc(m->vocab_size, sizeof *r->term_frequency, "term frequencies", err)) ||
        !(r->coherence = lda_malloc_array(K, sizeof *r->coherence, "coherence", err)))
        goto fail;
    for (size_t t = 0; t < docs->num_tokens; t++)
        r->term_frequency[docs->words[t]]++;
    if (lda_coherence_compute(docs, r->top, K, r->top_words, r->coherence, err))
        goto fail;
    if (corpus_format_is_text(m->settings.corpus.format) ? text_snippets(r, corpus_path, err)
                                                          : word_snippets(r, docs, err))
        goto fail;
    return 0;
fail:
    lda_report_free(r);
    return -1;
}
