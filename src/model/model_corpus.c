/* model_corpus.c — see model_corpus.h. */
#include "model/model_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_read.h"

/* A file given without a format that reads as text is read in the named text format of the
 * model's corpus (text_fields.h): new documents laid out as the training ones keep their names,
 * and their names and labels are not taken for words. */
static int choose_format(const lda_model *m, const char *path, corpus_format *format, lda_error *err)
{
    const corpus_format trained = m->settings.corpus.format;
    if (*format != CORPUS_FORMAT_AUTO || trained == CORPUS_FORMAT_TEXT || !corpus_format_is_text(trained))
        return 0;
    if (corpus_detect_format(path, format, err))
        return -1;
    if (*format == CORPUS_FORMAT_TEXT)
        *format = trained;
    return 0;
}

corpus *lda_model_read_corpus(const lda_model *m, const char *path, corpus_format format, const char *vocab_path,
                              lda_error *err)
{
    const corpus_format given = format;
    if (choose_format(m, path, &format, err))
        return NULL;
    corpus_options opt = m->settings.corpus;
    opt.format = format;
    opt.vocab_path = vocab_path;
    opt.fixed_vocab = m->vocab;
    opt.fixed_vocab_size = m->vocab_size;
    corpus *c = corpus_read(path, &opt, err);
    if (!c && given != format && err->status == LDA_EXIT_BAD_INPUT) {
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
