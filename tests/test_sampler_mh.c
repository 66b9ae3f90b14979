/* test_sampler_mh.c — --sampler mh (backend/sampler_alias.h): its passes exactly a plain
 * restatement of the Metropolis–Hastings step on integer weights (the live counts, the proposal
 * and the acceptance); the chain's stationary distribution for one token the exact conditional
 * with live counts unlike the tables' (chi-squared); planted topics recovered end to end; the
 * same model for 1, 2 and 3 threads; the refusals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "backend/sampler_alias.h"
#include "backend/zplan.h"
#include "core/rng.h"
#include "core/search.h"
#include "collapsed_draws.h"
#include "helpers.h"
#include "planted.h"

/* Three passes on integer weights (fixed scales in place of 1 / (n[k] + Vβ)) must give exactly
 * the topics and counts of the step restated plainly: the blocks' tokens in their order; within a
 * run of one word its counts n[w,k] those of the pass's start moved by the run's earlier tokens,
 * the token's own topic off them and off n[m,k]; the proposal's document part searched over
 * every topic with those live counts, its word part and smoothing drawn from the pass's tables;
 * a proposed t ≠ s taken when u · p_s q_s(t) Z_t < p_t q_t(s) Z_s. Every weight is an integer,
 * so each side of the test is computed exactly the same way; some proposals must be refused. */
typedef struct {
    const int_state *st;
    const lda_alias_sampler *s;
    uint32_t *live;          /* the run's word's n[w,k]: the pass's start moved by the run's draws */
    double *cum, *f, *f0;    /* the document part's running sums; the live factors; the pass's */
    size_t refused;
} restated_mh;

static void begin_mh_run(void *ctx, uint32_t w)
{
    restated_mh *r = ctx;
    const uint32_t K = r->st->K, *nw = r->st->n_wk + (size_t)w * K;
    memcpy(r->live, nw, K * sizeof *r->live);
    for (uint32_t k = 0; k < K; k++)
        r->f0[k] = ((double)nw[k] + INT_BETA) * r->st->scale[k];
}

static uint32_t draw_mh_restated(void *ctx, const alias_walk_token *t)
{
    restated_mh *r = ctx;
    const int_state *st = r->st;
    const uint32_t K = st->K, old = t->old, *nw = t->nw, *row = t->row;
    const double beta = INT_BETA, *f = r->f, *f0 = r->f0;
    r->live[old]--;
    double D = 0;
    for (uint32_t k = 0; k < K; k++) {
        r->f[k] = ((double)r->live[k] + beta) * st->scale[k];
        r->cum[k] = D += (double)row[k] * f[k];
    }
    const double Zs = D + r->s->word_total[t->w] + r->s->smooth_total;
    uint32_t k = alias_draw_restated(r->s, t->w, r->cum, D, t->bits, NULL);
    if (k != old) {
        const double a_t = st->alpha[k], a_s = st->alpha[old];
        const double gt_s = ((double)nw[old] - 1 + beta) * st->scale[old];
        const double gt_t = ((double)nw[k] + 1 + beta) * st->scale[k];
        const double Zt = Zs - a_s * (f0[old] - gt_s) + a_t * (gt_t - f0[k]);
        const double p_t = (row[k] + a_t) * f[k], p_s = (row[old] + a_s) * f[old];
        const double q_st = row[k] * f[k] + a_t * f0[k], q_ts = row[old] * f[old] + a_s * gt_s;
        if (!(lda_uniform_double(t->bits.v[3]) * (p_s * q_st * Zt) < p_t * q_ts * Zs)) {
            k = old;
            r->refused++;
        }
    }
    r->live[k]++;
    return k;
}

/* from_z: the tables from z's copy by word, as the CPU backend makes them; else from the counts. */
static void passes_exact_on_integer_weights(uint32_t K, uint32_t parts, int from_z)
{
    enum { PASSES = 3 };
    int_state st;
    int_state_make(&st, K, 0);
    const lda_layout *L = st.L;
    const double beta = INT_BETA;
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_alias_sampler s;
    cr_assert_eq(lda_alias_create(L, K, parts, 2, 1, &s, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&s, st.n_wk, st.n_k, beta, st.scale, from_z};
    lda_zdraw in = {.n_mk = st.n, .alpha = st.alpha, .K = K, .seed = 21, .alias = &ain, .part_count = parts};
    if (from_z)
        lda_alias_z_set(&s, L, st.z);
    uint32_t *ez = malloc(L->num_positions * sizeof *ez), *en = malloc(L->num_slots * K * sizeof *en);
    restated_mh r = {&st, &s, malloc(K * sizeof *r.live), malloc(K * sizeof *r.cum), malloc(K * sizeof *r.f),
                     malloc(K * sizeof *r.f0), 0};
    memcpy(ez, st.z, L->num_positions * sizeof *ez);
    size_t moved = 0;
    for (uint32_t it = 1; it <= PASSES; it++)
        for (uint32_t part = 0; part < parts; part++) {
            in.iteration = it;
            in.part = part;
            moved += alias_pass_restated(pool, &st, &in, &s, en, ez, begin_mh_run, draw_mh_restated, &r);
        }
    if (K > 1) {
        cr_assert_gt(moved, st.c->num_tokens / 4, "K=%u: the draws changed almost nothing", K);
        cr_assert_gt(r.refused, 0, "K=%u: no proposal was refused", K);
    }
    lda_alias_free(&s);
    lda_pool_destroy(pool);
    free(ez);
    free(en);
    free(r.live);
    free(r.cum);
    free(r.f);
    free(r.f0);
    int_state_free(&st);
}

Test(sampler_mh, passes_exact_on_integer_weights)
{
    const uint32_t exact_K[] = EXACT_KS;
    for (size_t t = 0; t < sizeof exact_K / sizeof exact_K[0]; t++)
        passes_exact_on_integer_weights(exact_K[t], 1, 1);
}

Test(sampler_mh, passes_exact_with_refresh_parts)
{
    passes_exact_on_integer_weights(33, 3, 0);
    passes_exact_on_integer_weights(33, 3, 1);
}

/* One token T of a rare word (rare_state: the first of its block's first run, so its live counts
 * are the tables' less itself; word 0 has three more tokens), so the tables, which hold T at its
 * topic s, differ much from the live counts without it. If s is drawn from the exact conditional
 * p (the counts without T; real α and β), one step of the chain must leave T distributed as p:
 * 200,000 passes, each from its own s and with its own uniforms, a chi-squared test over K cells
 * at significance 0.001. */
Test(sampler_mh, stationary_distribution_is_the_exact_conditional)
{
    enum { K = RARE_K, SAMPLES = 200000 };
    rare_state rs;
    rare_state_make(&rs);
    const lda_layout *L = rs.L;
    double cdf[K];
    for (uint32_t k = 0; k < K; k++)
        cdf[k] = rs.p[k] + (k ? cdf[k - 1] : 0);
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_alias_sampler s;
    cr_assert_eq(lda_alias_create(L, K, 1, 2, 1, &s, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&s, rs.n_wk, rs.n_k, rs.beta, NULL, 0};
    lda_zdraw in = {.n_mk = rs.n, .alpha = rs.alpha, .K = K, .seed = 3, .alias = &ain};
    uint32_t *z = malloc(L->num_positions * sizeof *z);
    uint64_t counts[K] = {0};
    for (uint32_t it = 1; it <= SAMPLES; it++) {
        const double u = lda_uniform_double(lda_rng_once(11, LDA_RNG_TEST, 0, it));
        uint32_t s0 = 0;
        while (s0 + 1 < K && !(u < cdf[s0]))
            s0++;
        memcpy(z, rs.z, L->num_positions * sizeof *z);
        z[rs.pT] = s0;
        collapsed_count_all(L, K, z, rs.n, rs.n_wk, rs.n_k);
        in.iteration = it;
        cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
        counts[z[rs.pT]]++;
    }
    double dof, stat = test_chi2_stat(counts, rs.p, K, SAMPLES, &dof);
    const double pv = test_chi2_sf(stat, dof);
    cr_assert(pv > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, pv);
    lda_alias_free(&s);
    lda_pool_destroy(pool);
    free(z);
    rare_state_free(&rs);
}

Test(sampler_mh, planted_topics_recovered)
{
    planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_MH);
}

/* Same seed, 1, 2 and 3 threads: identical θ, φ and z after a few iterations, over several
 * blocks (each its own live counts), with documents cut into pieces and with --refresh 2. */
Test(sampler_mh, same_model_for_any_thread_count)
{
    same_model_over_blocks(LDA_SAMPLER_MH, "CPU mh");
}

/* The collapsed model only, on the CPU only, each refused in one line; held-out documents (φ
 * fixed) are drawn by sparse's split, so --holdout works, and the model records the sampler. */
Test(sampler_mh, collapsed_on_the_cpu_only)
{
    lda_zplan z;
    cpu_only_sampler_refusals(LDA_SAMPLER_MH, &z);
    cr_assert_eq(z.alias_block_warps, LDA_ZPLAN_MH_BLOCK_WARPS);
}
