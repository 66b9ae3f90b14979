/* model_corpus.c — see model_corpus.h. */
#include "model/model_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_read.h"
#include "corpus/vocab_file.h"
#include "util/input.h"

int lda_model_check_recorded_files(const char *corpus_path, const corpus_options *c, lda_error *err)
{
    const struct {
        const char *path, *why;
    } files[] = {
        {corpus_path, "model.conf names it as the training corpus, which must be a file to be read again"},
        {vocab_is_none(c->vocab_path) ? NULL : c->vocab_path,
         "model.conf names it as the vocabulary file, which must be a file to be read again"},
        {c->stopwords_path && strcmp(c->stopwords_path, "none") != 0 ? c->stopwords_path : NULL,
         "model.conf names it as the stop-word list, which must be a file to be read again"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i].path && files[i].path[0] && lda_input_require_regular(files[i].path, files[i].why, err))
            return -1;
    return 0;
}

/* A file given without a format that reads as plain text is read in the named text format of the
 * model's corpus (text_fields.h): new documents laid out as the training ones keep their names,
 * and their names and labels are not taken for words. */
corpus *lda_model_read_corpus(const lda_model *m, const char *path, corpus_format format, const char *vocab_path,
                              lda_error *err)
{
    const corpus_format trained = m->settings.corpus.format;
    const corpus_format text_as = corpus_format_is_text(trained) ? trained : CORPUS_FORMAT_TEXT;
    corpus_options opt = m->settings.corpus;
    opt.format = format;
    opt.vocab_path = vocab_path;
    opt.fixed_vocab = m->vocab;
    opt.fixed_vocab_size = m->vocab_size;
    corpus_format read_as;
    corpus *c = corpus_read_as(path, &opt, text_as, &read_as, err);
    if (!c && read_as != format && read_as == text_as && text_as != CORPUS_FORMAT_TEXT &&
        err->status == LDA_EXIT_BAD_INPUT) {
        const size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (read as the model's corpus was; --format text reads plain "
                 "lines)");
    }
    return c;
}

corpus *lda_model_read_training_corpus(const lda_model *m, const char *path, lda_error *err)
{
    if (!path && (!m->corpus_path || !m->corpus_path[0])) {
        lda_error_input(err, "the model does not say which corpus it was trained on");
        return NULL;
    }
    if (lda_model_check_recorded_files(path ? NULL : m->corpus_path, &m->settings.corpus, err))
        return NULL;
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
