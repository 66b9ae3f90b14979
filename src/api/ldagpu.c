/* ldagpu.c — the library's C API (include/ldagpu.h) over the trainer, the readers and the model
 * folder: handles that hold what the command line's code works on, errors turned into values.
 * Corpora made from texts go through the text reader by a temporary file (api_texts.c), so the
 * library has one tokenizer, the command line's. */
#include "ldagpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "backend/backend.h"
#include "backend/layout.h"
#include "cli/cli_parse.h"
#include "core/version.h"
#include "corpus/corpus_internal.h"
#include "corpus/corpus_read.h"
#include "corpus/vocab_check.h"
#include "model/checkpoint.h"
#include "model/model_corpus.h"
#include "model/model_stopwords.h"
#include "train/heldout.h"
#include "train/inference.h"
#include "train/train_settings.h"

int ldagpu_api_version(void)
{
    return LDAGPU_API_VERSION;
}

const char *ldagpu_version(void)
{
    return LDAGPU_VERSION;
}

int api_fail(ldagpu_error *out, const lda_error *e)
{
    const int status = e->status ? e->status : LDAGPU_FAILURE;
    if (out) {
        out->status = status;
        snprintf(out->message, sizeof out->message, "%s", e->msg[0] ? e->msg : "failed");
    }
    return status;
}

void *api_fail_null(ldagpu_error *out, const lda_error *e)
{
    api_fail(out, e);
    return NULL;
}

int api_ok(ldagpu_error *out)
{
    if (out) {
        out->status = LDAGPU_OK;
        out->message[0] = '\0';
    }
    return LDAGPU_OK;
}

/* ---- settings ---- */

ldagpu_settings *ldagpu_settings_new(ldagpu_error *err)
{
    lda_error e = {0};
    ldagpu_settings *s = lda_calloc(1, sizeof *s, "settings", &e);
    if (!s)
        return api_fail_null(err, &e);
    lda_train_options_default(&s->o);
    api_ok(err);
    return s;
}

void ldagpu_settings_free(ldagpu_settings *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->names[i]);
        free(s->values[i]);
    }
    free(s->names);
    free(s->values);
    free(s);
}

static size_t settings_table_rows(void)
{
    size_t n = 0;
    while (lda_settings_table[n].key)
        n++;
    return n;
}

const char *ldagpu_settings_name(size_t i)
{
    const size_t rows = settings_table_rows();
    return i < rows ? lda_settings_table[i].option : lda_train_run_setting_name(i - rows);
}

/* "unknown setting 'x'; the settings: topics, alpha, ..." */
static void unknown_setting(const char *name, lda_error *e)
{
    char list[768];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; ldagpu_settings_name(i) && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", ldagpu_settings_name(i));
    lda_error_input(e, "unknown setting '%s'; the settings: %s", name, list);
}

int ldagpu_settings_set(ldagpu_settings *s, const char *name, const char *value, ldagpu_error *err)
{
    lda_error e = {0};
    if (!s || !name || !value) {
        lda_error_input(&e, "ldagpu_settings_set: a NULL argument");
        return api_fail(err, &e);
    }
    /* The settings borrow the strings they are given (paths, the token pattern): kept here. */
    if (s->count == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 16;
        char **names = realloc(s->names, cap * sizeof *names);
        if (names)
            s->names = names;
        char **values = names ? realloc(s->values, cap * sizeof *values) : NULL;
        if (!values) {
            lda_error_fail(&e, "out of memory");
            return api_fail(err, &e);
        }
        s->values = values;
        s->cap = cap;
    }
    char *n = strdup(name), *v = strdup(value);
    if (!n || !v) {
        free(n);
        free(v);
        lda_error_fail(&e, "out of memory");
        return api_fail(err, &e);
    }
    const int rc = lda_train_setting_set(&s->o, &s->g, n, v, n, &e);
    if (rc) {
        if (rc > 0)
            unknown_setting(name, &e);
        free(n);
        free(v);
        return api_fail(err, &e);
    }
    s->names[s->count] = n;
    s->values[s->count++] = v;
    return api_ok(err);
}

/* A copy of s (its strings the copy's own), or the defaults when s is NULL. */
ldagpu_settings *api_settings_copy(const ldagpu_settings *s, ldagpu_error *err)
{
    ldagpu_settings *copy = ldagpu_settings_new(err);
    for (size_t i = 0; copy && s && i < s->count; i++)
        if (ldagpu_settings_set(copy, s->names[i], s->values[i], err)) {
            ldagpu_settings_free(copy);
            return NULL;
        }
    return copy;
}

/* ---- corpora ---- */

ldagpu_corpus *api_corpus_wrap(corpus *c, ldagpu_settings *read_with, const char *path, lda_error *e)
{
    ldagpu_corpus *h = lda_calloc(1, sizeof *h, "a corpus", e);
    if (!h || (path && !(h->path = strdup(path)))) {
        if (h)
            lda_error_fail(e, "out of memory");
        free(h);
        corpus_free(c);
        ldagpu_settings_free(read_with);
        return NULL;
    }
    h->c = c;
    h->read_with = read_with;
    return h;
}

ldagpu_corpus *ldagpu_corpus_read(const char *path, const ldagpu_settings *s, ldagpu_error *err)
{
    lda_error e = {0};
    if (!path) {
        lda_error_input(&e, "ldagpu_corpus_read: no path");
        return api_fail_null(err, &e);
    }
    ldagpu_settings *read_with = api_settings_copy(s, err);
    if (!read_with)
        return NULL;
    corpus *c = corpus_read(path, &read_with->o.settings.corpus, &e);
    if (!c) {
        ldagpu_settings_free(read_with);
        return api_fail_null(err, &e);
    }
    ldagpu_corpus *h = api_corpus_wrap(c, read_with, path, &e);
    return h ? (api_ok(err), h) : api_fail_null(err, &e);
}

void ldagpu_corpus_free(ldagpu_corpus *c)
{
    if (!c)
        return;
    corpus_free(c->c);
    ldagpu_settings_free(c->read_with);
    free(c->path);
    free(c);
}

size_t ldagpu_corpus_num_docs(const ldagpu_corpus *c)
{
    return c->c->num_input_docs;
}

size_t ldagpu_corpus_num_tokens(const ldagpu_corpus *c)
{
    return c->c->num_tokens;
}

size_t ldagpu_corpus_vocab_size(const ldagpu_corpus *c)
{
    return c->c->vocab_size;
}

size_t ldagpu_corpus_num_unknown_tokens(const ldagpu_corpus *c)
{
    return c->c->num_unknown_tokens;
}

const char *ldagpu_corpus_word(const ldagpu_corpus *c, size_t w)
{
    return w < c->c->vocab_size && c->c->vocab ? c->c->vocab[w] : NULL;
}

const char *ldagpu_corpus_doc_name(const ldagpu_corpus *c, size_t d)
{
    return c->c->names && d < c->c->num_input_docs ? lda_string_list_get(c->c->names, d) : NULL;
}

void ldagpu_corpus_doc_lengths(const ldagpu_corpus *c, uint64_t *out)
{
    const corpus *k = c->c;
    memset(out, 0, k->num_input_docs * sizeof *out);
    for (size_t d = 0; d < k->num_docs; d++)
        out[k->input_index[d]] = k->doc_offsets[d + 1] - k->doc_offsets[d];
}

void ldagpu_corpus_word_counts(const ldagpu_corpus *c, uint64_t *out)
{
    const corpus *k = c->c;
    memset(out, 0, k->vocab_size * sizeof *out);
    for (size_t i = 0; i < k->num_tokens; i++)
        out[k->words[i]]++;
}

/* ---- training ---- */

typedef struct {
    ldagpu_progress_fn progress;
    ldagpu_message_fn message;
    void *ctx;
} callbacks;

static int progress_bridge(void *vctx, const lda_log_row *row, uint32_t last)
{
    const callbacks *cb = vctx;
    if (!cb->progress)
        return 0;
    ldagpu_progress p = {
        .iteration = row->iteration,
        .last_iteration = last,
        .seconds = row->seconds,
        .tokens_per_second = row->tokens_per_second,
        .evaluated = row->evaluated,
        .loglik_per_token = row->eval.loglik_pred,
        .loglik_joint = row->eval.loglik_joint,
        .heldout_evaluated = row->heldout_evaluated,
        .heldout_loglik_per_token = row->loglik_heldout,
    };
    return cb->progress(cb->ctx, &p);
}

static void message_bridge(void *vctx, const char *line)
{
    const callbacks *cb = vctx;
    if (cb->message) /* without a callback, nothing: the library never prints */
        cb->message(cb->ctx, line);
}

ldagpu_model *ldagpu_train(const ldagpu_corpus *c, const ldagpu_settings *s, ldagpu_progress_fn progress,
                           ldagpu_message_fn message, void *ctx, ldagpu_error *err)
{
    lda_error e = {0};
    if (!c) {
        lda_error_input(&e, "ldagpu_train: no corpus");
        return api_fail_null(err, &e);
    }
    if (!c->c->num_tokens) { /* the readers refuse such a corpus; arrays may make one */
        lda_error_input(&e, "no tokens to train on (%zu documents, all empty)", c->c->num_input_docs);
        return api_fail_null(err, &e);
    }
    lda_train_options o;
    lda_train_given g = {0};
    if (s) {
        o = s->o;
        g = s->g;
    } else {
        lda_train_options_default(&o);
    }
    /* The corpus was read with its own reader settings: those are what the model records. */
    o.settings.corpus = c->read_with->o.settings.corpus;
    if (lda_train_settings_finish(&o, &g, &e) || lda_backend_check_device(o.settings.params.device, &e))
        return api_fail_null(err, &e);
    ldagpu_model *m = lda_calloc(1, sizeof *m, "a model", &e);
    if (!m)
        return api_fail_null(err, &e);
    callbacks cb = {progress, message, ctx};
    o.corpus_path = c->path;
    o.documents = c->c;
    o.output_dir = NULL;
    o.quiet = 1;
    o.keep = &m->t;
    o.progress = progress_bridge;
    o.message = message_bridge;
    o.callback_ctx = &cb;
    if (lda_train(&o, &e)) {
        lda_trained_free(&m->t);
        free(m);
        return api_fail_null(err, &e);
    }
    api_ok(err);
    return m;
}

/* ---- models ---- */

void ldagpu_model_free(ldagpu_model *m)
{
    if (!m)
        return;
    lda_trained_free(&m->t);
    free(m);
}

int ldagpu_model_save(const ldagpu_model *m, const char *dir, int force, ldagpu_error *err)
{
    lda_error e = {0};
    if (!m || !dir) {
        lda_error_input(&e, "ldagpu_model_save: a NULL argument");
        return api_fail(err, &e);
    }
    return lda_trained_write(&m->t, dir, force, &e) ? api_fail(err, &e) : api_ok(err);
}

uint32_t ldagpu_model_num_topics(const ldagpu_model *m)
{
    return m->t.m.num_topics;
}

uint32_t ldagpu_model_vocab_size(const ldagpu_model *m)
{
    return m->t.m.vocab_size;
}

uint64_t ldagpu_model_num_docs(const ldagpu_model *m)
{
    return m->t.m.num_docs;
}

uint32_t ldagpu_model_iterations(const ldagpu_model *m)
{
    return m->t.m.iterations;
}

const char *ldagpu_model_word(const ldagpu_model *m, uint32_t w)
{
    return w < m->t.m.vocab_size ? m->t.m.vocab[w] : NULL;
}

const char *ldagpu_model_doc_name(const ldagpu_model *m, uint64_t d)
{
    return m->t.m.doc_names && d < m->t.m.num_docs ? lda_string_list_get(m->t.m.doc_names, d) : NULL;
}

int ldagpu_model_setting(const ldagpu_model *m, const char *key, char *buf, size_t size, ldagpu_error *err)
{
    lda_error e = {0};
    const lda_setting *row = key ? lda_setting_by_key(key) : NULL;
    if (!row) {
        lda_error_input(&e, "'%s' is not a key of model.conf's settings", key ? key : "(null)");
        return api_fail(err, &e);
    }
    const char *v = lda_setting_format(row, &m->t.m.settings, buf, size);
    if (!v)
        snprintf(buf, size, "%s", row->unset ? row->unset : "");
    return api_ok(err);
}

void ldagpu_model_phi(const ldagpu_model *m, float *out)
{
    memcpy(out, m->t.m.phi, (size_t)m->t.m.num_topics * m->t.m.vocab_size * sizeof *out);
}

int ldagpu_model_theta(const ldagpu_model *m, float *out, ldagpu_error *err)
{
    lda_error e = {0};
    const lda_theta *t = &m->t.m.theta;
    if (t->form.form == LDA_DOC_TOPICS_NONE) {
        lda_error_input(&e, "the model keeps no θ (doc-topics none)");
        return api_fail(err, &e);
    }
    const uint32_t K = m->t.m.num_topics;
    for (uint64_t d = 0; d < m->t.m.num_docs; d++)
        lda_theta_row_dense(t, d, out + d * K);
    return api_ok(err);
}

void ldagpu_model_topic_tokens(const ldagpu_model *m, uint32_t *out)
{
    memcpy(out, m->t.m.topic_tokens, m->t.m.num_topics * sizeof *out);
}

void ldagpu_model_alpha(const ldagpu_model *m, double *out)
{
    const lda_model *mm = &m->t.m;
    for (uint32_t k = 0; k < mm->num_topics; k++)
        out[k] = mm->alpha_learned ? (double)mm->alpha_learned[k] : mm->settings.params.alpha;
}

double ldagpu_model_beta(const ldagpu_model *m)
{
    return m->t.m.alpha_learned ? m->t.m.beta_learned : m->t.m.settings.params.beta;
}
