/* test_e2e_cpu.c — planted topics recovered end to end by the CPU backend, and results
 * independent of the thread count. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "core/phi_mean.h"
#include "helpers.h"
#include "planted.h"

Test(e2e_cpu, planted_topics_recovered_draw) { planted_recovery(LDA_DEVICE_CPU, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_mean) { planted_recovery(LDA_DEVICE_CPU, LDA_UPDATE_MEAN, LDA_PRECISION_DOUBLE, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_theta_collapsed) { planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_THETA_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_collapsed_refreshed) { planted_recovery_refreshed(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, 4); }
Test(e2e_cpu, planted_topics_recovered_phi_mean) { planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_PHI_MEAN, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }

/* --model phi-mean: φ is exactly the mean of the counts, (n[w,k] + β) / (n[k] + Vβ) in double
 * rounded to float, while θ is drawn (not its mean); and the name survives model.conf and
 * --resume. */
Test(e2e_cpu, phi_mean_means_phi_and_draws_theta)
{
    corpus *c = test_planted_corpus(4, 10, 120, 10, 60, 3, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t K = 6, V = L->vocab_size;
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.threads = 2;
    lda_params_set_model(&p, LDA_MODEL_PHI_MEAN);
    cr_assert_eq(lda_params_model(&p), LDA_MODEL_PHI_MEAN);
    cr_assert_eq(lda_theta_update(&p), LDA_UPDATE_DRAW);
    cr_assert_eq(lda_phi_update(&p), LDA_UPDATE_MEAN);
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 3; it++)
        cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
    float *phi = malloc((size_t)V * K * sizeof *phi), *theta = malloc(L->num_slots * K * sizeof *theta);
    uint32_t *n_mk = malloc(L->num_slots * K * 4), *n_wk = malloc((size_t)V * K * 4), n_k[6];
    cr_assert_eq(b->ops->fetch(b, theta, phi, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_counts(b, n_mk, n_wk, n_k, &err), 0, "%s", err.msg);
    const double beta = b->priors.beta, alpha = b->priors.alpha[0];
    for (uint32_t w = 0; w < V; w++)
        for (uint32_t k = 0; k < K; k++) { /* the shared definition, within 1.5 ulp of the quotient */
            const double exact = (n_wk[w * K + k] + beta) / (n_k[k] + V * beta);
            cr_assert_eq(phi[w * K + k], lda_phi_mean_value(n_wk[w * K + k], (float)beta, lda_phi_mean_scale(n_k[k], V, beta)),
                         "φ[%u,%u]", w, k);
            cr_assert_leq(fabs(phi[w * K + k] - exact), 1.5 * FLT_EPSILON * exact, "φ[%u,%u] %.9g, mean %.9g", w, k,
                          phi[w * K + k], exact);
        }
    size_t drawn = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s])
            drawn += fabs(theta[s * K] - (n_mk[s * K] + alpha) / (L->slot_len[s] + K * alpha)) > 1e-6;
    cr_assert_gt(drawn, L->num_docs / 2, "θ looks like its mean in %zu of %zu documents", L->num_docs - drawn,
                 L->num_docs);
    free(phi);
    free(theta);
    free(n_mk);
    free(n_wk);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
    char *dir = test_tmpdir(), *corpus_path = test_tiny_corpus(dir), args[1024], conf[512];
    snprintf(args, sizeof args, "train '%s' --model phi-mean -K 3 -n 2 -j 2 -q --device cpu -o '%s/m'", corpus_path, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1 -j 2 -q --device cpu", dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    snprintf(conf, sizeof conf, "%s/m/model.conf", dir);
    char *text = test_read_file(conf);
    cr_assert(text && strstr(text, "model = phi-mean\n") && strstr(text, "iterations = 3\n"), "%s", text);
    free(text);
    free(corpus_path);
    test_rmdir(dir);
    free(dir);
}

Test(e2e_cpu, planted_topics_recovered_collapsed) { planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }

/* Same seed, 1 thread and 3 threads: identical θ, φ and z after a few iterations. */
Test(e2e_cpu, same_state_for_any_thread_count)
{
    corpus *c = test_planted_corpus(5, 20, 150, 10, 60, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    const uint32_t K = 5;
    float *theta[2], *phi[2];
    uint32_t *z[2];
    for (int run = 0; run < 2; run++) {
        lda_params p;
        lda_params_default(&p);
        p.num_topics = K;
        p.device = LDA_DEVICE_CPU;
        p.threads = run == 0 ? 1 : 3;
        lda_backend *b = lda_backend_create(L, &p, &err);
        cr_assert(b, "%s", err.msg);
        cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0);
        for (uint32_t it = 1; it <= 5; it++)
            cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0);
        theta[run] = malloc(L->num_slots * K * 4);
        phi[run] = malloc(L->vocab_size * K * 4);
        z[run] = malloc(L->num_positions * 4);
        cr_assert_eq(b->ops->fetch(b, theta[run], phi[run], z[run], &err), 0);
        lda_backend_destroy(b);
    }
    cr_assert_eq(memcmp(theta[0], theta[1], L->num_slots * K * 4), 0, "theta differs");
    cr_assert_eq(memcmp(phi[0], phi[1], L->vocab_size * K * 4), 0, "phi differs");
    cr_assert_eq(memcmp(z[0], z[1], L->num_positions * 4), 0, "z differs");
    for (int run = 0; run < 2; run++) {
        free(theta[run]);
        free(phi[run]);
        free(z[run]);
    }
    lda_layout_free(L);
    corpus_free(c);
}
