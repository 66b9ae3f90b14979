/* report.h — `ldagpu report`: one self-contained HTML page about a model (no network: inline
 * CSS, SVG and script).
 *
 * What it shows: a summary of the run; the intertopic distance map (topic_map.h: JS
 * divergences placed by classical MDS, circle areas proportional to the topics' shares);
 * every topic with its share, coherence (when the training corpus could be read) and top
 * words with bars (the word's estimated tokens in the topic, φ[k,w]·n_k, over its tokens in
 * the corpus, as LDAvis draws them; without the corpus, φ relative to the topic's first
 * word); the documents most about each topic (largest θ[d,k] among the documents trained
 * on, by name and label where the corpus had them (doc_names.h), else by row; with the start
 * of their text for raw-text corpora, their most frequent words otherwise; from the entries a
 * top:N or sparse:EPS θ keeps, which the page says); the
 * training curves of log.csv (log-likelihoods against iterations and against training seconds).
 *
 * lda_report_gather computes everything from the model, its log and (optionally) its
 * training documents; lda_report_write_html writes the page. */
#ifndef LDA_REPORT_H
#define LDA_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "corpus/corpus.h"
#include "model/coherence.h"
#include "model/model.h"
#include "model/train_log.h"

typedef struct {
    uint64_t input_index; /* the document's 0-based position in the input */
    float share;          /* θ[d,k] */
    uint64_t length;      /* its tokens (0 when the corpus was not read) */
    char *text;           /* the start of its text, or its most frequent words; NULL: none */
} lda_report_doc;

typedef struct {
    const lda_model *m;         /* with θ */
    const lda_train_log *log;   /* log.csv's rows (possibly none) */
    const char *title;          /* the model folder, as given */
    uint32_t top_words, top_docs;
    /* Filled by lda_report_gather: */
    uint32_t *top;              /* K × top_words word ids, most probable first */
    double *xy;                 /* 2K: the map */
    lda_coherence *coherence;   /* K, or NULL without a corpus */
    uint64_t *term_frequency;   /* V, or NULL without a corpus */
    lda_report_doc *docs;       /* K × top_docs, a topic's best first; input_index UINT64_MAX: none */
    const char *corpus_note;    /* why there is no corpus data, or NULL */
    const char *theta_note;     /* what the documents shown can be when θ is kept in part, or NULL */
    char theta_note_text[512];
} lda_html_report;

/* docs: the documents trained on (lda_trained_documents), or NULL when the corpus could not
 * be read (note says why); corpus_path: where to read raw text from for the snippets. */
int lda_report_gather(lda_html_report *r, const corpus *docs, const char *corpus_path, const char *note, int threads,
                      lda_error *err);
int lda_report_write_html(const lda_html_report *r, FILE *f, lda_error *err);
void lda_report_free(lda_html_report *r);

#endif
