/* test_e2e_cpu.c — planted topics recovered end to end by the CPU backend, and results
 * independent of the thread count. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "helpers.h"
#include "planted.h"

Test(e2e_cpu, planted_topics_recovered_draw) { planted_recovery(LDA_DEVICE_CPU, LDA_UPDATE_DRAW, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_mean) { planted_recovery(LDA_DEVICE_CPU, LDA_UPDATE_MEAN, LDA_PRECISION_DOUBLE, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_theta_collapsed) { planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_THETA_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_BUTTERFLY); }
Test(e2e_cpu, planted_topics_recovered_collapsed_refreshed) { planted_recovery_refreshed(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, 4); }
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
