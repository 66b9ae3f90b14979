/* phi_model.c — see phi_model.h. */
#include "model/phi_model.h"

#include <string.h>

#include "corpus/vocab_file.h"
#include "model/matrix_file.h"
#include "model/model_check.h"

int lda_model_from_phi(lda_model *m, const char *phi_path, const char *vocab_path, double alpha, lda_error *err)
{
    memset(m, 0, sizeof *m);
    lda_settings_default(&m->settings);
    uint32_t words = 0;
    if (vocab_file_read(vocab_path, 0, NULL, &m->vocab, &words, err))
        return -1;
    m->owns_vocab = 1;
    m->vocab_size = words;
    uint64_t rows = 0, cols = 0;
    if (lda_matrix_read(phi_path, LDA_MATRIX_F32, &rows, &cols, (void **)&m->phi, err))
        goto fail;
    if (cols != words || rows == 0 || rows > UINT32_MAX) {
        lda_error_input(err, "%s: φ has %llu topics of %llu words, where %s lists %u words (φ is K x V: a row a "
                        "topic, a column a word of the vocabulary)", phi_path, (unsigned long long)rows,
                        (unsigned long long)cols, vocab_path, words);
        goto fail;
    }
    m->num_topics = (uint32_t)rows;
    if (lda_model_check_phi(m, phi_path, err))
        goto fail;
    lda_params *p = &m->settings.params;
    p->num_topics = m->num_topics;
    p->alpha = alpha;
    lda_params_set_model(p, LDA_MODEL_RECOMMENDED);
    p->sampler = LDA_SAMPLER_AUTO; /* the library default is the paper's sampler; train's is auto */
    lda_params_resolve_sampler(p);
    return 0;
fail:
    lda_model_free(m);
    return -1;
}
