/* collapsed_draws.c — see collapsed_draws.h. */
#include "collapsed_draws.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/zplan.h"
#include "core/search.h"
#include "core/rng.h"
#include "helpers.h"

void collapsed_count_all(const lda_layout *L, uint32_t K, const uint32_t *z, uint32_t *n_mk, uint32_t *n_wk,
                         uint32_t *n_k)
{
    memset(n_mk, 0, L->num_slots * K * sizeof *n_mk);
    memset(n_wk, 0, (size_t)L->vocab_size * K * sizeof *n_wk);
    memset(n_k, 0, K * sizeof *n_k);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            const size_t pos = lda_layout_pos(L, s, i);
            n_mk[s * K + z[pos]]++;
            n_wk[(size_t)L->words[pos] * K + z[pos]]++;
            n_k[z[pos]]++;
        }
    lda_layout_join_cut_counts(L, K, n_mk, NULL);
}

void collapsed_conditional(const uint32_t *nm, const uint32_t *nw, const uint32_t *nk, const float *alpha, double beta,
                           uint32_t V, uint32_t K, double *p)
{
    double sum = 0;
    for (uint32_t k = 0; k < K; k++)
        sum += p[k] = ((double)alpha[k] + nm[k]) * (beta + nw[k]) / (nk[k] + V * beta);
    for (uint32_t k = 0; k < K; k++)
        p[k] /= sum;
}

void int_state_make(int_state *st, uint32_t K, uint32_t piece_length)
{
    enum { DOCS = 150, V = 37 };
    lda_error err = {0};
    st->K = K;
    st->c = test_word_runs_corpus(DOCS, V, 120);
    st->L = lda_layout_build(st->c, piece_length, &err);
    cr_assert(st->L, "%s", err.msg);
    cr_assert(!piece_length || st->L->num_cut_docs > 10, "the test must cut documents");
    st->alpha = malloc(K * sizeof *st->alpha);
    st->scale = malloc(K * sizeof *st->scale);
    for (uint32_t k = 0; k < K; k++) {
        st->alpha[k] = (float)(1 + k % 3);
        st->scale[k] = (double)(1 + (k * 7) % 3);
    }
    const lda_layout *L = st->L;
    st->z = malloc(L->num_positions * sizeof *st->z);
    st->n = malloc(L->num_slots * K * sizeof *st->n);
    st->n_wk = malloc((size_t)V * K * sizeof *st->n_wk);
    st->n_k = malloc(K * sizeof *st->n_k);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            st->z[lda_layout_pos(L, s, i)] = lda_rng_once(9, LDA_RNG_TEST, 4, L->slot_token_base[s] + i) % K;
    collapsed_count_all(L, K, st->z, st->n, st->n_wk, st->n_k);
}

void int_state_few_word_topics(int_state *st, uint32_t topics)
{
    const lda_layout *L = st->L;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            const size_t pos = lda_layout_pos(L, s, i);
            const uint32_t pick = lda_rng_once(9, LDA_RNG_TEST, 6, L->slot_token_base[s] + i) % topics;
            st->z[pos] = (L->words[pos] * 5 + pick) % st->K;
        }
    collapsed_count_all(L, st->K, st->z, st->n, st->n_wk, st->n_k);
}

void int_state_free(int_state *st)
{
    free(st->alpha);
    free(st->scale);
    free(st->z);
    free(st->n);
    free(st->n_wk);
    free(st->n_k);
    lda_layout_free(st->L);
    corpus_free(st->c);
}

/* The chi-squared states' real priors: α_k = 0.05 + 0.3 (k mod 4); returns β = 0.2. */
static double real_priors(float *alpha, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = 0.05f + (float)(k % 4) * 0.3f;
    return 0.2;
}

void rare_state_make(rare_state *rs)
{
    enum { DOCS = 32 };
    const uint32_t K = RARE_K, V = RARE_V;
    uint32_t lengths[DOCS], *docs[DOCS], words[DOCS][4];
    for (uint32_t d = 0; d < DOCS; d++) {
        lengths[d] = d == 0 ? 4 : 2;
        docs[d] = words[d];
        for (uint32_t i = 0; i < lengths[d]; i++)
            words[d][i] = d == 0 ? (uint32_t[]){0, 2, 2, 1}[i]
                                 : (d <= 3 && i == 0 ? 0 : 1 + lda_rng_once(5, LDA_RNG_TEST, i, d) % 2);
    }
    rs->c = test_corpus_from_docs(DOCS, (const uint32_t *const *)docs, lengths, V);
    lda_error err = {0};
    rs->L = lda_layout_build(rs->c, 0, &err);
    const lda_layout *L = rs->L;
    cr_assert(L && L->num_warps == 1, "%s", err.msg);
    rs->pT = lda_layout_pos(L, 0, 0);
    cr_assert_eq(L->words[rs->pT], 0, "slot 0 is the document of T");
    rs->beta = real_priors(rs->alpha, K);
    rs->z = malloc(L->num_positions * sizeof *rs->z);
    rs->n = malloc(L->num_slots * K * sizeof *rs->n);
    for (size_t sl = 0; sl < L->num_slots; sl++)
        for (uint32_t i = 0; i < L->slot_len[sl]; i++)
            rs->z[lda_layout_pos(L, sl, i)] = lda_rng_once(5, LDA_RNG_TEST, 7, sl * 4 + i) % K;
    rs->z[rs->pT] = 0;
    collapsed_count_all(L, K, rs->z, rs->n, rs->n_wk, rs->n_k);
    uint32_t nm[RARE_K], nw[RARE_K], nk[RARE_K]; /* without T */
    memcpy(nm, rs->n, sizeof nm);
    memcpy(nw, rs->n_wk, sizeof nw);
    memcpy(nk, rs->n_k, sizeof nk);
    nm[0]--, nw[0]--, nk[0]--;
    collapsed_conditional(nm, nw, nk, rs->alpha, rs->beta, V, K, rs->p);
    collapsed_conditional(nm, rs->n_wk, rs->n_k, rs->alpha, rs->beta, V, K, rs->p_word_with_T);
}

void rare_state_free(rare_state *rs)
{
    free(rs->z);
    free(rs->n);
    lda_layout_free(rs->L);
    corpus_free(rs->c);
}

void pair_state_make(pair_state *ps)
{
    enum { DOCS = 32 };
    const uint32_t K = PAIR_K, V = PAIR_V;
    uint32_t lengths[DOCS], *docs[DOCS], words[DOCS][2];
    for (uint32_t d = 0; d < DOCS; d++) {
        lengths[d] = 2;
        docs[d] = words[d];
        words[d][0] = d == 0 ? 1 : lda_rng_once(7, LDA_RNG_TEST, 0, d) % V;
        words[d][1] = d == 0 ? 1 : lda_rng_once(7, LDA_RNG_TEST, 1, d) % V;
    }
    ps->c = test_corpus_from_docs(DOCS, (const uint32_t *const *)docs, lengths, V);
    lda_error err = {0};
    ps->L = lda_layout_build(ps->c, 0, &err);
    const lda_layout *L = ps->L;
    cr_assert(L && L->num_warps == 1, "%s", err.msg);
    ps->p0 = lda_layout_pos(L, 0, 0);
    ps->p1 = lda_layout_pos(L, 0, 1);
    cr_assert(L->words[ps->p0] == 1 && L->words[ps->p1] == 1, "slot 0 is the document of word 1");
    ps->beta = real_priors(ps->alpha, K);
    ps->z0 = malloc(L->num_positions * sizeof *ps->z0);
    ps->n0 = malloc(L->num_slots * K * sizeof *ps->n0);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++)
            ps->z0[lda_layout_pos(L, s, i)] = s == 0 ? (i ? 6 : 3) : lda_rng_once(7, LDA_RNG_TEST, 2, s * 2 + i) % K;
    collapsed_count_all(L, K, ps->z0, ps->n0, ps->n_wk, ps->n_k);
}

void pair_state_free(pair_state *ps)
{
    free(ps->z0);
    free(ps->n0);
    lda_layout_free(ps->L);
    corpus_free(ps->c);
}

void pair_chi_squared(const pair_state *ps, lda_pool *pool, lda_zdraw *in, const double *prob, uint32_t samples)
{
    const lda_layout *L = ps->L;
    const uint32_t K = PAIR_K;
    uint32_t *z = malloc(L->num_positions * sizeof *z), *n = malloc(L->num_slots * K * sizeof *n);
    uint64_t counts[PAIR_K * PAIR_K] = {0};
    lda_error err = {0};
    in->n_mk = n;
    for (uint32_t it = 1; it <= samples; it++) {
        memcpy(z, ps->z0, L->num_positions * sizeof *z);
        memcpy(n, ps->n0, L->num_slots * K * sizeof *n);
        in->iteration = it;
        cr_assert_eq(lda_cpu_sample_z(pool, L, in, z, &err), 0, "%s", err.msg);
        counts[z[ps->p0] * K + z[ps->p1]]++;
    }
    double dof, stat = test_chi2_stat(counts, prob, K * K, samples, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert(p > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, p);
    free(z);
    free(n);
}

void same_model_for_any_thread_count(const lda_layout *L, uint32_t K, lda_sampler sampler, const char *plan)
{
    lda_error err = {0};
    float *theta[3], *phi[3];
    uint32_t *z[3];
    for (uint32_t refresh = 1; refresh <= 2; refresh++) {
        for (int run = 0; run < 3; run++) {
            lda_params p;
            lda_params_default(&p);
            lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
            p.sampler = sampler;
            p.num_topics = K;
            p.device = LDA_DEVICE_CPU;
            p.threads = run + 1;
            p.refresh = refresh;
            lda_backend *b = lda_backend_create(L, &p, &err);
            cr_assert(b, "%s", err.msg);
            cr_assert(strstr(b->zplan.why, plan), "%s", b->zplan.why);
            cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
            for (uint32_t it = 1; it <= 5; it++)
                cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
            theta[run] = malloc(L->num_slots * K * 4);
            phi[run] = malloc(L->vocab_size * K * 4);
            z[run] = malloc(L->num_positions * 4);
            cr_assert_eq(b->ops->fetch(b, theta[run], phi[run], z[run], &err), 0, "%s", err.msg);
            lda_backend_destroy(b);
        }
        for (int run = 1; run < 3; run++) {
            cr_assert_eq(memcmp(theta[0], theta[run], L->num_slots * K * 4), 0, "θ differs with %d threads", run + 1);
            cr_assert_eq(memcmp(phi[0], phi[run], L->vocab_size * K * 4), 0, "φ differs with %d threads", run + 1);
            cr_assert_eq(memcmp(z[0], z[run], L->num_positions * 4), 0, "z differs with %d threads", run + 1);
        }
        for (int run = 0; run < 3; run++) {
            free(theta[run]);
            free(phi[run]);
            free(z[run]);
        }
    }
}

void cpu_only_sampler_refusals(lda_sampler sampler, lda_zplan *collapsed)
{
    const char *name = lda_choice_name(lda_sampler_choices, sampler);
    char want[128];
    lda_params p;
    lda_params_default(&p);
    p.sampler = sampler;
    lda_zplan z;
    lda_error err = {0};
    lda_params_set_model(&p, LDA_MODEL_THETA_COLLAPSED);
    cr_assert_eq(lda_zplan_cpu(&p, 2, &z, &err), -1);
    snprintf(want, sizeof want, "--sampler %s: draws the collapsed model only", name);
    cr_assert(strstr(err.msg, want), "%s", err.msg);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    memset(&err, 0, sizeof err);
    cr_assert_eq(lda_zplan_cpu(&p, 2, collapsed, &err), 0, "%s", err.msg);
    p.num_topics = 1024;
    cr_assert_eq(lda_params_piece_length(&p), 0, "documents drawn whole");
    const lda_gpu_limits h100 = {227 * 1024, 132};
    corpus *c = test_planted_corpus(3, 8, 100, 3, 90, 6, NULL);
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), -1);
    snprintf(want, sizeof want, "--sampler %s: runs on the CPU only", name);
    cr_assert(strstr(err.msg, want), "%s", err.msg);
    lda_layout_free(L);
    corpus_free(c);
    p.device = LDA_DEVICE_AUTO;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.device, LDA_DEVICE_CPU, "auto with a CPU-only sampler resolves to the CPU");
    char *dir = test_tmpdir(), *corpus_path = test_tiny_corpus(dir), args[1024], conf[512];
    snprintf(args, sizeof args, "train '%s' --sampler %s --model uncollapsed --device cpu -n 1 -q -o '%s/m'",
             corpus_path, name, dir);
    snprintf(want, sizeof want, "--sampler %s: draws the collapsed model only", name);
    test_expect_failure(args, 2, want);
    snprintf(args, sizeof args, "train '%s' --sampler %s --model collapsed --holdout 0.3 --device cpu -K 3 -n 2 -j 2 "
             "-q -o '%s/m'", corpus_path, name, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0, "%s", args);
    snprintf(conf, sizeof conf, "%s/m/model.conf", dir);
    char *text = test_read_file(conf);
    snprintf(want, sizeof want, "\nsampler = %s\n", name);
    cr_assert(text && strstr(text, want), "%s", text);
    free(text);
    free(corpus_path);
    test_rmdir(dir);
    free(dir);
}

void same_model_over_blocks(lda_sampler sampler, const char *plan)
{
    corpus *c = test_planted_corpus(5, 20, 3 * LDA_ZPLAN_MH_BLOCK_WARPS * LDA_WARP + 100, 5, 40, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 24, &err);
    cr_assert(L && L->num_cut_docs > 0 && L->num_warps > 3 * LDA_ZPLAN_MH_BLOCK_WARPS, "%s", err.msg);
    same_model_for_any_thread_count(L, 7, sampler, plan);
    lda_layout_free(L);
    corpus_free(c);
}

uint32_t alias_draw_restated(const lda_alias_sampler *s, uint32_t w, const double *cum, double D, lda_u32x4 bits,
                             int *from_tables)
{
    const double target =
        lda_scaled_target_double(D + s->word_total[w] + s->smooth_total, lda_uniform_double(bits.v[0]));
    if (from_tables)
        *from_tables = !(target < D);
    if (target < D)
        return (uint32_t)lda_linear_search_double(cum, (int)s->K, target);
    if (target - D < s->word_total[w])
        return lda_alias_cells_draw(s->cells + s->offset[w], s->len[w], s->word_total[w], bits.v[1], bits.v[2]);
    return lda_alias_cells_draw(s->smooth, s->K, s->smooth_total, bits.v[1], bits.v[2]);
}

size_t alias_pass_restated(lda_pool *pool, int_state *st, lda_zdraw *in, const lda_alias_sampler *s, uint32_t *en,
                           uint32_t *ez, void (*run_begin)(void *ctx, uint32_t w),
                           uint32_t (*draw)(void *ctx, const alias_walk_token *t), void *ctx)
{
    const lda_layout *L = st->L;
    const uint32_t K = in->K, parts = in->part_count ? in->part_count : 1, part = in->part;
    lda_error err = {0};
    collapsed_count_all(L, K, st->z, st->n, st->n_wk, st->n_k);
    memcpy(en, st->n, L->num_slots * K * sizeof *en);
    uint32_t *start_topics = calloc(L->num_slots + 1, sizeof *start_topics);
    cr_assert(start_topics);
    for (size_t sl = 0; sl < L->num_slots; sl++)
        for (uint32_t k = 0; k < K; k++)
            start_topics[sl] += en[sl * K + k] != 0;
    cr_assert_eq(lda_cpu_sample_z(pool, L, in, st->z, &err), 0, "%s", err.msg);
    const size_t part_warps = lda_part_warps(L->num_warps, part, parts);
    size_t changed = 0;
    for (size_t b = s->part_block[part]; b < s->part_block[part + 1]; b++) {
        const lda_alias_token *tok = s->tokens + s->block_token[b];
        for (uint64_t r = s->block_run[b]; r < s->block_run[b + 1]; r++) {
            alias_walk_token t = {.w = s->run_word[r], .nw = st->n_wk + (size_t)s->run_word[r] * K};
            if (run_begin)
                run_begin(ctx, t.w);
            for (uint32_t i = 0; i < s->run_len[r]; i++, tok++) {
                const size_t j = s->block_j0[b] + tok->slot / LDA_WARP;
                cr_assert_lt(j, part_warps);
                const size_t sl = (j * parts + part) * LDA_WARP + tok->slot % LDA_WARP;
                const size_t pos = lda_layout_pos(L, sl, tok->i);
                cr_assert_eq(L->words[pos], t.w, "the run's word");
                t.row = en + sl * K;
                t.old = ez[pos];
                t.slot_tokens = L->slot_len[sl];
                t.doc_tokens = L->slot_doc_len[sl];
                t.start_topics = start_topics[sl];
                t.doc_topics = 0;
                for (uint32_t k = 0; k < K; k++)
                    t.doc_topics += t.row[k] != 0;
                t.row[t.old]--;
                t.seed = in->seed;
                t.token = L->slot_token_base[sl] + tok->i;
                t.iteration = in->iteration;
                t.bits = lda_philox(lda_rng_counter(LDA_RNG_Z, t.iteration, t.token, 0), t.seed);
                const uint32_t k = draw(ctx, &t);
                t.row[k]++;
                changed += k != t.old;
                ez[pos] = k;
            }
        }
    }
    free(start_topics);
    char what[64];
    snprintf(what, sizeof what, "K=%u parts %u pass %u", K, parts, in->iteration);
    expect_same_pass(L, K, st->z, ez, st->n, en, what);
    return changed;
}

void expect_same_pass(const lda_layout *L, uint32_t K, const uint32_t *z, const uint32_t *ez, const uint32_t *n,
                      const uint32_t *en, const char *what)
{
    for (size_t sl = 0; sl < L->num_slots; sl++)
        for (uint32_t i = 0; i < L->slot_len[sl]; i++) {
            const size_t pos = lda_layout_pos(L, sl, i);
            cr_assert_eq(z[pos], ez[pos], "%s slot %zu token %u: %u, reference %u", what, sl, i, z[pos], ez[pos]);
        }
    cr_assert_eq(memcmp(n, en, L->num_slots * K * sizeof *en), 0, "%s: counts differ", what);
}
