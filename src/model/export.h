/* export.h — a model in the formats other tools read.
 *
 *   topic keys   (Mallet's --output-topic-keys): one line a topic, "TOPIC\tALPHA\tw1 w2 ... wN "
 *                (α with at most 5 decimals, as Mallet prints it; the words most probable first,
 *                each followed by a space);
 *   doc topics   (Mallet's --output-doc-topics): one line an input document, "DOC\tNAME\tp0\tp1..."
 *                with θ of theta.npy in topic order; sparse, like Mallet with a threshold or a
 *                maximum: a header "#doc name topic proportion ..." and "DOC\tNAME\tk\tp\t..."
 *                with the topics of proportion >= threshold, largest first, at most max. NAME
 *                is the 0-based input index too (ldagpu's documents have no names);
 *   pyLDAvis     one JSON object whose keys are pyLDAvis.prepare's arguments:
 *                pyLDAvis.prepare(**json.load(f)) — topic_term_dists (φ, K × V),
 *                doc_topic_dists (θ of the documents given, D × K), doc_lengths, vocab,
 *                term_frequency (the words' counts in those documents).
 * Each writes to an open stream; the caller writes files atomically. */
#ifndef LDA_EXPORT_H
#define LDA_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "corpus/corpus.h"
#include "model/model.h"

int lda_export_topic_keys(const lda_model *m, uint32_t top, FILE *f, lda_error *err);

/* Needs m->theta. sparse: the thresholded form (threshold >= 0, max 0 = every topic). */
int lda_export_doc_topics(const lda_model *m, int sparse, double threshold, uint32_t max, FILE *f, lda_error *err);

/* Needs m->theta; docs: the documents to describe (the trained ones, lda_trained_documents),
 * word ids in the model's vocabulary. */
int lda_export_pyldavis(const lda_model *m, const corpus *docs, FILE *f, lda_error *err);

#endif
