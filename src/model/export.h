/* export.h — a model in the formats other tools read.
 *
 *   topic keys   (Mallet's --output-topic-keys): one line a topic, "TOPIC\tALPHA\tw1 w2 ... wN "
 *                (the topic's α, learned by --optimize-interval or the setting, with at most 5
 *                decimals, as Mallet prints it; the words most probable first, each followed by
 *                a space);
 *   doc topics   (Mallet's --output-doc-topics): one line an input document, "DOC\tNAME\tp0\tp1..."
 *                with θ (a dense theta.npy) in topic order; sparse, like Mallet with a threshold or
 *                a maximum: a header "#doc name topic proportion ..." and "DOC\tNAME\tk\tp\t..."
 *                with the topics of proportion >= threshold, largest first (ties: smaller topic
 *                first), at most max, which a top:N or sparse:EPS θ can give exactly. NAME
 *                is the document's name (doc_names.h), or its 0-based input index again when
 *                the corpus had no names;
 *   pyLDAvis     one JSON object whose keys are pyLDAvis.prepare's arguments:
 *                pyLDAvis.prepare(**json.load(f)) — topic_term_dists (φ, K × V),
 *                doc_topic_dists (θ of the documents given, D × K), doc_lengths, vocab,
 *                term_frequency (the words' counts in those documents);
 *   counts       the count matrices of the last z as NumPy files (matrix_file.h) in a folder:
 *                topic_word_counts.npy (K × V uint32, n[k,w], Mallet's word-topic counts
 *                as a matrix) and doc_topic_counts.npy (D × K uint32, n[d,k], one row per input
 *                document; held-out and empty documents have zero rows).
 * The text exports write to an open stream; the caller writes files atomically. */
#ifndef LDA_EXPORT_H
#define LDA_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "corpus/corpus.h"
#include "model/model.h"

int lda_export_topic_keys(const lda_model *m, uint32_t top, FILE *f, lda_error *err);

/* Whether the model's θ (m->theta, read from the folder dir) holds what the document topics
 * need, exactly: the dense form needs every entry; the sparse form (threshold >= 0, max 0 =
 * every topic) is exact from top:N when max <= N, and from sparse:EPS when threshold >= EPS
 * (both as float32). Otherwise err says so and how to get it (lda_theta_refuse). */
int lda_export_doc_topics_check(const lda_model *m, const char *dir, int sparse, double threshold, uint32_t max,
                                lda_error *err);
/* Needs m->theta, checked as above. */
int lda_export_doc_topics(const lda_model *m, int sparse, double threshold, uint32_t max, FILE *f, lda_error *err);

/* Needs m->theta in any form but none; docs: the documents to describe (the trained ones,
 * lda_trained_documents), word ids in the model's vocabulary. From a θ that keeps only some
 * entries (top:N, sparse:EPS), each row is the kept entries, the others 0, rescaled to sum to
 * 1 (pyLDAvis.prepare checks that rows sum to 1): an approximation, which the caller says;
 * *empty_rows counts the rows that kept no entry at all and became uniform. */
int lda_export_pyldavis(const lda_model *m, const corpus *docs, FILE *f, uint64_t *empty_rows, lda_error *err);

/* Needs m->z; docs as above, the very documents z covers (fails when their tokens are not
 * the model's N, e.g. a corpus that changed). Writes dir/topic_word_counts.npy and
 * dir/doc_topic_counts.npy (dir created if missing). */
int lda_export_counts(const lda_model *m, const corpus *docs, const char *dir, lda_error *err);

#endif
