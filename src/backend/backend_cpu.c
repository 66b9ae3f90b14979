/* backend_cpu.c — the multi-threaded CPU backend: the reference every GPU result is
 * checked against. State lives in host arrays in the layout's order (backend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/eval_cpu.h"
#include "backend/sampler_alias.h"
#include "backend/sampler_cpu.h"
#include "backend/sampler_sparse.h"
#include "backend/sampler_sparselda.h"
#include "backend/shards.h"
#include "backend/updates_cpu.h"
#include "core/rng.h"
#include "core/z_start.h"

typedef struct {
    lda_pool *pool;
    lda_word_index word_index;
    float *theta, *phi;
    uint32_t *z;
    uint32_t *n_mk, *n_wk, *n_k; /* n_wk, n_k: the totals, which φ and the evaluation read */
    uint32_t *own_wk, *own_k;    /* the counts of this backend's tokens: n_wk, n_k unless it is a shard */
    uint32_t *own_docs, *total_docs; /* a shard: its shared documents' rows, summed (shards.h) */
    size_t doc_rows;
    void *word_prior; /* --sampler sparse: each word's prefix sums of α_k φ[w,k] (sampler_sparse.h) */
    lda_cpu_word_side word_side; /* ... with φ the mean of the counts: the word side (zplan.h); else empty */
    lda_sparselda sparselda;     /* --sampler sparselda: its lists (sampler_sparselda.h); else empty */
    lda_alias_sampler alias;     /* --sampler alias: its tables and order (sampler_alias.h); else empty */
    /* alias and mh read the counts, never θ or φ: an iteration's θ and φ are formed where they are
     * read (held_updates), from the counts and keys they would have been formed from at its end */
    int updates_held;
    uint32_t held_iteration;
    /* alias's and mh's tables count each word's topics from z (sampler_alias.h) where the counts
     * are this backend's own (not a shard's): n[w,k] and n[k] are then counted only where read
     * (word_counts), 11% of an iteration at K = 1024 on wiki43k */
    int word_counts_held;
} cpu_state;

/* The tables are made from z: an alias or mh draw whose counts are all its own. */
static int tables_from_z(const cpu_state *st)
{
    return st->alias.offset && st->own_wk == st->n_wk && !st->own_docs;
}

/* n[w,k] and n[k] of z, where they were held back. */
static int word_counts(lda_backend *b, lda_error *err)
{
    cpu_state *st = b->impl;
    if (!st->word_counts_held)
        return 0;
    st->word_counts_held = 0;
    return lda_cpu_count(st->pool, b->layout, &st->word_index, st->z, b->params.num_topics, NULL, st->n_wk, st->n_k,
                         err);
}

/* The counts from z (a cut document's in every piece). after_draw: alias's and mh's draw left
 * every row of n[m,k] as z's (they move it token by token); where no document is cut and no
 * shard shares documents, those rows are not counted again (2% of an iteration at K = 1024);
 * n[w,k] and n[k] are held back where the next tables count z (tables_from_z). */
static int recount(lda_backend *b, int after_draw, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_layout *L = b->layout;
    const uint32_t K = b->params.num_topics;
    const int rows_exact = after_draw && st->alias.offset && L->num_cut_docs == 0 && !st->own_docs;
    const int words_held = after_draw && tables_from_z(st);
    if (lda_cpu_count(st->pool, L, &st->word_index, st->z, K, rows_exact ? NULL : st->n_mk,
                      words_held ? NULL : st->own_wk, st->own_k, err))
        return -1;
    st->word_counts_held = words_held;
    lda_layout_join_cut_counts(L, K, st->n_mk, NULL);
    if (st->own_docs)
        lda_shard_doc_sums(L, K, st->n_mk, st->doc_rows, st->own_docs);
    return 0;
}

/* φ from the counts with the random stream of `phi_stream` (params.h). */
static int update_phi(lda_backend *b, uint32_t phi_stream, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_params *p = &b->params;
    if (p->freeze_phi)
        return 0;
    return lda_cpu_update_phi(st->pool, b->layout->vocab_size, st->n_wk, st->n_k, p->num_topics, b->priors.beta,
                              lda_phi_update(p), p->seed, phi_stream, st->phi, err);
}

/* After part `part`: φ; after the last, φ as after it and θ: the state at the iteration's end. */
static int form_updates(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_params *p = &b->params;
    if (update_phi(b, lda_phi_stream(iteration, part, p->refresh), err))
        return -1;
    if (part + 1 < p->refresh)
        return 0;
    return lda_cpu_update_theta(st->pool, b->layout, st->n_mk, p->num_topics, &b->priors, lda_theta_update(p),
                                p->seed, iteration, st->theta, err);
}

/* θ and φ of the iteration whose updates were held, before anything reads them (the priors they
 * read are those of the iteration's end: learned before its updates, never between). At
 * K = 1024 on wiki43k the two were 9% of an iteration of alias, read only every tenth. */
static int held_updates(lda_backend *b, lda_error *err)
{
    cpu_state *st = b->impl;
    if (word_counts(b, err))
        return -1;
    if (!st->updates_held)
        return 0;
    st->updates_held = 0;
    return form_updates(b, st->held_iteration, b->params.refresh - 1, err);
}

static int cpu_update_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    cpu_state *st = b->impl;
    if (!st->alias.offset) /* the other draws read θ or φ */
        return form_updates(b, iteration, part, err);
    if (part + 1 == b->params.refresh) { /* an earlier part's φ is read by nothing: the last part's is formed */
        st->updates_held = 1;
        st->held_iteration = iteration;
    }
    return 0;
}

static int cpu_set_z(lda_backend *b, const uint32_t *z, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_layout *L = b->layout;
    const uint32_t K = b->params.num_topics, start_topics = lda_params_start_topics(&b->params);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            size_t pos = lda_layout_pos(L, s, i);
            st->z[pos] = z ? z[pos]
                           : lda_start_topic(b->params.seed, L->slot_doc[s], L->slot_token_base[s] + i, K, start_topics);
        }
    if (st->alias.offset)
        lda_alias_z_set(&st->alias, L, st->z);
    return recount(b, 0, err);
}

/* z of one --refresh part, then the counts. */
static int cpu_draw_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_params *p = &b->params;
    lda_zdraw in = {.theta = st->theta,
                    .n_mk = p->theta_collapsed ? st->n_mk : NULL,
                    .alpha = b->priors.alpha_float,
                    .phi = st->phi,
                    .word_prior = st->word_prior,
                    .K = p->num_topics,
                    .precision = p->precision,
                    .seed = p->seed,
                    .iteration = iteration,
                    .part = lda_layout_local_part(b->layout, part, p->refresh),
                    .part_count = p->refresh};
    if (st->word_prior) /* φ changed since the last part, α perhaps too */
        lda_cpu_word_prior_prefix(st->pool, b->layout->vocab_size, &in, st->word_prior);
    if (st->word_side.offset) { /* ... and the counts φ's mean was formed from */
        lda_cpu_word_side_build(st->pool, b->layout->vocab_size, p->num_topics, st->n_wk, st->n_k, b->priors.beta,
                                st->phi, &st->word_side);
        in.word_side = &st->word_side.view;
    }
    const lda_sparselda_in sparselda = {&st->sparselda, st->n_wk, st->n_k, b->priors.beta, NULL};
    if (st->sparselda.offset)
        in.sparselda = &sparselda;
    const lda_alias_in alias = {&st->alias, st->n_wk, st->n_k, b->priors.beta, NULL, tables_from_z(st)};
    if (st->alias.offset)
        in.alias = &alias;
    return lda_cpu_sample_z(st->pool, b->layout, &in, st->z, err) || recount(b, 1, err) ? -1 : 0;
}

static int cpu_become_shard(lda_backend *b, size_t doc_rows, lda_shard_counts *out, lda_error *err)
{
    cpu_state *st = b->impl;
    const size_t K = b->params.num_topics;
    if (word_counts(b, err)) /* a shard counts its own */
        return -1;
    if (st->own_wk != st->n_wk) {
        lda_error_fail(err, "internal error: a shard made a shard again");
        return -1;
    }
    st->own_wk = st->own_k = NULL;
    if (!(st->own_wk = lda_calloc((size_t)b->layout->vocab_size * K, sizeof *st->own_wk, "word-topic counts", err)) ||
        !(st->own_k = lda_calloc(K, sizeof *st->own_k, "topic counts", err)) ||
        !(st->own_docs = lda_calloc(doc_rows * K + 1, sizeof *st->own_docs, "cut documents' counts", err)) ||
        !(st->total_docs = lda_calloc(doc_rows * K + 1, sizeof *st->total_docs, "cut documents' counts", err)))
        return -1;
    st->doc_rows = doc_rows;
    *out = (lda_shard_counts){st->own_wk, st->own_k, st->n_wk, st->n_k, st->own_docs, st->total_docs, 0, -1, NULL};
    return 0;
}

static int cpu_counts_summed(lda_backend *b, lda_error *err)
{
    (void)err;
    cpu_state *st = b->impl;
    lda_shard_doc_spread(b->layout, b->params.num_topics, st->n_mk, st->total_docs);
    return 0;
}

static int cpu_eval_terms(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                          double *word_chunks, lda_error *err)
{
    cpu_state *st = b->impl;
    const uint32_t K = b->params.num_topics;
    if (held_updates(b, err))
        return -1;
    if (scored && scored->num_slots != b->layout->num_slots) {
        lda_error_fail(err, "internal error: scoring a layout of %zu slots against %zu", scored->num_slots,
                       b->layout->num_slots);
        return -1;
    }
    if (pred_warps)
        lda_cpu_loglik_pred_terms(st->pool, scored ? scored : b->layout, st->theta, st->phi, K, pred_warps);
    if (doc_warps)
        lda_cpu_joint_doc_terms(st->pool, b->layout, st->n_mk, K, &b->priors, doc_warps);
    if (word_chunks)
        lda_cpu_joint_word_terms(st->pool, b->layout->vocab_size, st->n_wk, K, &b->priors, word_chunks);
    return 0;
}

static int cpu_evaluate(lda_backend *b, lda_eval *out, lda_error *err)
{
    cpu_state *st = b->impl;
    const lda_params *p = &b->params;
    if (held_updates(b, err))
        return -1;
    if (lda_cpu_loglik_pred(st->pool, b->layout, st->theta, st->phi, p->num_topics, &out->loglik_pred, err) ||
        lda_cpu_loglik_joint(st->pool, b->layout, st->n_mk, st->n_wk, st->n_k, p->num_topics, &b->priors,
                             &out->loglik_joint, err))
        return -1;
    return 0;
}

static int cpu_fetch(lda_backend *b, float *theta, float *phi, uint32_t *z, lda_error *err)
{
    cpu_state *st = b->impl;
    if ((theta || phi) && held_updates(b, err))
        return -1;
    const lda_layout *L = b->layout;
    const size_t K = b->params.num_topics;
    if (theta)
        memcpy(theta, st->theta, L->num_slots * K * sizeof *theta);
    if (phi)
        memcpy(phi, st->phi, (size_t)L->vocab_size * K * sizeof *phi);
    if (z)
        memcpy(z, st->z, L->num_positions * sizeof *z);
    return 0;
}

static int cpu_fetch_theta_rows(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    const cpu_state *st = b->impl;
    const size_t K = b->params.num_topics;
    if (held_updates(b, err))
        return -1;
    if (first > b->layout->num_slots || count > b->layout->num_slots - first) {
        lda_error_fail(err, "internal error: θ rows %zu..+%zu of %zu", first, count, b->layout->num_slots);
        return -1;
    }
    memcpy(theta, st->theta + first * K, count * K * sizeof *theta);
    return 0;
}

static int cpu_fetch_counts(lda_backend *b, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    cpu_state *st = b->impl;
    if ((n_wk || n_k) && word_counts(b, err))
        return -1;
    const size_t K = b->params.num_topics;
    if (n_mk)
        memcpy(n_mk, st->n_mk, b->layout->num_slots * K * sizeof *n_mk);
    if (n_wk)
        memcpy(n_wk, st->n_wk, (size_t)b->layout->vocab_size * K * sizeof *n_wk);
    if (n_k)
        memcpy(n_k, st->n_k, K * sizeof *n_k);
    return 0;
}

static int cpu_set_phi(lda_backend *b, const float *phi, lda_error *err)
{
    cpu_state *st = b->impl;
    if (held_updates(b, err)) /* θ of the counts as they are; φ then replaced */
        return -1;
    memcpy(st->phi, phi, (size_t)b->layout->vocab_size * b->params.num_topics * sizeof *phi);
    return 0;
}

static void cpu_destroy(lda_backend *b)
{
    cpu_state *st = b->impl;
    if (st) {
        lda_pool_destroy(st->pool);
        lda_word_index_free(&st->word_index);
        free(st->theta);
        free(st->phi);
        free(st->z);
        free(st->n_mk);
        free(st->n_wk);
        free(st->n_k);
        if (st->own_wk != st->n_wk)
            free(st->own_wk);
        if (st->own_k != st->n_k)
            free(st->own_k);
        free(st->own_docs);
        free(st->total_docs);
        free(st->word_prior);
        lda_cpu_word_side_free(&st->word_side);
        lda_sparselda_free(&st->sparselda);
        lda_alias_free(&st->alias);
        free(st);
    }
    free(b);
}

static int cpu_priors_changed(lda_backend *b, lda_error *err)
{
    (void)b; /* the CPU reads b->priors where it uses them */
    (void)err;
    return 0;
}

static int cpu_count_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    cpu_state *st = b->impl;
    if (word_counts(b, err))
        return -1;
    lda_count_hist_build(h, b->layout, st->n_mk, st->n_wk, st->n_k);
    return 0;
}

static const lda_backend_ops cpu_ops = {
    lda_backend_start_in_steps, lda_backend_iterate_in_steps, cpu_evaluate, cpu_fetch, cpu_fetch_theta_rows,
    cpu_fetch_counts, cpu_set_phi, lda_backend_score_from_terms, cpu_priors_changed, cpu_count_histograms, cpu_destroy,
    cpu_become_shard, cpu_set_z, cpu_draw_step, cpu_counts_summed, cpu_update_step, cpu_eval_terms,
    NULL, /* its steps are done when they return */
};

lda_backend *lda_cpu_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    const size_t K = params->num_topics;
    lda_backend *b = lda_calloc(1, sizeof *b, "backend", err);
    cpu_state *st = NULL;
    if (!b)
        return NULL;
    b->ops = &cpu_ops;
    b->layout = L;
    b->params = *params;
    b->params.device = LDA_DEVICE_CPU;
    if (!(st = b->impl = lda_calloc(1, sizeof *st, "backend", err)) ||
        !(st->pool = lda_pool_create(params->threads, err)) ||
        lda_word_index_build(L, &st->word_index, err) ||
        !(st->theta = lda_malloc_array(L->num_slots * K, sizeof(float), "theta", err)) ||
        !(st->phi = lda_malloc_array((size_t)L->vocab_size * K, sizeof(float), "phi", err)) ||
        !(st->z = lda_calloc(L->num_positions, sizeof(uint32_t), "z", err)) ||
        !(st->n_mk = lda_malloc_array(L->num_slots * K, sizeof(uint32_t), "document-topic counts", err)) ||
        !(st->n_wk = lda_malloc_array((size_t)L->vocab_size * K, sizeof(uint32_t), "word-topic counts", err)) ||
        !(st->n_k = lda_malloc_array(K, sizeof(uint32_t), "topic counts", err)) ||
        !(st->own_wk = st->n_wk) || !(st->own_k = st->n_k) ||
        lda_zplan_cpu(params, lda_pool_threads(st->pool), &b->zplan, err) ||
        (params->sampler == LDA_SAMPLER_SPARSE &&
         !(st->word_prior = lda_malloc_array(1, lda_word_prior_prefix_bytes(L->vocab_size, params->num_topics,
                                                                            params->precision),
                                             "the sparse draw's word table", err))) ||
        (b->zplan.word_side_quarters &&
         lda_cpu_word_side_create(L, params->num_topics, b->zplan.word_side_quarters, &st->word_side, err)) ||
        (b->zplan.sparselda_parts && lda_sparselda_create(L, params->num_topics, b->zplan.sparselda_parts,
                                                          lda_pool_threads(st->pool), &st->sparselda, err)) ||
        (b->zplan.alias_block_warps &&
         lda_alias_create(L, params->num_topics, params->refresh, lda_pool_threads(st->pool),
                          params->sampler == LDA_SAMPLER_MH, &st->alias, err))) {
        cpu_destroy(b);
        return NULL;
    }
    snprintf(b->description, sizeof b->description, "CPU (%d thread%s)", lda_pool_threads(st->pool),
             lda_pool_threads(st->pool) == 1 ? "" : "s");
    return b;
}
