/* test_updates_cpu.c — counts, θ/φ updates, and the log-likelihoods on the CPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/eval_cpu.h"
#include "backend/layout.h"
#include "backend/updates_cpu.h"
#include "core/rng.h"
#include "helpers.h"

typedef struct {
    corpus *c;
    lda_layout *L;
    lda_word_index wi;
    lda_pool *pool;
    uint32_t K;
    uint32_t *z, *n_mk, *n_wk, *n_k;
} fixture;

static void setup_fixture(fixture *f, uint32_t K)
{
    lda_error err = {0};
    f->K = K;
    f->c = test_planted_corpus(4, 10, 100, 5, 40, 3, NULL);
    f->L = lda_layout_build(f->c, 0, &err);
    cr_assert(f->L);
    cr_assert_eq(lda_word_index_build(f->L, &f->wi, &err), 0);
    f->pool = lda_pool_create(2, &err);
    f->z = calloc(f->L->num_positions, sizeof *f->z);
    f->n_mk = malloc(f->L->num_slots * K * sizeof *f->n_mk);
    f->n_wk = malloc(f->L->vocab_size * K * sizeof *f->n_wk);
    f->n_k = malloc(K * sizeof *f->n_k);
    for (size_t s = 0; s < f->L->num_slots; s++)
        for (uint32_t i = 0; i < f->L->slot_len[s]; i++)
            f->z[lda_layout_pos(f->L, s, i)] = lda_rng_once(1, LDA_RNG_TEST, 0, s * 1000 + i) % K;
    cr_assert_eq(lda_cpu_count(f->pool, f->L, &f->wi, f->z, K, f->n_mk, f->n_wk, f->n_k, &err), 0);
}

static void teardown_fixture(fixture *f)
{
    free(f->z);
    free(f->n_mk);
    free(f->n_wk);
    free(f->n_k);
    lda_pool_destroy(f->pool);
    lda_word_index_free(&f->wi);
    lda_layout_free(f->L);
    corpus_free(f->c);
}

Test(updates_cpu, counts_match_a_direct_tally)
{
    fixture f;
    setup_fixture(&f, 7);
    const uint32_t K = f.K;
    uint32_t *mk = calloc(f.L->num_slots * K, 4), *wk = calloc(f.L->vocab_size * K, 4), nk[7] = {0};
    for (size_t s = 0; s < f.L->num_slots; s++)
        for (uint32_t i = 0; i < f.L->slot_len[s]; i++) {
            size_t p = lda_layout_pos(f.L, s, i);
            mk[s * K + f.z[p]]++;
            wk[f.L->words[p] * K + f.z[p]]++;
            nk[f.z[p]]++;
        }
    cr_assert_eq(memcmp(mk, f.n_mk, f.L->num_slots * K * 4), 0);
    cr_assert_eq(memcmp(wk, f.n_wk, f.L->vocab_size * K * 4), 0);
    cr_assert_eq(memcmp(nk, f.n_k, K * 4), 0);
    free(mk);
    free(wk);
    teardown_fixture(&f);
}

Test(updates_cpu, mean_update_is_the_dirichlet_mean)
{
    fixture f;
    setup_fixture(&f, 5);
    const uint32_t K = f.K, V = f.L->vocab_size;
    lda_error err = {0};
    float *theta = malloc(f.L->num_slots * K * 4), *phi = malloc(V * K * 4);
    /* α per topic (as learned: float values) */
    lda_priors priors;
    cr_assert_eq(lda_priors_init(&priors, K, 0.1, 0.01, &err), 0);
    double alpha[64], alpha_sum = 0;
    cr_assert_leq(K, 64);
    for (uint32_t k = 0; k < K; k++)
        alpha_sum += alpha[k] = (float)(0.05 * (1 + k % 3));
    lda_priors_learn(&priors, alpha, 0.01);
    cr_assert_eq(lda_cpu_update_theta(f.pool, f.L, f.n_mk, K, &priors, LDA_UPDATE_MEAN, 1, 1, theta, &err), 0);
    cr_assert_eq(lda_cpu_update_phi(f.pool, V, f.n_wk, f.n_k, K, 0.01, LDA_UPDATE_MEAN, 1, 1, phi, &err), 0);
    for (size_t s = 0; s < f.c->num_docs; s++)
        for (uint32_t k = 0; k < K; k++) {
            double expect = (f.n_mk[s * K + k] + alpha[k]) / (f.L->slot_len[s] + alpha_sum);
            cr_assert(fabs(theta[s * K + k] - expect) < 1e-6);
        }
    lda_priors_free(&priors);
    for (uint32_t k = 0; k < K; k++) {
        double col = 0;
        for (uint32_t w = 0; w < V; w++) {
            double expect = (f.n_wk[w * K + k] + 0.01) / (f.n_k[k] + V * 0.01);
            cr_assert(fabs(phi[w * K + k] - expect) < 1e-6);
            col += phi[w * K + k];
        }
        cr_assert(fabs(col - 1.0) < 1e-5);
    }
    free(theta);
    free(phi);
    teardown_fixture(&f);
}

/* Dirichlet draws: rows of θ and columns of φ sum to 1, and averaged over many
 * iterations' streams each entry approaches its Dirichlet mean. */
Test(updates_cpu, dirichlet_draws_have_the_right_means)
{
    fixture f;
    setup_fixture(&f, 6);
    const uint32_t K = f.K, V = f.L->vocab_size, draws = 400;
    const double alpha = 0.5, beta = 0.1;
    lda_error err = {0};
    float *theta = malloc(f.L->num_slots * K * 4), *phi = malloc(V * K * 4);
    double *theta_sum = calloc(f.L->num_slots * K, 8), *phi_sum = calloc(V * K, 8);
    lda_priors priors;
    cr_assert_eq(lda_priors_init(&priors, K, alpha, beta, &err), 0);
    for (uint32_t it = 1; it <= draws; it++) {
        cr_assert_eq(lda_cpu_update_theta(f.pool, f.L, f.n_mk, K, &priors, LDA_UPDATE_DRAW, 9, it, theta, &err), 0);
        cr_assert_eq(lda_cpu_update_phi(f.pool, V, f.n_wk, f.n_k, K, beta, LDA_UPDATE_DRAW, 9, it, phi, &err), 0);
        for (size_t i = 0; i < f.L->num_slots * K; i++)
            theta_sum[i] += theta[i];
        for (size_t i = 0; i < (size_t)V * K; i++)
            phi_sum[i] += phi[i];
        double row = 0;
        for (uint32_t k = 0; k < K; k++)
            row += theta[k];
        cr_assert(fabs(row - 1) < 1e-5);
    }
    /* Var of a Dirichlet component: m(1-m)/(A+1); 5 standard errors of the mean of `draws`. */
    for (size_t s = 0; s < f.c->num_docs; s++)
        for (uint32_t k = 0; k < K; k++) {
            double A = f.L->slot_len[s] + K * alpha, m = (f.n_mk[s * K + k] + alpha) / A;
            double se = sqrt(m * (1 - m) / (A + 1) / draws);
            cr_assert(fabs(theta_sum[s * K + k] / draws - m) < 5 * se + 1e-6, "theta[%zu,%u]", s, k);
        }
    for (uint32_t w = 0; w < V; w++)
        for (uint32_t k = 0; k < K; k++) {
            double A = f.n_k[k] + V * beta, m = (f.n_wk[w * K + k] + beta) / A;
            double se = sqrt(m * (1 - m) / (A + 1) / draws);
            cr_assert(fabs(phi_sum[w * K + k] / draws - m) < 5 * se + 1e-6, "phi[%u,%u]", w, k);
        }
    free(theta);
    free(phi);
    lda_priors_free(&priors);
    free(theta_sum);
    free(phi_sum);
    teardown_fixture(&f);
}

/* The joint log-likelihood equals a direct double-precision computation from the counts. */
Test(eval_cpu, joint_loglik_equals_direct_formula)
{
    fixture f;
    setup_fixture(&f, 4);
    const uint32_t K = f.K, V = f.L->vocab_size;
    const double alpha = 0.3, beta = 0.05;
    lda_error err = {0};
    double got;
    lda_priors priors;
    cr_assert_eq(lda_priors_init(&priors, K, alpha, beta, &err), 0);
    cr_assert_eq(lda_cpu_loglik_joint(f.pool, f.L, f.n_mk, f.n_wk, f.n_k, K, &priors, &got, &err), 0);
    lda_priors_free(&priors);
    double direct = 0;
    for (uint32_t k = 0; k < K; k++) {
        direct += lgamma(V * beta) - lgamma(f.n_k[k] + V * beta);
        for (uint32_t w = 0; w < V; w++)
            direct += lgamma(f.n_wk[w * K + k] + beta) - lgamma(beta);
    }
    for (size_t s = 0; s < f.c->num_docs; s++) {
        direct += lgamma(K * alpha) - lgamma(f.L->slot_len[s] + K * alpha);
        for (uint32_t k = 0; k < K; k++)
            direct += lgamma(f.n_mk[s * K + k] + alpha) - lgamma(alpha);
    }
    direct /= (double)f.c->num_tokens;
    cr_assert(fabs(got - direct) < 1e-10, "joint %.12f, direct %.12f", got, direct);
    teardown_fixture(&f);
}

Test(eval_cpu, predictive_loglik_of_uniform_model_is_log_one_over_v)
{
    fixture f;
    setup_fixture(&f, 3);
    const uint32_t K = f.K, V = f.L->vocab_size;
    lda_error err = {0};
    float *theta = malloc(f.L->num_slots * K * 4), *phi = malloc(V * K * 4);
    for (size_t i = 0; i < f.L->num_slots * K; i++)
        theta[i] = 1.0f / K;
    for (size_t i = 0; i < (size_t)V * K; i++)
        phi[i] = 1.0f / V;
    double ll;
    cr_assert_eq(lda_cpu_loglik_pred(f.pool, f.L, theta, phi, K, &ll, &err), 0);
    cr_assert(fabs(ll - log(1.0 / V)) < 1e-6, "%f vs %f", ll, log(1.0 / V));
    free(theta);
    free(phi);
    teardown_fixture(&f);
}

/* n[k] is 32-bit: the chunks' partial counts (64-bit) summed past 2^32 - 1 for one topic stop
 * the run, naming the topic; up to 2^32 - 1 they are summed exactly. */
Test(updates_cpu, a_topic_past_the_32_bit_count_is_refused)
{
    enum { K = 3, CHUNKS = 2 };
    uint64_t partial[CHUNKS * K] = {5, (uint64_t)UINT32_MAX - 9, 1, 7, 9, 3000000000u};
    uint32_t n_k[K];
    lda_error err = {0};
    cr_assert_eq(lda_cpu_topic_totals(partial, CHUNKS, K, n_k, &err), 0, "%s", err.msg);
    cr_assert_eq(n_k[0], 12);
    cr_assert_eq(n_k[1], UINT32_MAX);
    cr_assert_eq(n_k[2], 3000000001u);
    partial[4] = 10;
    cr_assert_eq(lda_cpu_topic_totals(partial, CHUNKS, K, n_k, &err), -1);
    cr_assert_eq(err.status, LDA_EXIT_FAILURE);
    cr_assert(strstr(err.msg, "topic 1 holds 4294967296 tokens; a topic's count is 32-bit"), "%s", err.msg);
}
