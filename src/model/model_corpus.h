/* model_corpus.h — documents in a trained model's terms: a corpus read against the model's
 * vocabulary (its word ids are the model's; unknown words are counted and skipped), and φ
 * in the backend's orientation. Shared by infer, eval and topics --coherence. */
#ifndef LDA_MODEL_CORPUS_H
#define LDA_MODEL_CORPUS_H

#include "core/error.h"
#include "corpus/corpus.h"
#include "model/model.h"

/* Reads path with the model's tokenizer settings and fixed vocabulary. format and
 * vocab_path describe this file (CORPUS_FORMAT_AUTO and NULL: detected and derived; a file
 * detected as text is read in the named text format the model's corpus had, if it had one). */
corpus *lda_model_read_corpus(const lda_model *m, const char *path, corpus_format format, const char *vocab_path,
                              lda_error *err);

/* The model's training corpus (model.conf's settings; read from `path`, e.g. after it moved,
 * or from model.conf's path when NULL), against its vocabulary, as it reads now (whether it is
 * still the corpus of the model is lda_trained_documents's check, heldout.h). */
corpus *lda_model_read_training_corpus(const lda_model *m, const char *path, lda_error *err);

/* φ as V × K (backend order), from the model's K × V. */
float *lda_model_phi_vk(const lda_model *m, lda_error *err);

#endif
