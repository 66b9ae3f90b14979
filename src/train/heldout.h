/* heldout.h — held-out documents: which ones (the split), and how they are scored
 * (document completion).
 *
 * The split: input document i is held out when lda_rng_once(seed, LDA_RNG_SPLIT, 0, i)
 * < fraction·2^32, so the choice depends only on the seed, the fraction and the document's
 * position in the input (not on the layout, the device or the other documents).
 *
 * Document completion (Wallach et al., "Evaluation methods for topic models", 2009): each
 * held-out document of at least 2 tokens is cut into its first ⌊len/2⌋ tokens (the
 * estimation half) and the rest (the scored half); θ is estimated on the estimation halves
 * with φ fixed (inference.h), and the figure is the mean over the scored halves' tokens of
 * log Σ_k θ[d,k] φ[w,k]. Documents of one token cannot be split and are not scored. The
 * training log (--holdout) and `ldagpu eval` both call lda_completion_run, so with the same
 * documents, φ, seed and sweeps they give the same number. */
#ifndef LDA_HELDOUT_H
#define LDA_HELDOUT_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"
#include "core/priors.h"
#include "corpus/corpus.h"
#include "model/model.h"

/* 1 when input document `input_index` is held out. */
int lda_heldout_selected(uint64_t seed, double fraction, uint64_t input_index);

/* The kept documents d of c with keep[d] set, as a new corpus with the same word ids,
 * input indices and num_input_docs (so θ rows stay in the input's order). With with_vocab
 * the vocabulary and the documents' names and labels are copied; without, vocab, names and
 * labels are NULL (vocab_size is kept). */
corpus *lda_corpus_subset(const corpus *c, const unsigned char *keep, int with_vocab, lda_error *err);

/* The documents model m (the folder dir) was trained on: its training corpus
 * (lda_model_read_training_corpus: from `path`, or model.conf's path when NULL) without the
 * held-out documents; input_index still counts every input document. θ's rows and z are
 * indexed by these documents, so a corpus that is not the model's is refused (status 2, with
 * *mismatch set; 0 when the corpus could not be read at all): other documents or tokens to
 * train on than model.conf records, or, at the same sizes, another corpus_checksum. */
corpus *lda_trained_documents(const lda_model *m, const char *dir, const char *path, int *mismatch, lda_error *err);

/* Splits c into the documents trained on (*train, with the vocabulary) and those held out
 * (*heldout, without; possibly none). Fails when every document would be held out. */
int lda_heldout_split(const corpus *c, double fraction, uint64_t seed, corpus **train, corpus **heldout,
                      lda_error *err);

/* The seed of the held-out evaluation done after iteration `iteration` of a run seeded
 * `seed` (so every evaluation has its own random stream, and `ldagpu eval` can redo one). */
uint64_t lda_heldout_seed(uint64_t seed, uint32_t iteration);

typedef struct {
    lda_params params;         /* num_topics, alpha, precision, device, sampler, threads */
    corpus *estimate, *scored; /* the two halves of each document scored */
    lda_layout *estimate_layout, *scored_layout;
    size_t num_docs;           /* documents scored */
    size_t num_short_docs;     /* documents of one token, not scored */
    size_t num_tokens;         /* tokens scored */
} lda_completion;

/* Prepares document completion of the documents of `docs` (they may lack a vocabulary;
 * vocab_size must be the model's V). params->seed is ignored (lda_completion_run's). Fails
 * when no document has 2 tokens. */
int lda_completion_init(lda_completion *c, const corpus *docs, const lda_params *params, lda_error *err);
/* φ (V × K) and the priors (NULL: the symmetric α of the params) fixed, `iterations` sweeps
 * keyed on seed; *loglik_per_token gets the mean log-likelihood of the scored halves' tokens. */
int lda_completion_run(const lda_completion *c, const float *phi_vk, const lda_priors *priors, uint64_t seed,
                       uint32_t iterations, double *loglik_per_token, lda_error *err);
void lda_completion_free(lda_completion *c);

typedef struct {
    double loglik_per_token; /* the mean log-likelihood of the scored tokens */
    size_t num_docs, num_short_docs, num_tokens; /* as lda_completion's */
} lda_completion_result;

/* Document completion of docs (in m's vocabulary) under model m, its φ and its priors at the end
 * of training, as `ldagpu eval` scores them: p's device, threads and sampler, `iterations` sweeps
 * keyed on seed (a figure of eval's is keyed on lda_heldout_seed(its seed, m->iterations)). */
int lda_model_completion(const lda_model *m, const corpus *docs, const lda_params *p, uint64_t seed,
                         uint32_t iterations, lda_completion_result *out, lda_error *err);

#endif
