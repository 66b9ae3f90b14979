/* generate.h — a synthetic LDA corpus drawn from planted topics (ldagpu generate): a corpus of
 * any size made where it is needed (10^9 tokens in minutes on 16 cores), and the truth it
 * came from, so a trained model can be checked against it.
 *
 * φ_k ~ Dirichlet(β) for K topics over V words, θ_d ~ Dirichlet(α) per document, the length of
 * document d from doc_lengths.h, and each of its tokens z ~ θ_d, w ~ φ_z: one Philox block a
 * token, the topics drawn with θ_d integrated out (a Pólya urn, planted_model.h: the same law,
 * without K Gamma variates a document), the word from the topic's alias table (core/alias.h,
 * the topics' tables built once). Every random number is keyed on (seed, purpose, topic or document),
 * so the files are the same bytes for any thread count. A document is written as its bag of
 * words in word order (UCI triples, or the binary form's ids sorted likewise), so both forms
 * read back as the same corpus.
 *
 * Files: the corpus (gen_output.h), PATH.phi.npy (K × V float32, row k = φ_k: a model's
 * phi.npy layout) and with want_theta PATH.theta.npy (D × K float32; each row drawn given the
 * document's topics, so θ and the corpus have the law of θ first). Documents are made in
 * blocks, a round of blocks at a time over the threads, and written in order while the next
 * round is made, so the memory used does not grow with the corpus (but for the lengths, 4
 * bytes a document, and θ when asked for). */
#ifndef LDA_GENERATE_H
#define LDA_GENERATE_H

#include <stdint.h>

#include "corpus/corpus.h"
#include "synth/doc_lengths.h"

typedef struct {
    const char *output;       /* the corpus file */
    corpus_format format;     /* CORPUS_FORMAT_UCI or CORPUS_FORMAT_BINARY */
    uint64_t num_docs;
    lda_length_spec lengths;
    uint32_t vocab_size, num_topics;
    double alpha, beta;
    uint64_t seed;
    int threads;              /* <= 0: every core */
    int want_theta;           /* write PATH.theta.npy too */
} lda_generate_options;

typedef struct {
    uint64_t num_tokens;
    double topics_seconds;       /* of the run's time, the planted topics' (K × V Gamma variates) */
    char *phi_path, *theta_path; /* malloc'ed; theta_path NULL unless asked for */
} lda_generate_result;

/* Checks the options, draws and writes everything. -1 with err: status 2 for options out of
 * range (a corpus beyond corpus.h's limits included), 1 for memory or a file not written. */
int lda_generate(const lda_generate_options *o, lda_generate_result *result, lda_error *err);
void lda_generate_result_free(lda_generate_result *result);

#endif
