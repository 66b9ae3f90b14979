/* heldout.c — the held-out split and document completion; see heldout.h. */
#include "train/heldout.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "model/checksum.h"
#include "model/model_corpus.h"
#include "train/inference.h"

int lda_heldout_selected(uint64_t seed, double fraction, uint64_t input_index)
{
    if (!(fraction > 0.0))
        return 0;
    uint64_t threshold = (uint64_t)(fraction * 4294967296.0);
    return (uint64_t)lda_rng_once(seed, LDA_RNG_SPLIT, 0, input_index) < threshold;
}

/* An empty corpus shell with room for num_docs documents and num_tokens tokens. */
static corpus *corpus_alloc(const corpus *like, size_t num_docs, size_t num_tokens, lda_error *err)
{
    corpus *s = lda_calloc(1, sizeof *s, "corpus", err);
    if (!s)
        return NULL;
    s->num_docs = num_docs;
    s->num_input_docs = like->num_input_docs;
    s->num_empty_docs = like->num_empty_docs;
    s->num_tokens = num_tokens;
    s->num_unknown_tokens = like->num_unknown_tokens;
    s->vocab_size = like->vocab_size;
    s->format = like->format;
    if (!(s->doc_offsets = lda_malloc_array(num_docs + 1, sizeof *s->doc_offsets, "corpus", err)) ||
        !(s->words = lda_malloc_array(num_tokens ? num_tokens : 1, sizeof *s->words, "corpus", err)) ||
        !(s->input_index = lda_malloc_array(num_docs ? num_docs : 1, sizeof *s->input_index, "corpus", err))) {
        corpus_free(s);
        return NULL;
    }
    s->doc_offsets[0] = 0;
    return s;
}

static int copy_vocab(corpus *dst, const corpus *src, lda_error *err)
{
    if (!(dst->vocab = lda_calloc(src->vocab_size, sizeof *dst->vocab, "vocabulary", err)))
        return -1;
    for (uint32_t w = 0; w < src->vocab_size; w++)
        if (!(dst->vocab[w] = strdup(src->vocab[w]))) {
            lda_error_fail(err, "out of memory (vocabulary)");
            return -1;
        }
    return 0;
}

corpus *lda_corpus_subset(const corpus *c, const unsigned char *keep, int with_vocab, lda_error *err)
{
    size_t docs = 0, tokens = 0;
    for (size_t d = 0; d < c->num_docs; d++)
        if (keep[d]) {
            docs++;
            tokens += c->doc_offsets[d + 1] - c->doc_offsets[d];
        }
    corpus *s = corpus_alloc(c, docs, tokens, err);
    if (!s)
        return NULL;
    size_t j = 0;
    for (size_t d = 0; d < c->num_docs; d++) {
        if (!keep[d])
            continue;
        size_t len = c->doc_offsets[d + 1] - c->doc_offsets[d];
        memcpy(s->words + s->doc_offsets[j], c->words + c->doc_offsets[d], len * sizeof *s->words);
        s->doc_offsets[j + 1] = s->doc_offsets[j] + len;
        s->input_index[j] = c->input_index[d];
        j++;
    }
    /* The names are by input document, as the indices are: the whole lists stay aligned. */
    if (with_vocab && ((c->vocab && copy_vocab(s, c, err)) ||
                       (c->names && !(s->names = lda_string_list_copy(c->names, err))) ||
                       (c->labels && !(s->labels = lda_string_list_copy(c->labels, err))))) {
        corpus_free(s);
        return NULL;
    }
    return s;
}

int lda_heldout_split(const corpus *c, double fraction, uint64_t seed, corpus **train, corpus **heldout,
                      lda_error *err)
{
    *train = *heldout = NULL;
    unsigned char *out = lda_malloc_array(c->num_docs ? c->num_docs : 1, 1, "held-out flags", err);
    if (!out)
        return -1;
    size_t held = 0;
    for (size_t d = 0; d < c->num_docs; d++)
        held += out[d] = (unsigned char)lda_heldout_selected(seed, fraction, c->input_index[d]);
    int rc = -1;
    if (held == c->num_docs) {
        lda_error_input(err, "--holdout %g holds out all %zu documents; nothing is left to train on", fraction,
                        c->num_docs);
        goto done;
    }
    if (!(*heldout = lda_corpus_subset(c, out, 0, err)))
        goto done;
    for (size_t d = 0; d < c->num_docs; d++)
        out[d] = !out[d];
    if (!(*train = lda_corpus_subset(c, out, 1, err)))
        goto done;
    rc = 0;
done:
    free(out);
    if (rc) {
        corpus_free(*train);
        corpus_free(*heldout);
        *train = *heldout = NULL;
    }
    return rc;
}

uint64_t lda_heldout_seed(uint64_t seed, uint32_t iteration)
{
    lda_u32x4 r = lda_philox(lda_rng_counter(LDA_RNG_HELDOUT, iteration, 0, 0), seed);
    return (uint64_t)r.v[0] | (uint64_t)r.v[1] << 32;
}

/* First ⌊len/2⌋ tokens of every document into *first, the rest into *second. */
static int split_halves(const corpus *c, corpus **first, corpus **second, lda_error *err)
{
    size_t first_tokens = 0;
    for (size_t d = 0; d < c->num_docs; d++)
        first_tokens += (c->doc_offsets[d + 1] - c->doc_offsets[d]) / 2;
    *first = corpus_alloc(c, c->num_docs, first_tokens, err);
    *second = *first ? corpus_alloc(c, c->num_docs, c->num_tokens - first_tokens, err) : NULL;
    if (!*first || !*second) {
        corpus_free(*first);
        *first = NULL;
        return -1;
    }
    for (size_t d = 0; d < c->num_docs; d++) {
        const uint32_t *w = c->words + c->doc_offsets[d];
        size_t len = c->doc_offsets[d + 1] - c->doc_offsets[d], half = len / 2;
        memcpy((*first)->words + (*first)->doc_offsets[d], w, half * sizeof *w);
        memcpy((*second)->words + (*second)->doc_offsets[d], w + half, (len - half) * sizeof *w);
        (*first)->doc_offsets[d + 1] = (*first)->doc_offsets[d] + half;
        (*second)->doc_offsets[d + 1] = (*second)->doc_offsets[d] + len - half;
        (*first)->input_index[d] = (*second)->input_index[d] = c->input_index[d];
    }
    return 0;
}

int lda_completion_init(lda_completion *c, const corpus *docs, const lda_params *params, lda_error *err)
{
    memset(c, 0, sizeof *c);
    c->params = *params;
    unsigned char *keep = lda_malloc_array(docs->num_docs ? docs->num_docs : 1, 1, "document flags", err);
    corpus *scorable = NULL;
    int rc = -1;
    if (!keep)
        return -1;
    for (size_t d = 0; d < docs->num_docs; d++) {
        keep[d] = docs->doc_offsets[d + 1] - docs->doc_offsets[d] >= 2;
        c->num_short_docs += !keep[d];
    }
    if (!(scorable = lda_corpus_subset(docs, keep, 0, err)))
        goto out;
    if (scorable->num_docs == 0) {
        lda_error_input(err, "no document to score: document completion needs documents of 2 tokens or more "
                        "(%zu of one token)", c->num_short_docs);
        goto out;
    }
    if (split_halves(scorable, &c->estimate, &c->scored, err) ||
        !(c->estimate_layout = lda_layout_build(c->estimate, lda_params_piece_length(params), err)) ||
        !(c->scored_layout = lda_layout_build_like(c->scored, c->estimate_layout, err)))
        goto out;
    c->num_docs = scorable->num_docs;
    c->num_tokens = c->scored->num_tokens;
    rc = 0;
out:
    free(keep);
    corpus_free(scorable);
    if (rc)
        lda_completion_free(c);
    return rc;
}

int lda_completion_run(const lda_completion *c, const float *phi_vk, const lda_priors *priors, uint64_t seed,
                       uint32_t iterations, double *loglik_per_token, lda_error *err)
{
    lda_params p = c->params;
    p.seed = seed;
    double sum = 0.0;
    if (lda_infer(c->estimate_layout, &p, priors, phi_vk, iterations, NULL, c->scored_layout, &sum, err))
        return -1;
    *loglik_per_token = sum / (double)c->num_tokens;
    return 0;
}

void lda_completion_free(lda_completion *c)
{
    corpus_free(c->estimate);
    corpus_free(c->scored);
    lda_layout_free(c->estimate_layout);
    lda_layout_free(c->scored_layout);
    memset(c, 0, sizeof *c);
}

/* Whether train, the documents trained on of the corpus c read from `where`, are the model's. */
static int same_corpus(const lda_model *m, const char *dir, const char *where, const corpus *c, const corpus *train,
                       int *mismatch, lda_error *err)
{
    if (train->num_input_docs != m->num_docs || train->num_tokens != m->num_tokens)
        lda_error_input(err, "%s: %zu documents and %zu tokens to train on, where %s was trained on %llu documents and "
                        "%llu tokens: not the corpus it was trained on", where, train->num_input_docs,
                        train->num_tokens, dir, (unsigned long long)m->num_docs, (unsigned long long)m->num_tokens);
    else if (m->corpus_checksum && lda_corpus_checksum(c) != m->corpus_checksum)
        lda_error_input(err, "%s: not the corpus %s was trained on (of the same size, but other words: its checksum "
                        "differs from model.conf's corpus_checksum)", where, dir);
    else
        return 1;
    *mismatch = 1;
    return 0;
}

corpus *lda_trained_documents(const lda_model *m, const char *dir, const char *path, int *mismatch, lda_error *err)
{
    *mismatch = 0;
    corpus *c = lda_model_read_training_corpus(m, path, err), *train = c;
    if (!c)
        return NULL;
    if (m->settings.holdout > 0) {
        unsigned char *keep = lda_malloc_array(c->num_docs ? c->num_docs : 1, 1, "document flags", err);
        if (keep) {
            for (size_t d = 0; d < c->num_docs; d++)
                keep[d] = !lda_heldout_selected(m->settings.params.seed, m->settings.holdout, c->input_index[d]);
            train = lda_corpus_subset(c, keep, 0, err);
        }
        free(keep);
    }
    if (train && !same_corpus(m, dir, path ? path : m->corpus_path, c, train, mismatch, err)) {
        if (train != c)
            corpus_free(train);
        train = NULL;
    }
    if (train != c)
        corpus_free(c);
    return train;
}

int lda_model_completion(const lda_model *m, const corpus *docs, const lda_params *p, uint64_t seed,
                         uint32_t iterations, lda_completion_result *out, lda_error *err)
{
    lda_completion comp;
    lda_priors priors;
    float *phi = NULL;
    int rc = -1;
    if (lda_completion_init(&comp, docs, p, err))
        return -1;
    if (lda_model_priors(m, &priors, err)) {
        lda_completion_free(&comp);
        return -1;
    }
    if ((phi = lda_model_phi_vk(m, err)) &&
        lda_completion_run(&comp, phi, &priors, seed, iterations, &out->loglik_per_token, err) == 0) {
        out->num_docs = comp.num_docs;
        out->num_short_docs = comp.num_short_docs;
        out->num_tokens = comp.num_tokens;
        rc = 0;
    }
    free(phi);
    lda_priors_free(&priors);
    lda_completion_free(&comp);
    return rc;
}
