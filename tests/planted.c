/* planted.c — see planted.h. */
#include "planted.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "helpers.h"
#include "model/topwords.h"

/* 8 planted topics, learned with 12: Gibbs samplers (the uncollapsed one especially) can
 * settle with two planted topics merged when K equals the planted count; a few spare
 * topics make recovery reliable (10 of 10 seeds tried) without weakening the criterion:
 * each planted topic must own a learned topic whose top 10 words are all its own. */
enum { PLANTED = 8, TOPICS = 12, WORDS_PER_TOPIC = 25, TOP = 10 };

/* The planted topic all of the learned topic's top words come from, or -1 (mixed). */
static int planted_topic_of(const float *phi_vk, uint32_t V, uint32_t K, uint32_t k)
{
    float *column = malloc(V * sizeof *column);
    uint32_t top[TOP];
    for (uint32_t w = 0; w < V; w++)
        column[w] = phi_vk[(size_t)w * K + k];
    lda_top_indices(column, V, TOP, top);
    free(column);
    int planted = (int)(top[0] / WORDS_PER_TOPIC);
    for (int i = 1; i < TOP; i++)
        if ((int)(top[i] / WORDS_PER_TOPIC) != planted)
            return -1;
    return planted;
}

static void run_planted(lda_device device, const lda_params *model, lda_precision precision, lda_sampler sampler);

void planted_recovery(lda_device device, lda_update update, lda_precision precision, lda_sampler sampler)
{
    lda_params p;
    lda_params_default(&p);
    p.update = update;
    run_planted(device, &p, precision, sampler);
}

void planted_recovery_model(lda_device device, lda_model_kind model, lda_precision precision, lda_sampler sampler)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    run_planted(device, &p, precision, sampler);
}

void planted_recovery_refreshed(lda_device device, lda_model_kind model, uint32_t refresh)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.refresh = refresh;
    run_planted(device, &p, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY);
}

void planted_recovery_pieces(lda_device device, lda_model_kind model, uint32_t piece_length)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.piece_length = piece_length;
    run_planted(device, &p, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY);
}

static void run_planted(lda_device device, const lda_params *model, lda_precision precision, lda_sampler sampler)
{
    corpus *c = test_planted_corpus(PLANTED, WORDS_PER_TOPIC, 1000, 40, 90, 12, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, model->piece_length, &err);
    cr_assert(L, "%s", err.msg);
    if (model->piece_length && model->piece_length < 40)
        cr_assert_eq(L->num_cut_docs, c->num_docs, "every document cut");
    lda_params p = *model;
    p.num_topics = TOPICS;
    p.alpha = 0.1;
    p.beta = 0.05;
    p.precision = precision;
    p.device = device;
    p.sampler = sampler;
    p.seed = 2024;
    p.threads = 2;
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    lda_eval first, last;
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->evaluate(b, &first, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 60; it++)
        cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->evaluate(b, &last, &err), 0, "%s", err.msg);
    cr_assert_gt(last.loglik_pred, first.loglik_pred + 0.3, "predictive %f -> %f", first.loglik_pred,
                 last.loglik_pred);
    cr_assert_gt(last.loglik_joint, first.loglik_joint + 0.3, "joint %f -> %f", first.loglik_joint,
                 last.loglik_joint);

    float *phi = malloc((size_t)L->vocab_size * TOPICS * sizeof *phi);
    cr_assert_eq(b->ops->fetch(b, NULL, phi, NULL, &err), 0, "%s", err.msg);
    int found[PLANTED] = {0};
    for (uint32_t k = 0; k < TOPICS; k++) {
        int planted = planted_topic_of(phi, L->vocab_size, TOPICS, k);
        if (planted >= 0)
            found[planted]++;
    }
    for (int t = 0; t < PLANTED; t++)
        cr_assert_geq(found[t], 1, "planted topic %d not recovered by any of the %d learned topics", t, TOPICS);
    free(phi);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
}

void planted_expect_matched(const float *planted_kv, uint32_t P, const float *learned_kv, uint32_t K, uint32_t V,
                            double max_tv)
{
    for (uint32_t t = 0; t < P; t++) {
        double best = INFINITY;
        uint32_t best_k = 0;
        for (uint32_t k = 0; k < K; k++) {
            double l1 = 0.0;
            for (uint32_t w = 0; w < V; w++)
                l1 += fabs((double)planted_kv[(size_t)t * V + w] - (double)learned_kv[(size_t)k * V + w]);
            if (0.5 * l1 < best) {
                best = 0.5 * l1;
                best_k = k;
            }
        }
        cr_assert_lt(best, max_tv, "planted topic %u: the nearest learned topic (%u) is %.3f away in total "
                     "variation, not within %.3f", t, best_k, best, max_tv);
    }
}
