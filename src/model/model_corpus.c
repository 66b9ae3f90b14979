/* model_corpus.c — see model_corpus.h. */
#include "model/model_corpus.h"

#include <stdlib.h>

#include "corpus/corpus_read.h"

corpus *lda_model_read_corpus(const lda_model *m, const char *path, corpus_format format, const char *vocab_path,
                              lda_error *err)
{
    corpus_options opt = m->settings.corpus;
    opt.format = format;
    opt.vocab_path = vocab_path;
    opt.fixed_vocab = m->vocab;
    opt.fixed_vocab_size = m->vocab_size;
    return corpus_read(path, &opt, err);
}

corpus *lda_model_read_training_corpus(const lda_model *m, const char *path, lda_error *err)
{
    if (!path && (!m->corpus_path || !m->corpus_path[0])) {
        lda_error_input(err, "the model does not say which corpus it was trained on");
        return NULL;
    }
    return lda_model_read_corpus(m, path ? path : m->corpus_path, m->settings.corpus.format,
                                 m->settings.corpus.vocab_path, err);
}

float *lda_model_phi_vk(const lda_model *m, lda_error *err)
{
    const size_t K = m->num_topics, V = m->vocab_size;
    float *phi = lda_malloc_array(V * K, sizeof *phi, "phi", err);
    if (!phi)
        return NULL;
    for (size_t k = 0; k < K; k++)
        for (size_t w = 0; w < V; w++)
            phi[w * K + k] = m->phi[k * V + w];
    return phi;
}
