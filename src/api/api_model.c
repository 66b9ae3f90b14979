/* api_model.c — a model folder loaded, and a model's work on new documents: inference as
 * `ldagpu infer` does it, held-out scores as `ldagpu eval` does them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "backend/backend.h"
#include "backend/layout.h"
#include "cli/cli_parse.h"
#include "corpus/corpus_internal.h"
#include "model/checkpoint.h"
#include "model/model_corpus.h"
#include "model/model_stopwords.h"
#include "train/heldout.h"
#include "train/inference.h"
#include "util/atomic_file.h"

/* heldout.txt (one input index a line), where the model held documents out. */
static int read_heldout(lda_trained *t, const char *dir, lda_error *e)
{
    if (!(t->m.settings.holdout > 0))
        return 0;
    char *path = lda_path_join(dir, "heldout.txt", e);
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) {
        if (path)
            lda_error_errno(e, path);
        free(path);
        return -1;
    }
    size_t cap = 0;
    unsigned long long v;
    int rc = 0;
    while (fscanf(f, "%llu", &v) == 1) {
        if (t->num_heldout == cap) {
            cap = cap ? 2 * cap : 256;
            size_t *grown = realloc(t->heldout_index, cap * sizeof *grown);
            if (!grown) {
                lda_error_fail(e, "out of memory");
                rc = -1;
                break;
            }
            t->heldout_index = grown;
        }
        t->heldout_index[t->num_heldout++] = (size_t)v;
    }
    if (!rc && !feof(f)) {
        lda_error_input(e, "%s: not a list of document numbers", path);
        rc = -1;
    }
    fclose(f);
    free(path);
    return rc;
}

/* The folder's log.csv, when it has one. */
static int read_log(lda_trained *t, const char *dir, lda_error *e)
{
    char *path = lda_path_join(dir, "log.csv", e);
    if (!path)
        return -1;
    const int rc = access(path, F_OK) == 0 ? lda_train_log_read_csv(&t->log, path, e) : 0;
    free(path);
    return rc;
}

ldagpu_model *ldagpu_model_load(const char *dir, ldagpu_error *err)
{
    lda_error e = {0};
    if (!dir) {
        lda_error_input(&e, "ldagpu_model_load: no folder");
        return api_fail_null(err, &e);
    }
    ldagpu_model *m = lda_calloc(1, sizeof *m, "a model", &e);
    if (!m)
        return api_fail_null(err, &e);
    lda_trained *t = &m->t;
    t->top_words = 20;
    if (lda_model_read_finished(&t->m, dir, 1, 1, &e)) {
        free(m);
        return api_fail_null(err, &e);
    }
    /* The stop words the folder reads text with, held as a list: a model saved again writes
     * them, and new texts are read with them, wherever the folder goes. */
    if (read_log(t, dir, &e) || read_heldout(t, dir, &e) || stopword_list_load(&t->stopwords, &t->m.settings.corpus, &e) ||
        lda_model_keep_stopwords(&t->m, &t->stopwords, &e)) {
        ldagpu_model_free(m);
        return api_fail_null(err, &e);
    }
    api_ok(err);
    return m;
}

/* c's documents in the model's vocabulary: c itself when it has the model's words in the
 * model's order, else a copy mapped by the words (unknown ones dropped), into *owned. */
static const corpus *in_model_vocab(const lda_model *m, const corpus *c, corpus **owned, lda_error *e)
{
    *owned = NULL;
    int same = c->vocab_size == m->vocab_size;
    for (uint32_t w = 0; same && c->vocab && w < m->vocab_size; w++)
        same = strcmp(c->vocab[w], m->vocab[w]) == 0;
    if (same)
        return c;
    if (!c->vocab) {
        lda_error_input(e, "the documents have no vocabulary to map to the model's");
        return NULL;
    }
    unsigned char *keep = lda_malloc(c->num_docs ? c->num_docs : 1, "document flags", e);
    if (!keep)
        return NULL;
    memset(keep, 1, c->num_docs);
    corpus *copy = lda_corpus_subset(c, keep, 1, e);
    free(keep);
    corpus_options opt;
    corpus_options_default(&opt);
    opt.fixed_vocab = m->vocab;
    opt.fixed_vocab_size = m->vocab_size;
    char note[CORPUS_NOTE_MAX];
    if (!copy || corpus_map_to_fixed_vocab(copy, &opt, note, e)) {
        corpus_free(copy);
        return NULL;
    }
    return *owned = copy;
}

/* The model's parameters for work on new documents on `device` with `threads`, seeded. */
static int work_params(const lda_model *m, const char *device, int threads, uint64_t seed, lda_params *p,
                       lda_error *e)
{
    *p = m->settings.params;
    p->threads = threads;
    p->seed = seed;
    if (threads < 0) {
        lda_error_input(e, "threads: %d is negative (0: all cores)", threads);
        return -1;
    }
    return lda_parse_device("device", device ? device : "auto", &p->device, e) ||
                   lda_backend_check_device(p->device, e)
               ? -1
               : 0;
}

int ldagpu_infer(const ldagpu_model *m, const ldagpu_corpus *c, uint32_t iterations, uint64_t seed,
                 const char *device, int threads, float *out, ldagpu_error *err)
{
    lda_error e = {0};
    const lda_model *mm = &m->t.m;
    corpus *owned = NULL;
    const corpus *docs = NULL;
    lda_params p;
    if (iterations < 1) {
        lda_error_input(&e, "iterations: at least 1");
        return api_fail(err, &e);
    }
    lda_layout *L = NULL;
    float *theta = NULL;
    const int rc = work_params(mm, device, threads, seed, &p, &e) || !(docs = in_model_vocab(mm, c->c, &owned, &e)) ||
                   lda_model_infer(mm, docs, &p, iterations, &L, &theta, &e);
    const uint32_t K = mm->num_topics;
    float *uniform = rc ? NULL : lda_malloc_array(K, sizeof *uniform, "a theta row", &e);
    if (uniform) {
        for (uint32_t k = 0; k < K; k++)
            uniform[k] = 1.0f / (float)K;
        size_t kept = 0;
        for (size_t i = 0; i < docs->num_input_docs; i++)
            memcpy(out + i * K, lda_theta_input_row(docs, L, theta, K, i, &kept, uniform), K * sizeof *out);
    }
    const int done = uniform != NULL;
    free(uniform);
    free(theta);
    lda_layout_free(L);
    corpus_free(owned);
    return done ? api_ok(err) : api_fail(err, &e);
}

int ldagpu_score(const ldagpu_model *m, const ldagpu_corpus *c, uint32_t iterations, uint64_t seed,
                 const char *device, int threads, double *loglik_per_token, uint64_t *tokens_scored,
                 ldagpu_error *err)
{
    lda_error e = {0};
    const lda_model *mm = &m->t.m;
    corpus *owned = NULL;
    const corpus *docs = NULL;
    lda_completion_result r;
    lda_params p;
    if (iterations < 1) {
        lda_error_input(&e, "iterations: at least 1");
        return api_fail(err, &e);
    }
    /* The seed as `ldagpu eval --seed` derives it, so the two give the same figure. */
    const int rc = work_params(mm, device, threads, seed, &p, &e) || !(docs = in_model_vocab(mm, c->c, &owned, &e)) ||
                   lda_model_completion(mm, docs, &p, lda_heldout_seed(seed, mm->iterations), iterations, &r, &e);
    corpus_free(owned);
    if (rc)
        return api_fail(err, &e);
    *loglik_per_token = r.loglik_per_token;
    if (tokens_scored)
        *tokens_scored = r.num_tokens;
    return api_ok(err);
}
