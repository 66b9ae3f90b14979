/* model.c — from backend state to the user's model, and the model folder; see model.h. */
#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/parse.h"
#include "model/doc_names.h"
#include "model/manifest.h"
#include "model/matrix_file.h"
#include "model/model_folder.h"
#include "model/model_stopwords.h"
#include "model/model_check.h"
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
    lda_settings_free_strings(&m->settings);
    free(m->phi);
    lda_theta_free(&m->theta);
    free(m->topic_tokens);
    free(m->alpha_learned);
    free(m->z);
    lda_string_list_free(m->doc_names);
    lda_string_list_free(m->doc_labels);
    memset(m, 0, sizeof *m);
}

int lda_model_from_state(lda_model *m, const corpus *c, const lda_layout *L, const lda_params *params,
                         uint32_t iterations, const char *corpus_path, const float *phi_vk,
                         const uint32_t *z_positions, const uint32_t *n_k, lda_error *err)
{
    const uint32_t K = params->num_topics, V = c->vocab_size;
    memset(m, 0, sizeof *m);
    lda_settings_default(&m->settings);
    m->num_topics = K;
    m->vocab_size = V;
    m->num_docs = c->num_input_docs;
    m->num_tokens = c->num_tokens;
    m->settings.params = *params;
    m->settings.params.alpha = lda_params_alpha(params);
    m->settings.corpus.format = c->format;
    m->iterations = iterations;
    m->vocab = c->vocab;
    if (!(m->corpus_path = strdup(corpus_path ? corpus_path : "")) ||
        !(m->phi = lda_malloc_array((size_t)K * V, sizeof(float), "phi", err)) ||
        !(m->topic_tokens = lda_malloc_array(K, sizeof(uint32_t), "topic sizes", err)) ||
        !(m->z = lda_malloc_array(c->num_tokens, sizeof(uint32_t), "z", err)) ||
        (c->names && !(m->doc_names = lda_string_list_copy(c->names, err))) ||
        (c->labels && !(m->doc_labels = lda_string_list_copy(c->labels, err)))) {
        if (!m->corpus_path)
            lda_error_fail(err, "out of memory");
        lda_model_free(m);
        return -1;
    }
    for (uint32_t w = 0; w < V; w++) /* V × K -> K × V */
        for (uint32_t k = 0; k < K; k++)
            m->phi[(size_t)k * V + w] = phi_vk[(size_t)w * K + k];
    lda_layout_z_to_corpus_order(L, z_positions, m->z);
    memcpy(m->topic_tokens, n_k, K * sizeof(uint32_t));
    return 0;
}

/* ---- writing ---- */

int lda_model_write_conf(const lda_model *m, const char *path, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    fprintf(af.f, "# ldagpu model; its files and keys: docs/file-formats.md\n");
    fprintf(af.f, "format_version = %u\n", LDA_MODEL_FORMAT_VERSION);
    fprintf(af.f, "vocabulary = %u\ndocuments = %llu\ntokens = %llu\niterations = %u\n", m->vocab_size,
            (unsigned long long)m->num_docs, (unsigned long long)m->num_tokens, m->iterations);
    lda_config_write(af.f, "corpus", m->corpus_path); /* a path: quoted where it must be (config_file.h) */
    lda_settings_write(af.f, &m->settings);
    /* Added within format version 1: held-out documents, checksums, learned priors. */
    fprintf(af.f, "heldout_documents = %llu\n", (unsigned long long)m->heldout_docs);
    if (m->alpha_learned) /* the learned α is alpha.npy */
        fprintf(af.f, "learned_beta = %.9g\n", m->beta_learned);
    if (m->corpus_checksum)
        fprintf(af.f, "corpus_checksum = %016llx\n", (unsigned long long)m->corpus_checksum);
    if (m->z_checksum)
        fprintf(af.f, "z_checksum = %016llx\n", (unsigned long long)m->z_checksum);
    if (m->doc_names) /* doc_names.h */
        fprintf(af.f, "document_names = yes\n");
    if (m->doc_labels)
        fprintf(af.f, "document_labels = yes\n");
    if (m->run_id)
        fprintf(af.f, "run_id = %016llx\n", (unsigned long long)m->run_id);
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

const char *const lda_model_files[] = {"model.conf", "vocab.txt", "phi.npy", "topic_tokens.npy", "z.npy",
                                      "alpha.npy", "topics.txt", LDA_DOC_NAMES_FILE, LDA_DOC_LABELS_FILE,
                                      LDA_MODEL_STOPWORDS_FILE, "log.csv", "heldout.txt", LDA_MANIFEST_NAME,
                                      "phi.bin", "topic_tokens.bin", "z.bin", "alpha.bin", NULL};

/* m->theta is in the form model.conf will name. */
static int check_theta_form(const lda_model *m, lda_error *err)
{
    const lda_doc_topics want =
        lda_doc_topics_resolve(&m->settings.doc_topics, m->num_docs, m->num_topics, NULL, 0);
    const lda_theta *t = &m->theta;
    if (lda_doc_topics_same(&want, &t->form) &&
        (want.form == LDA_DOC_TOPICS_NONE || (t->num_docs == m->num_docs && t->num_topics == m->num_topics)))
        return 0;
    char a[64], b[64];
    lda_error_fail(err, "internal error: θ is %s, the model's doc_topics %s",
                   lda_doc_topics_format(&t->form, a, sizeof a), lda_doc_topics_format(&want, b, sizeof b));
    return -1;
}

int lda_model_write(const lda_model *m, const char *dir, uint32_t top_words, lda_error *err)
{
    static const char *names[] = {"vocab.txt", "topics.txt", "model.conf"};
    enum { N = sizeof names / sizeof names[0] };
    char *paths[N] = {0};
    int rc = -1;
    if (check_theta_form(m, err) || lda_make_dirs(dir, err))
        return -1;
    for (int i = 0; i < N; i++)
        if (!(paths[i] = lda_path_join(dir, names[i], err)))
            goto out;
    /* model.conf last: a folder with a model.conf is complete. Another form's θ files go
     * after it: until then they are what the old model.conf names. */
    if (write_vocab(m, paths[0], err) ||
        lda_matrix_save(dir, "phi", LDA_MATRIX_F32, m->num_topics, m->vocab_size, m->phi, err) ||
        lda_theta_write(&m->theta, dir, err) ||
        lda_matrix_save(dir, "topic_tokens", LDA_MATRIX_U32, m->num_topics, 0, m->topic_tokens, err) ||
        lda_matrix_save(dir, "z", LDA_MATRIX_U32, m->num_tokens, 0, m->z, err) || lda_model_write_priors(m, dir, err) ||
        write_topics(m, paths[1], top_words, err) || lda_doc_names_write(m, dir, err) ||
        lda_model_write_stopwords(m, dir, err) || lda_model_write_conf(m, paths[2], err) ||
        lda_theta_remove_other_forms(m->theta.form.form, dir, err) || lda_doc_names_remove_absent(m, dir, err))
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

/* model.conf: the facts about the model (sizes, iterations, corpus, checksums) here; every
 * setting through the table (settings.c). */
static int read_conf_key(void *vctx, const char *key, const char *value, const char *path, size_t line,
                         lda_error *err)
{
    conf_ctx *c = vctx;
    lda_model *m = c->m;
    char where[512];
    snprintf(where, sizeof where, "%s:%zu: %s", path, line, key);
    uint32_t u32;
    const lda_setting *setting = lda_setting_by_key(key);
    if (setting)
        return lda_setting_parse(setting, where, value, &m->settings, 1, err);
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
    /* Sizes within what a corpus can have (corpus.h), so that none overflows what is computed
     * from them. */
    if (strcmp(key, "vocabulary") == 0)
        return lda_parse_u32(where, value, 1, UINT32_MAX - 1, &m->vocab_size, err);
    if (strcmp(key, "documents") == 0)
        return lda_parse_u64(where, value, 0, LDA_MODEL_MAX_DOCS, &m->num_docs, err);
    if (strcmp(key, "tokens") == 0)
        return lda_parse_u64(where, value, 0, CORPUS_MAX_TOKENS, &m->num_tokens, err);
    if (strcmp(key, "iterations") == 0)
        return lda_parse_u32(where, value, 0, UINT32_MAX, &m->iterations, err);
    if (strcmp(key, "corpus") == 0) {
        free(m->corpus_path);
        if (!(m->corpus_path = strdup(value))) {
            lda_error_fail(err, "out of memory");
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "heldout_documents") == 0)
        return lda_parse_u64(where, value, 0, LDA_MODEL_MAX_DOCS, &m->heldout_docs, err);
    if (strcmp(key, "document_names") == 0 || strcmp(key, "document_labels") == 0) {
        int *has = strcmp(key, "document_names") == 0 ? &m->has_doc_names : &m->has_doc_labels;
        if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0) {
            lda_error_input(err, "%s: expected yes or no, got '%s'", where, value);
            return -1;
        }
        *has = value[0] == 'y';
        return 0;
    }
    if (strcmp(key, "learned_beta") == 0)
        return lda_parse_double(where, value, 0, 1, INFINITY, &m->beta_learned, err);
    if (strcmp(key, "corpus_checksum") == 0 || strcmp(key, "z_checksum") == 0 || strcmp(key, "run_id") == 0) {
        uint64_t *dst = key[0] == 'c' ? &m->corpus_checksum : key[0] == 'z' ? &m->z_checksum : &m->run_id;
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

/* An array of the model read with the size model.conf implies, then its values checked
 * (model_check.h). */
static int load_checked(lda_model *m, const char *dir, const char *name, lda_matrix_type type, uint64_t rows,
                        uint64_t cols, void **data, int (*check)(const lda_model *, const char *, lda_error *),
                        lda_error *err)
{
    char *path = NULL;
    int failed = lda_matrix_load_sized(dir, name, type, rows, cols, data, &path, err) || check(m, path, err);
    free(path);
    return failed ? -1 : 0;
}

int lda_model_read_priors(lda_model *m, const char *dir, lda_error *err)
{
    if (!(m->beta_learned > 0))
        return 0;
    return load_checked(m, dir, "alpha", LDA_MATRIX_F32, m->num_topics, 1, (void **)&m->alpha_learned,
                        lda_model_check_alpha, err);
}

int lda_model_write_priors(const lda_model *m, const char *dir, lda_error *err)
{
    if (!m->alpha_learned)
        return 0;
    return lda_matrix_save(dir, "alpha", LDA_MATRIX_F32, m->num_topics, 0, m->alpha_learned, err);
}

int lda_model_priors(const lda_model *m, lda_priors *out, lda_error *err)
{
    const lda_params *p = &m->settings.params;
    if (lda_priors_init(out, m->num_topics, p->alpha, p->beta, err))
        return -1;
    if (!m->alpha_learned)
        return 0;
    double *alpha = lda_malloc_array(m->num_topics, sizeof *alpha, "priors", err);
    if (!alpha) {
        lda_priors_free(out);
        return -1;
    }
    for (uint32_t k = 0; k < m->num_topics; k++)
        alpha[k] = m->alpha_learned[k];
    lda_priors_learn(out, alpha, m->beta_learned);
    free(alpha);
    return 0;
}

int lda_model_read_conf(lda_model *m, const char *dir, lda_error *err)
{
    memset(m, 0, sizeof *m);
    lda_settings_default(&m->settings);
    m->settings.params.num_topics = 0; /* required: a model.conf without it is not a model's */
    m->settings.params.piece_length = 0; /* folders from before pieces: documents were never cut */
    m->settings.params.optimize_mode = LDA_OPTIMIZE_EVERY; /* folders from before the mode learned at every interval */
    m->settings.doc_topics = (lda_doc_topics){LDA_DOC_TOPICS_DENSE, 0, 0.0}; /* before doc_topics: theta.npy */
    conf_ctx c = {m, 0};
    char *conf = lda_path_join(dir, "model.conf", err);
    int rc = -1;
    if (!conf)
        return -1;
    if (lda_config_read(conf, read_conf_key, &c, NULL, err) || lda_model_find_stopwords(m, dir, err))
        goto out;
    m->num_topics = m->settings.params.num_topics;
    if (!c.format_version || !m->num_topics || !m->vocab_size) {
        lda_error_input(err, "%s: not an ldagpu model (format_version, topics or vocabulary missing)", conf);
        goto out;
    }
    if (lda_model_check_conf(m, conf, err))
        goto out;
    m->settings.doc_topics = lda_doc_topics_resolve(&m->settings.doc_topics, m->num_docs, m->num_topics, NULL, 0);
    rc = 0;
out:
    free(conf);
    if (rc)
        lda_model_free(m);
    return rc;
}

static int read_model(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err)
{
    char *vocab = NULL;
    int rc = -1;
    if (lda_model_read_conf(m, dir, err))
        return -1;
    if (!(vocab = lda_path_join(dir, "vocab.txt", err)) || read_vocab(m, vocab, err) ||
        lda_model_check_vocab(m, vocab, err) ||
        load_checked(m, dir, "phi", LDA_MATRIX_F32, m->num_topics, m->vocab_size, (void **)&m->phi,
                     lda_model_check_phi, err) ||
        load_checked(m, dir, "topic_tokens", LDA_MATRIX_U32, m->num_topics, 1, (void **)&m->topic_tokens,
                     lda_model_check_topic_tokens, err) ||
        (with_theta &&
         lda_theta_read(&m->theta, dir, &m->settings.doc_topics, m->num_docs, m->num_topics, err)) ||
        (with_z && load_checked(m, dir, "z", LDA_MATRIX_U32, m->num_tokens, 1, (void **)&m->z, lda_model_check_z,
                                err)) ||
        lda_model_read_priors(m, dir, err) || lda_doc_names_read(m, dir, err))
        goto out;
    rc = 0;
out:
    free(vocab);
    if (rc)
        lda_model_free(m);
    return rc;
}

/* The files the manifest lists that a read without θ or z leaves alone. */
static void unread_files(int with_theta, int with_z, const char **skip, size_t size)
{
    size_t n = 0;
    for (const char *const *f = lda_doc_topics_all_files; !with_theta && *f && n + 3 < size; f++)
        skip[n++] = *f;
    if (!with_z) {
        skip[n++] = "z.npy";
        skip[n++] = "z.bin";
    }
    skip[n] = NULL;
}

/* The folder as one unit: its files checked against its manifest, and the same folder at the
 * end as at the start (a run may swap a new model in meanwhile, model_folder.h: then it is
 * read again). Its files become the command's inputs, which no output may replace. */
int lda_model_read(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err)
{
    const char *skip[32];
    unread_files(with_theta, with_z, skip, sizeof skip / sizeof skip[0]);
    for (int attempt = 0;; attempt++) {
        struct stat before, after;
        const int known = stat(dir, &before) == 0;
        /* The readers' own checks first: their messages say more about a damaged file. */
        int rc = read_model(m, dir, with_theta, with_z, err);
        if (rc == 0 && (lda_manifest_verify(dir, skip, err) || lda_model_folder_protect(dir, err))) {
            lda_model_free(m);
            rc = -1;
        }
        if (!known || (stat(dir, &after) == 0 && after.st_dev == before.st_dev && after.st_ino == before.st_ino))
            return rc;
        if (rc == 0)
            lda_model_free(m);
        if (attempt) {
            lda_error_fail(err, "%s was replaced while it was read, twice (runs writing into it); read it again", dir);
            return -1;
        }
    }
}
