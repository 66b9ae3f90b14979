/* doc_names.h — a model's document names and labels, from a corpus with names (--format mallet
 * or named: corpus/text_fields.h).
 *
 * In the model folder: doc_names.txt and doc_labels.txt, one line an input document in input
 * order (the rows of θ, whatever its form; empty and held-out documents included). model.conf
 * says which there are (document_names = yes, document_labels = yes), so a file left from an
 * earlier model in the same folder is never taken for this one's; read back, each must have
 * model.conf's `documents` lines, each a name (label) a corpus may have. A model without names
 * has neither file, and its outputs name documents by their 0-based row. */
#ifndef LDA_DOC_NAMES_H
#define LDA_DOC_NAMES_H

#include <stdint.h>

#include "core/error.h"
#include "model/model.h"

#define LDA_DOC_NAMES_FILE "doc_names.txt"
#define LDA_DOC_LABELS_FILE "doc_labels.txt"

/* Writes m's names and labels into dir (those it has), each file atomically. */
int lda_doc_names_write(const lda_model *m, const char *dir, lda_error *err);
/* Removes the files of dir that m has no names or labels for (after model.conf is written). */
int lda_doc_names_remove_absent(const lda_model *m, const char *dir, lda_error *err);
/* Reads into m the names and labels its model.conf says dir holds. */
int lda_doc_names_read(lda_model *m, const char *dir, lda_error *err);

/* How an output names document d (0-based): its name, or its row number written in buf. */
const char *lda_doc_name(const lda_string_list *names, uint64_t d, char buf[24]);

#endif
