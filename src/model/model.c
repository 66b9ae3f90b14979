/* model.c — from backend state to the user's model, and the model folder; see model.h. */
#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "model/matrix_file.h"
#include "model/topwords.h"
#include "util/atomic_file.h"
#include "util/config_file.h"
#include "util/gzlines.h"

void lda_model_free(lda_model *m)
{
    if (m->owns_vocab && m->vocab) {
        for (uint32_t w = 0; w < m->vocab_size; w++)
            free(m->vocab[w]);
        free(m->vocab);
    }
    free(m->corpus_path);
    free(m->vocab_path);
    free(m->stopwords_path);
    free(m->phi);
    free(m->theta);
    free(m->topic_tokens);
    free(m->z);
    memset(m, 0, sizeof *m);
}

/* Values of the keys added within format version 1, for folders that lack them. */
static void set_setting_defaults(lda_model *m)
{
    corpus_options defaults;
    corpus_options_default(&defaults);
    m->min_word_len = (uint32_t)defaults.min_word_len;
    m->min_df = defaults.min_df;
    m->max_df = defaults.max_df;
    m->max_vocab = defaults.max_vocab;
    m->holdout_iterations = 20;
}

int lda_model_from_state(lda_model *m, const corpus *c, const lda_layout *L, const lda_params *params,
                         uint32_t iterations, const char *corpus_path, const float *theta_slots,
                         const float *phi_vk, const uint32_t *z_positions, const uint32_t *n_k, lda_error *err)
{
    const uint32_t K = params->num_topics, V = c->vocab_size;
    memset(m, 0, sizeof *m);
    set_setting_defaults(m);
    m->num_topics = K;
    m->vocab_size = V;
    m->num_docs = c->num_input_docs;
    m->num_tokens = c->num_tokens;
    m->params = *params;
    m->params.alpha = lda_params_alpha(params);
    m->iterations = iterations;
    m->format = c->format;
    m->vocab = c->vocab;
    if (!(m->corpus_path = strdup(corpus_path ? corpus_path : "")) ||
        !(m->phi = lda_malloc_array((size_t)K * V, sizeof(float), "phi", err)) ||
        !(m->theta = lda_malloc_array(m->num_docs * K, sizeof(float), "theta", err)) ||
        !(m->topic_tokens = lda_malloc_array(K, sizeof(uint32_t), "topic sizes", err)) ||
        !(m->z = lda_malloc_array(c->num_tokens, sizeof(uint32_t), "z", err))) {
        if (!m->corpus_path)
            lda_error_fail(err, "out of memory");
        lda_model_free(m);
        return -1;
    }
    for (uint32_t w = 0; w < V; w++) /* V × K -> K × V */
        for (uint32_t k = 0; k < K; k++)
            m->phi[(size_t)k * V + w] = phi_vk[(size_t)w * K + k];
    for (size_t i = 0; i < m->num_docs * K; i++) /* empty documents keep the uniform row */
        m->theta[i] = 1.0f / (float)K;
    for (size_t d = 0; d < c->num_docs; d++) {
        size_t s = L->doc_slot[d];
        memcpy(m->theta + c->input_index[d] * K, theta_slots + s * K, K * sizeof(float));
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            m->z[c->doc_offsets[d] + i] = z_positions[lda_layout_pos(L, s, i)];
    }
    memcpy(m->topic_tokens, n_k, K * sizeof(uint32_t));
    return 0;
}

/* ---- writing ---- */

/* The shortest %g form that reads back as the same double ("0.1", not "0.10000000000000001"). */
static const char *shortest(double v, char buf[32])
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

int lda_model_write_conf(const lda_model *m, const char *path, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    const lda_params *p = &m->params;
    fprintf(af.f, "# ldagpu model; see README.md, \"The model folder\"\n");
    fprintf(af.f, "format_version = %u\n", LDA_MODEL_FORMAT_VERSION);
    fprintf(af.f, "topics = %u\nvocabulary = %u\ndocuments = %llu\ntokens = %llu\n", m->num_topics,
            m->vocab_size, (unsigned long long)m->num_docs, (unsigned long long)m->num_tokens);
    fprintf(af.f, "alpha = %.17g\nbeta = %.17g\niterations = %u\nseed = %llu\n", p->alpha, p->beta,
            m->iterations, (unsigned long long)p->seed);
    fprintf(af.f, "model = %s\nupdate = %s\nprecision = %s\nsampler = %s\n",
            lda_choice_name(lda_model_choices, lda_params_model(p)), lda_choice_name(lda_update_choices, p->update),
            lda_choice_name(lda_precision_choices, p->precision), lda_choice_name(lda_sampler_choices, p->sampler));
    fprintf(af.f, "refresh = %u\n", p->refresh);
    fprintf(af.f, "corpus = %s\ncorpus_format = %s\n", m->corpus_path, corpus_format_name(m->format));
    /* Added within format version 1: reading the corpus again, held-out documents, checksums. */
    if (m->vocab_path)
        fprintf(af.f, "vocab_file = %s\n", m->vocab_path);
    if (m->stopwords_path)
        fprintf(af.f, "stopwords = %s\n", m->stopwords_path);
    char b1[32], b2[32];
    fprintf(af.f, "min_word_length = %u\nmin_df = %llu\nmax_df = %s\nmax_vocab = %llu\n", m->min_word_len,
            (unsigned long long)m->min_df, shortest(m->max_df, b1), (unsigned long long)m->max_vocab);
    fprintf(af.f, "holdout = %s\nholdout_iterations = %u\nheldout_documents = %llu\n", shortest(m->holdout, b2),
            m->holdout_iterations, (unsigned long long)m->heldout_docs);
    if (m->corpus_checksum)
        fprintf(af.f, "corpus_checksum = %016llx\n", (unsigned long long)m->corpus_checksum);
    if (m->z_checksum)
        fprintf(af.f, "z_checksum = %016llx\n", (unsigned long long)m->z_checksum);
    return lda_atomic_commit(&af, err);
}

static int write_vocab(const lda_model *m, const char *path, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    for (uint32_t w = 0; w < m->vocab_size; w++)
        fprintf(af.f, "%s\n", m->vocab[w]);
    return lda_atomic_commit(&af, err);
}

static int write_topics(const lda_model *m, const char *path, uint32_t top_words, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    if (lda_model_print_topics(m, af.f, top_words, err)) {
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

int lda_model_print_topics(const lda_model *m, FILE *out, uint32_t top_words, lda_error *err)
{
    uint32_t n = top_words < m->vocab_size ? top_words : m->vocab_size;
    uint32_t *top = lda_malloc_array(n ? n : 1, sizeof *top, "top words", err);
    if (!top)
        return -1;
    uint64_t total = 0;
    for (uint32_t k = 0; k < m->num_topics; k++)
        total += m->topic_tokens[k];
    for (uint32_t k = 0; k < m->num_topics; k++) {
        lda_top_indices(m->phi + (size_t)k * m->vocab_size, m->vocab_size, n, top);
        fprintf(out, "topic %4u  %5.2f%% ", k, total ? 100.0 * m->topic_tokens[k] / (double)total : 0.0);
        for (uint32_t i = 0; i < n; i++)
            fprintf(out, " %s", m->vocab[top[i]]);
        fputc('\n', out);
    }
    free(top);
    return 0;
}

int lda_model_write(const lda_model *m, const char *dir, uint32_t top_words, lda_error *err)
{
    static const char *names[] = {"vocab.txt", "topics.txt", "model.conf"};
    enum { N = sizeof names / sizeof names[0] };
    char *paths[N] = {0};
    int rc = -1;
    if (lda_make_dirs(dir, err))
        return -1;
    for (int i = 0; i < N; i++)
        if (!(paths[i] = lda_path_join(dir, names[i], err)))
            goto out;
    /* model.conf last: a folder with a model.conf is complete. */
    if (write_vocab(m, paths[0], err) ||
        lda_matrix_save(dir, "phi", LDA_MATRIX_F32, m->num_topics, m->vocab_size, m->phi, err) ||
        lda_matrix_save(dir, "theta", LDA_MATRIX_F32, m->num_docs, m->num_topics, m->theta, err) ||
        lda_matrix_save(dir, "topic_tokens", LDA_MATRIX_U32, m->num_topics, 0, m->topic_tokens, err) ||
        lda_matrix_save(dir, "z", LDA_MATRIX_U32, m->num_tokens, 0, m->z, err) ||
        write_topics(m, paths[1], top_words, err) || lda_model_write_conf(m, paths[2], err))
        goto out;
    rc = 0;
out:
    for (int i = 0; i < N; i++)
        free(paths[i]);
    return rc;
}

/* ---- reading ---- */

typedef struct {
    lda_model *m;
    unsigned format_version;
} conf_ctx;

static int read_conf_key(void *vctx, const char *key, const char *value, const char *path, size_t line,
                         lda_error *err)
{
    conf_ctx *c = vctx;
    lda_model *m = c->m;
    char where[512];
    snprintf(where, sizeof where, "%s:%zu: %s", path, line, key);
    uint32_t u32;
    int choice;
    if (strcmp(key, "format_version") == 0) {
        if (lda_parse_u32(where, value, 1, UINT32_MAX, &u32, err))
            return -1;
        c->format_version = u32;
        if (u32 != LDA_MODEL_FORMAT_VERSION) {
            lda_error_input(err, "%s:%zu: model format version %u, this ldagpu reads version %u", path, line, u32,
                            LDA_MODEL_FORMAT_VERSION);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "topics") == 0)
        return lda_parse_u32(where, value, 1, UINT32_MAX, &m->num_topics, err);
    if (strcmp(key, "vocabulary") == 0)
        return lda_parse_u32(where, value, 1, UINT32_MAX, &m->vocab_size, err);
    if (strcmp(key, "documents") == 0)
        return lda_parse_u64(where, value, 0, UINT64_MAX, &m->num_docs, err);
    if (strcmp(key, "tokens") == 0)
        return lda_parse_u64(where, value, 0, UINT64_MAX, &m->num_tokens, err);
    if (strcmp(key, "alpha") == 0)
        return lda_parse_double(where, value, 0, 1, INFINITY, &m->params.alpha, err);
    if (strcmp(key, "beta") == 0)
        return lda_parse_double(where, value, 0, 1, INFINITY, &m->params.beta, err);
    if (strcmp(key, "iterations") == 0)
        return lda_parse_u32(where, value, 0, UINT32_MAX, &m->iterations, err);
    if (strcmp(key, "seed") == 0)
        return lda_parse_u64(where, value, 0, UINT64_MAX, &m->params.seed, err);
    if (strcmp(key, "update") == 0) {
        if (lda_parse_choice(where, value, lda_update_choices, &choice, err))
            return -1;
        m->params.update = (lda_update)choice;
        return 0;
    }
    if (strcmp(key, "model") == 0) {
        if (lda_parse_choice(where, value, lda_model_choices, &choice, err))
            return -1;
        lda_params_set_model(&m->params, (lda_model_kind)choice);
        return 0;
    }
    if (strcmp(key, "sampler") == 0) {
        if (lda_parse_choice(where, value, lda_sampler_choices, &choice, err))
            return -1;
        m->params.sampler = (lda_sampler)choice;
        return 0;
    }
    if (strcmp(key, "refresh") == 0) /* added within format version 1: absent means 1 */
        return lda_parse_u32(where, value, 1, 256, &m->params.refresh, err);
    if (strcmp(key, "precision") == 0) {
        if (lda_parse_choice(where, value, lda_precision_choices, &choice, err))
            return -1;
        m->params.precision = (lda_precision)choice;
        return 0;
    }
    if (strcmp(key, "corpus") == 0) {
        free(m->corpus_path);
        if (!(m->corpus_path = strdup(value))) {
            lda_error_fail(err, "out of memory");
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "corpus_format") == 0) {
        if (corpus_format_parse(value, &m->format)) {
            lda_error_input(err, "%s: unknown format '%s'", where, value);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "vocab_file") == 0 || strcmp(key, "stopwords") == 0) {
        char **dst = key[0] == 'v' ? &m->vocab_path : &m->stopwords_path;
        free(*dst);
        if (!(*dst = strdup(value))) {
            lda_error_fail(err, "out of memory");
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "min_word_length") == 0)
        return lda_parse_u32(where, value, 1, 1000, &m->min_word_len, err);
    if (strcmp(key, "min_df") == 0)
        return lda_parse_u64(where, value, 1, UINT64_MAX, &m->min_df, err);
    if (strcmp(key, "max_df") == 0)
        return lda_parse_double(where, value, 0, 1, 1.0, &m->max_df, err);
    if (strcmp(key, "max_vocab") == 0)
        return lda_parse_u64(where, value, 0, UINT32_MAX, &m->max_vocab, err);
    if (strcmp(key, "holdout") == 0)
        return lda_parse_double(where, value, 0, 0, 1.0, &m->holdout, err);
    if (strcmp(key, "holdout_iterations") == 0)
        return lda_parse_u32(where, value, 0, UINT32_MAX, &m->holdout_iterations, err);
    if (strcmp(key, "heldout_documents") == 0)
        return lda_parse_u64(where, value, 0, UINT64_MAX, &m->heldout_docs, err);
    if (strcmp(key, "corpus_checksum") == 0 || strcmp(key, "z_checksum") == 0) {
        uint64_t *dst = key[0] == 'c' ? &m->corpus_checksum : &m->z_checksum;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 16);
        if (!*value || *end || errno) {
            lda_error_input(err, "%s: expected 16 hexadecimal digits, got '%s'", where, value);
            return -1;
        }
        *dst = v;
        return 0;
    }
    return 0; /* keys from newer versions of the same format are ignored */
}

static int read_vocab(lda_model *m, const char *path, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    m->owns_vocab = 1;
    if (!(m->vocab = lda_calloc(m->vocab_size, sizeof *m->vocab, "vocabulary", err))) {
        gzlines_close(r);
        return -1;
    }
    uint32_t w = 0;
    char *line;
    size_t len;
    while ((line = gzlines_next(r, &len, err)) && w < m->vocab_size) {
        if (!(m->vocab[w++] = strdup(line))) {
            lda_error_fail(err, "out of memory");
            break;
        }
    }
    int failed = gzlines_failed(r) || (w > 0 && !m->vocab[w - 1]);
    if (!failed && (w != m->vocab_size || line)) {
        lda_error_input(err, "%s: expected %u words (model.conf says so), found %s%u", path, m->vocab_size,
                        line ? "more than " : "", w);
        failed = 1;
    }
    gzlines_close(r);
    return failed ? -1 : 0;
}

/* dir/NAME.npy, or the .bin of an older ldagpu (matrix_file.h), of the size model.conf implies. */
static int read_matrix_checked(const char *dir, const char *name, lda_matrix_type type, uint64_t rows,
                               uint64_t cols, void **data, lda_error *err)
{
    char *path = NULL;
    uint64_t r, c;
    int rc = lda_matrix_load(dir, name, type, &r, &c, data, &path, err);
    if (rc == 0 && (r != rows || c != cols)) {
        lda_error_input(err, "%s: %llu x %llu values, model.conf implies %llu x %llu", path, (unsigned long long)r,
                        (unsigned long long)c, (unsigned long long)rows, (unsigned long long)cols);
        free(*data);
        *data = NULL;
        rc = -1;
    }
    free(path);
    return rc;
}

void lda_model_corpus_options(const lda_model *m, corpus_options *opt)
{
    corpus_options_default(opt);
    opt->format = m->format;
    opt->vocab_path = m->vocab_path;
    opt->stopwords_path = m->stopwords_path;
    opt->min_word_len = (int)m->min_word_len;
    opt->min_df = (size_t)m->min_df;
    opt->max_df = m->max_df;
    opt->max_vocab = (size_t)m->max_vocab;
}

int lda_model_read_conf(lda_model *m, const char *dir, lda_error *err)
{
    memset(m, 0, sizeof *m);
    lda_params_default(&m->params);
    set_setting_defaults(m);
    conf_ctx c = {m, 0};
    char *conf = lda_path_join(dir, "model.conf", err);
    int rc = -1;
    if (!conf)
        return -1;
    if (lda_config_read(conf, read_conf_key, &c, err))
        goto out;
    if (!c.format_version || !m->num_topics || !m->vocab_size) {
        lda_error_input(err, "%s: not an ldagpu model (format_version, topics or vocabulary missing)", conf);
        goto out;
    }
    m->params.num_topics = m->num_topics;
    rc = 0;
out:
    free(conf);
    if (rc)
        lda_model_free(m);
    return rc;
}

int lda_model_read(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err)
{
    char *vocab = NULL;
    int rc = -1;
    if (lda_model_read_conf(m, dir, err))
        return -1;
    if (!(vocab = lda_path_join(dir, "vocab.txt", err)) || read_vocab(m, vocab, err) ||
        read_matrix_checked(dir, "phi", LDA_MATRIX_F32, m->num_topics, m->vocab_size, (void **)&m->phi, err) ||
        read_matrix_checked(dir, "topic_tokens", LDA_MATRIX_U32, m->num_topics, 1, (void **)&m->topic_tokens,
                            err) ||
        (with_theta && read_matrix_checked(dir, "theta", LDA_MATRIX_F32, m->num_docs, m->num_topics,
                                           (void **)&m->theta, err)) ||
        (with_z && read_matrix_checked(dir, "z", LDA_MATRIX_U32, m->num_tokens, 1, (void **)&m->z, err)))
        goto out;
    rc = 0;
out:
    free(vocab);
    if (rc)
        lda_model_free(m);
    return rc;
}
