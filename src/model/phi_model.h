/* phi_model.h — a model made of topics alone: φ from a .npy file and the vocabulary its columns
 * follow, with a symmetric α. `ldagpu eval --phi` scores documents under it, so the topics another
 * program learned (written as φ) go through the same document completion as ldagpu's own models.
 *
 * φ is K × V float32 (.npy, as a model folder's phi.npy: row k = p(word | topic k)), each row a
 * distribution (model_check.h's rule); the vocabulary is one word a line, V lines, word i naming
 * column i. The model's settings are the defaults with the recommended model (collapsed: θ is
 * estimated by collapsed Gibbs sweeps, as a collapsed model of ldagpu is evaluated), the sampler
 * resolved, and α; it has no documents, z or θ, and 0 iterations (the evaluation's seed is
 * heldout.h's lda_heldout_seed(seed, 0)). */
#ifndef LDA_PHI_MODEL_H
#define LDA_PHI_MODEL_H

#include "core/error.h"
#include "model/model.h"

/* Fills m (free it with lda_model_free). A φ whose columns are not the vocabulary's words, or
 * whose rows are not distributions, is refused naming the file (status 2). */
int lda_model_from_phi(lda_model *m, const char *phi_path, const char *vocab_path, double alpha, lda_error *err);

#endif
