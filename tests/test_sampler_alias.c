/* test_sampler_alias.c — --sampler alias (backend/sampler_alias.h): its tables' probabilities
 * exactly the collapsed weights on integer weights; its passes exactly a plain restatement of the
 * draw (the document's part searched over every topic, the token's own topic off the word's
 * counts, the word's and the smoothing drawn from those tables, their draw of the own topic kept
 * or drawn again), also where long documents' tokens sum the word's topics instead (the word
 * side, lda_alias_word_side); chi-squared tests on real weights, of one token of a rare word (its
 * own topic off the word side), of one token drawn by the word side and of a pair; planted topics
 * recovered end to end; the same model for 1, 2 and 3 threads; the refusals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "backend/sampler_alias.h"
#include "backend/updates_cpu.h"
#include "backend/zplan.h"
#include "core/rng.h"
#include "core/search.h"
#include "collapsed_draws.h"
#include "helpers.h"
#include "planted.h"

/* n × the share each outcome gets of a table of n cells (core/alias.h): its cells' cuts plus
 * what the cells aliasing it leave, in units of the total. Exact on integer weights. */
static void table_masses(const lda_alias_cell *cells, uint32_t n, double total, uint32_t K, double *mass)
{
    memset(mass, 0, K * sizeof *mass);
    for (uint32_t j = 0; j < n; j++) {
        mass[cells[j].own] += cells[j].cut;
        mass[cells[j].alias] += total - cells[j].cut;
    }
}

/* Tables from z's copy by word (lda_alias_z_set), as the CPU backend makes them, are those from
 * z's counts byte for byte, on the fixed scale and on 1 / (n[k] + Vβ) (which reads the n[k] they
 * count), and a state not given z refuses them. */
static void expect_tables_from_z_same(lda_pool *pool, const int_state *st, const lda_alias_sampler *from_counts,
                                      const double *scale)
{
    const lda_layout *L = st->L;
    const uint32_t K = st->K, V = (uint32_t)L->vocab_size;
    lda_error err = {0};
    lda_alias_sampler s;
    cr_assert_eq(lda_alias_create(L, K, 1, 2, 0, &s, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&s, NULL, NULL, INT_BETA, scale, 1};
    const lda_zdraw in = {.n_mk = st->n, .alpha = st->alpha, .K = K, .seed = 21, .alias = &ain};
    cr_assert_eq(lda_alias_tables(pool, &in, &err), -1, "K=%u: tables from z before z was given", K);
    cr_assert(strstr(err.msg, "lda_alias_z_set"), "%s", err.msg);
    err = (lda_error){0};
    lda_alias_z_set(&s, L, st->z);
    cr_assert_eq(lda_alias_tables(pool, &in, &err), 0, "%s", err.msg);
    const lda_alias_sampler *c = from_counts;
    cr_assert_arr_eq(s.n_k, st->n_k, K * sizeof *s.n_k, "K=%u: n[k] counted from z", K);
    cr_assert_arr_eq(s.len, c->len, V * sizeof *s.len, "K=%u: the words' lengths", K);
    cr_assert_arr_eq(s.word_total, c->word_total, V * sizeof *s.word_total, "K=%u: the words' totals", K);
    for (uint32_t w = 0; w < V; w++) { /* a word's room past its length is not written */
        const uint64_t at = c->offset[w], n = c->len[w];
        cr_assert_arr_eq(s.word_topic + at, c->word_topic + at, n * sizeof *s.word_topic, "K=%u word %u: topics", K, w);
        cr_assert_arr_eq(s.word_count + at, c->word_count + at, n * sizeof *s.word_count, "K=%u word %u: counts", K, w);
        cr_assert_arr_eq(s.word_factor + at, c->word_factor + at, n * sizeof *s.word_factor, "K=%u word %u: factors",
                         K, w);
        cr_assert_arr_eq(s.cells + at, c->cells + at, n * sizeof *s.cells, "K=%u word %u: its table", K, w);
    }
    cr_assert_arr_eq(s.smooth, c->smooth, K * sizeof *s.smooth, "K=%u: the smoothing's table", K);
    cr_assert_arr_eq(s.base, c->base, K * sizeof *s.base, "K=%u: β / (n[k] + Vβ)", K);
    lda_alias_free(&s);
}

/* For every word, n × its table's share of each topic is n α_k n[w,k] scale_k, the word part of
 * the collapsed weight, and its total their sum; K × the smoothing table's share is K α_k β
 * scale_k. So for every token of every document, with its own topic off n[m,k], the document
 * part n[m,k] (n[w,k] + β) scale_k plus the two tables' shares is (n[m,k] + α_k) (n[w,k] + β)
 * scale_k, the plain weight, exactly. The tables from z's copy by word are these
 * (expect_tables_from_z_same). */
Test(sampler_alias, tables_exact_on_integer_weights)
{
    const uint32_t exact_K[] = EXACT_KS;
    for (size_t t = 0; t < sizeof exact_K / sizeof exact_K[0]; t++) {
        const uint32_t K = exact_K[t];
        int_state st;
        int_state_make(&st, K, 0);
        const lda_layout *L = st.L;
        lda_error err = {0};
        lda_pool *pool = lda_pool_create(2, &err);
        cr_assert(pool, "%s", err.msg);
        lda_alias_sampler s;
        cr_assert_eq(lda_alias_create(L, K, 1, 2, 0, &s, &err), 0, "%s", err.msg);
        const lda_alias_in ain = {&s, st.n_wk, st.n_k, INT_BETA, st.scale, 0};
        const lda_zdraw in = {.n_mk = st.n, .alpha = st.alpha, .K = K, .seed = 21, .alias = &ain};
        cr_assert_eq(lda_alias_tables(pool, &in, &err), 0, "%s", err.msg);
        double *word_mass = malloc(L->vocab_size * K * sizeof *word_mass), *smooth = malloc(K * sizeof *smooth);
        double smooth_sum = 0;
        table_masses(s.smooth, K, s.smooth_total, K, smooth);
        for (uint32_t k = 0; k < K; k++) {
            const double w = (double)st.alpha[k] * INT_BETA * st.scale[k];
            smooth_sum += w;
            cr_assert_eq(smooth[k], K * w, "K=%u smoothing, topic %u: %.17g against %.17g", K, k, smooth[k], K * w);
        }
        cr_assert_eq(s.smooth_total, smooth_sum, "K=%u: the smoothing's total", K);
        for (uint32_t w = 0; w < L->vocab_size; w++) {
            const uint32_t *nw = st.n_wk + (size_t)w * K;
            double *mass = word_mass + (size_t)w * K, sum = 0;
            if (s.len[w])
                table_masses(s.cells + s.offset[w], s.len[w], s.word_total[w], K, mass);
            else
                memset(mass, 0, K * sizeof *mass);
            uint32_t listed = 0;
            for (uint32_t k = 0; k < K; k++) {
                const double a = (double)st.alpha[k] * nw[k] * st.scale[k];
                sum += a;
                listed += nw[k] != 0;
                cr_assert_eq(mass[k], s.len[w] * a, "K=%u word %u topic %u: %.17g against %.17g", K, w, k, mass[k],
                             s.len[w] * a);
            }
            cr_assert_eq(s.len[w], listed, "K=%u word %u: its table lists its topics with a count", K, w);
            cr_assert_eq(s.word_total[w], sum, "K=%u word %u: the table's total", K, w);
        }
        size_t tokens = 0;
        for (size_t sl = 0; sl < L->num_slots; sl++)
            for (uint32_t i = 0; i < L->slot_len[sl]; i++, tokens++) {
                const size_t pos = lda_layout_pos(L, sl, i);
                const uint32_t w = L->words[pos], old = st.z[pos], *nm = st.n + sl * K, *nw = st.n_wk + (size_t)w * K;
                const uint32_t len = s.len[w];
                for (uint32_t k = 0; k < K; k++) {
                    const double nmk = (double)nm[k] - (k == old), b = nw[k] + INT_BETA;
                    const double implied = (double)len * K * nmk * b * st.scale[k] +
                                           (double)K * word_mass[(size_t)w * K + k] + (double)len * smooth[k];
                    const double plain = (double)len * K * ((nmk + st.alpha[k]) * b * st.scale[k]);
                    cr_assert_eq(implied, plain, "K=%u slot %zu token %u topic %u: %.17g against %.17g", K, sl, i, k,
                                 implied, plain);
                }
            }
        cr_assert_gt(tokens, 1000);
        expect_tables_from_z_same(pool, &st, &s, st.scale);
        const lda_alias_in real = {&s, st.n_wk, st.n_k, INT_BETA, NULL, 0};
        const lda_zdraw in_real = {.n_mk = st.n, .alpha = st.alpha, .K = K, .seed = 21, .alias = &real};
        cr_assert_eq(lda_alias_tables(pool, &in_real, &err), 0, "%s", err.msg);
        expect_tables_from_z_same(pool, &st, &s, NULL);
        free(word_mass);
        free(smooth);
        lda_alias_free(&s);
        lda_pool_destroy(pool);
        int_state_free(&st);
    }
}

/* Three passes on integer weights, with `parts` --refresh parts, must give exactly the topics and
 * counts of the draw restated plainly: the state's blocks in its order, each token's document
 * part n[m,k] (n[w,k] + β) scale_k searched over every topic (those without a count add exactly
 * nothing), its own topic s at (n[w,s] - 1 + β) scale_s (the fixed scale stands for 1 / (n[s] - 1
 * + Vβ) too), and where the target passes it, the word's table or the smoothing's (checked above)
 * drawn with the token's other two random words; a draw of s from them kept when u_4 (n[w,s] + β)
 * < n[w,s] - 1 + β, else the whole draw made again with the next Philox block of the token. Some
 * draws must be made again. */
typedef struct {
    const int_state *st;
    const lda_alias_sampler *s;
    double *cum; /* 2K */
    size_t redrawn;
    size_t word_side, list_side; /* the tokens whose document part was summed so, and the others */
} restated_alias;

/* Where the word side is taken (lda_alias_word_side_doc, lda_alias_word_side), the document part is two stretches of K cells:
 * n[m,k] n[w,k] scale_k, then β n[m,k] scale_k (the token off both), searched in that order; the
 * tables past them as before. */
static uint32_t word_side_restated(const restated_alias *r, const alias_walk_token *t, double D, lda_u32x4 bits,
                                   int *from_tables)
{
    const uint32_t K = r->st->K;
    const double target = lda_scaled_target_double(D + r->s->word_total[t->w] + r->s->smooth_total,
                                                   lda_uniform_double(bits.v[0]));
    if (target < D) {
        *from_tables = 0;
        return (uint32_t)lda_linear_search_double(r->cum, (int)(2 * K), target) % K;
    }
    return alias_draw_restated(r->s, t->w, r->cum, D, bits, from_tables);
}

static uint32_t draw_alias_restated(void *ctx, const alias_walk_token *t)
{
    restated_alias *r = ctx;
    const uint32_t K = r->st->K, s = t->old;
    const double *scale = r->st->scale;
    const double f_s = ((double)t->nw[s] + INT_BETA) * scale[s], own = ((double)(t->nw[s] - 1) + INT_BETA) * scale[s];
    const int word_side = lda_alias_word_side_doc(K, t->slot_tokens, t->doc_tokens, t->start_topics) &&
                          lda_alias_word_side(t->doc_topics, r->s->len[t->w]);
    double D = 0;
    if (word_side) {
        for (uint32_t k = 0; k < K; k++)
            r->cum[k] = D += (double)t->row[k] * ((double)(t->nw[k] - (k == s)) * scale[k]);
        for (uint32_t k = 0; k < K; k++)
            r->cum[K + k] = D += INT_BETA * (double)t->row[k] * scale[k];
        r->word_side++;
    } else {
        for (uint32_t k = 0; k < K; k++)
            r->cum[k] = D += (double)t->row[k] * (k == s ? own : (t->nw[k] + INT_BETA) * scale[k]);
        r->list_side++;
    }
    lda_u32x4 bits = t->bits;
    for (uint32_t block = 1;; block++) {
        int from_tables;
        const uint32_t k = word_side ? word_side_restated(r, t, D, bits, &from_tables)
                                     : alias_draw_restated(r->s, t->w, r->cum, D, bits, &from_tables);
        if (!from_tables || k != s || K == 1 || lda_uniform_double(bits.v[3]) * f_s < own)
            return k;
        r->redrawn++;
        bits = lda_philox(lda_rng_counter(LDA_RNG_Z, t->iteration, t->token, block), t->seed);
    }
}

/* from_z: the tables from z's copy by word, as the CPU backend makes them (sampler_alias.h),
 * kept by the passes' draws; else from the counts. word_topics: where not 0, z begun with that
 * many topics a word (int_state_few_word_topics), so that many tokens take the word side. */
static void passes_exact_on_integer_weights(uint32_t K, uint32_t parts, uint32_t piece_length, int from_z,
                                            uint32_t word_topics)
{
    enum { PASSES = 3 };
    int_state st;
    int_state_make(&st, K, piece_length);
    if (word_topics)
        int_state_few_word_topics(&st, word_topics);
    const lda_layout *L = st.L;
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_alias_sampler s;
    cr_assert_eq(lda_alias_create(L, K, parts, 2, 0, &s, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&s, st.n_wk, st.n_k, INT_BETA, st.scale, from_z};
    lda_zdraw in = {.n_mk = st.n, .alpha = st.alpha, .K = K, .seed = 21, .alias = &ain, .part_count = parts};
    if (from_z)
        lda_alias_z_set(&s, L, st.z);
    uint32_t *ez = malloc(L->num_positions * sizeof *ez), *en = malloc(L->num_slots * K * sizeof *en);
    restated_alias r = {&st, &s, malloc(2 * K * sizeof *r.cum), 0, 0, 0};
    memcpy(ez, st.z, L->num_positions * sizeof *ez);
    size_t changed = 0;
    for (uint32_t it = 1; it <= PASSES; it++)
        for (uint32_t part = 0; part < parts; part++) {
            in.iteration = it;
            in.part = part;
            changed += alias_pass_restated(pool, &st, &in, &s, en, ez, NULL, draw_alias_restated, &r);
        }
    if (K > 1) {
        cr_assert_gt(changed, st.c->num_tokens / 4, "K=%u: the draws changed almost nothing", K);
        cr_assert_gt(r.redrawn, 0, "K=%u: no draw was made again", K);
    }
    /* both ways, each for many tokens, where documents can list LDA_ALIAS_WORD_SIDE_TOPICS topics
     * at the pass's start and more than twice their words' */
    if (word_topics && K >= 2 * LDA_ALIAS_WORD_SIDE_TOPICS && K <= LDA_ALIAS_WORD_SIDE_MAX_K)
        cr_assert(r.word_side > PASSES * st.c->num_tokens / 10 && r.list_side > PASSES * st.c->num_tokens / 10,
                  "K=%u: %zu tokens took the word side, %zu the list's", K, r.word_side, r.list_side);
    else if (K < LDA_ALIAS_WORD_SIDE_TOPICS || K > LDA_ALIAS_WORD_SIDE_MAX_K)
        cr_assert_eq(r.word_side, 0, "K=%u: the word side taken", K);
    lda_alias_free(&s);
    lda_pool_destroy(pool);
    free(ez);
    free(en);
    free(r.cum);
    int_state_free(&st);
}

Test(sampler_alias, passes_exact_on_integer_weights)
{
    const uint32_t exact_K[] = EXACT_KS;
    for (size_t t = 0; t < sizeof exact_K / sizeof exact_K[0]; t++)
        passes_exact_on_integer_weights(exact_K[t], 1, 0, 1, 0);
}

/* The same with words of two topics in documents of many: the document part summed over the
 * word's topics (lda_alias_word_side) for many tokens at K = 100, over the list for the others
 * (at the other K documents list too few topics for it, or K is past LDA_ALIAS_WORD_SIDE_MAX_K). */
Test(sampler_alias, passes_exact_with_the_word_side)
{
    const uint32_t exact_K[] = EXACT_KS;
    for (size_t t = 0; t < sizeof exact_K / sizeof exact_K[0]; t++)
        passes_exact_on_integer_weights(exact_K[t], 1, 0, 1, 2);
    passes_exact_on_integer_weights(100, 2, 0, 0, 2);
}

Test(sampler_alias, passes_exact_with_refresh_parts_and_pieces)
{
    passes_exact_on_integer_weights(33, 3, 0, 0, 0);
    passes_exact_on_integer_weights(33, 3, 0, 1, 0);
    passes_exact_on_integer_weights(100, 2, 16, 1, 0);
}

/* One token at position pos, the state's (z0, its n[m,k] n0, n[w,k] and n[k], real α and β)
 * drawn by `samples` alias passes from it, each with its own uniforms: its topics must follow p,
 * its exact conditional with itself off every count (chi-squared over K cells, significance
 * 0.001), and must be told from p_with_T, the conditional with itself left in n[w,k] and n[k]. */
static void one_token_chi_squared(const lda_layout *L, uint32_t K, const uint32_t *z0, const uint32_t *n0,
                                  const uint32_t *n_wk, const uint32_t *n_k, const float *alpha, double beta, size_t pos,
                                  const double *p, const double *p_with_T, uint32_t samples)
{
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_alias_sampler s;
    cr_assert_eq(lda_alias_create(L, K, 1, 2, 0, &s, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&s, n_wk, n_k, beta, NULL, 0};
    uint32_t *z = malloc(L->num_positions * sizeof *z), *n = malloc(L->num_slots * K * sizeof *n);
    uint64_t *counts = calloc(K, sizeof *counts);
    cr_assert(z && n && counts);
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .K = K, .seed = 3, .alias = &ain};
    for (uint32_t it = 1; it <= samples; it++) {
        memcpy(z, z0, L->num_positions * sizeof *z);
        memcpy(n, n0, L->num_slots * K * sizeof *n);
        in.iteration = it;
        cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
        counts[z[pos]]++;
    }
    double dof, stat = test_chi2_stat(counts, p, K, samples, &dof);
    double pv = test_chi2_sf(stat, dof);
    cr_assert(pv > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, pv);
    stat = test_chi2_stat(counts, p_with_T, K, samples, &dof);
    pv = test_chi2_sf(stat, dof);
    cr_assert(pv < 0.001, "the draw with T on the word side: chi-squared %.1f on %.0f dof, p = %g", stat, dof, pv);
    lda_alias_free(&s);
    lda_pool_destroy(pool);
    free(z);
    free(n);
    free(counts);
}

/* One token T of a rare word (rare_state: word 0, three more tokens), its topic 0 at the pass's
 * start: 200,000 passes from that state, each with its own uniforms, must give T's topic as its
 * exact conditional with T off every count, n[w,k] and n[k] included (chi-squared over K cells,
 * significance 0.001), and must tell it from the draw with T left in n[w,k] and n[k] (the same
 * test must reject that one). */
Test(sampler_alias, own_topic_off_the_word_side)
{
    rare_state rs;
    rare_state_make(&rs);
    one_token_chi_squared(rs.L, RARE_K, rs.z, rs.n, rs.n_wk, rs.n_k, rs.alpha, rs.beta, rs.pT, rs.p, rs.p_word_with_T,
                          200000);
    rare_state_free(&rs);
}

/* One token T drawn with its document part summed over its word's topics (lda_alias_word_side), on
 * real weights (α_k = 0.05 + 0.3 (k mod 4), β = 0.2), K = 40: 32 documents over 5 words, the
 * first of 80 tokens (slot 0, the longest), its tokens after T of words 1-4 at topics i mod K, so
 * that it lists every topic; T its first token, of word 0 at topic 0, word 0's three other tokens
 * (in documents 1-3) at topic 1, so the word has two topics; the other documents two tokens at
 * random topics. T is the first token of its block's first run. 200,000 passes from that state,
 * each with its own uniforms, must give T's topic as its exact conditional with T off every count
 * (chi-squared over K cells, significance 0.001), and must tell it from the conditional with T
 * left in n[w,k] and n[k]. */
Test(sampler_alias, chi_squared_of_the_word_side)
{
    enum { K = 40, V = 5, DOCS = 32, LONG = 80, SAMPLES = 200000 };
    uint32_t lengths[DOCS], *docs[DOCS], words[DOCS][LONG];
    for (uint32_t d = 0; d < DOCS; d++) {
        lengths[d] = d == 0 ? LONG : 2;
        docs[d] = words[d];
        for (uint32_t i = 0; i < lengths[d]; i++)
            words[d][i] = d == 0 ? (i == 0 ? 0 : 1 + i % (V - 1))
                                 : (d <= 3 && i == 0 ? 0 : 1 + lda_rng_once(5, LDA_RNG_TEST, i, d) % (V - 1));
    }
    corpus *c = test_corpus_from_docs(DOCS, (const uint32_t *const *)docs, lengths, V);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L && L->num_warps == 1, "%s", err.msg);
    cr_assert_eq(L->slot_doc[0], 0, "slot 0 holds the long document");
    float alpha[K];
    const double beta = 0.2;
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = 0.05f + (float)(k % 4) * 0.3f;
    uint32_t *z0 = malloc(L->num_positions * sizeof *z0), *n0 = malloc(L->num_slots * K * sizeof *n0);
    uint32_t n_wk[V * K], n_k[K];
    for (size_t sl = 0; sl < L->num_slots; sl++)
        for (uint32_t i = 0; i < L->slot_len[sl]; i++) {
            const size_t pos = lda_layout_pos(L, sl, i);
            z0[pos] = L->words[pos] == 0 ? (sl == 0 ? 0 : 1)
                      : sl == 0          ? i % K
                                         : lda_rng_once(5, LDA_RNG_TEST, 8, sl * 4 + i) % K;
        }
    const size_t pT = lda_layout_pos(L, 0, 0);
    cr_assert_eq(L->words[pT], 0, "T is slot 0's first token");
    collapsed_count_all(L, K, z0, n0, n_wk, n_k);
    uint32_t listed = 0;
    for (uint32_t k = 0; k < K; k++)
        listed += n0[k] != 0;
    cr_assert(lda_alias_word_side_doc(K, L->slot_len[0], L->slot_doc_len[0], listed) && lda_alias_word_side(listed, 2),
              "T takes the word side");
    double p[K], p_with_T[K];
    uint32_t nm[K], nw[K], nk[K]; /* without T */
    memcpy(nm, n0, sizeof nm);
    memcpy(nw, n_wk, sizeof nw);
    memcpy(nk, n_k, sizeof nk);
    nm[0]--, nw[0]--, nk[0]--;
    collapsed_conditional(nm, nw, nk, alpha, beta, V, K, p);
    collapsed_conditional(nm, n_wk, n_k, alpha, beta, V, K, p_with_T);
    one_token_chi_squared(L, K, z0, n0, n_wk, n_k, alpha, beta, pT, p, p_with_T, SAMPLES);
    free(z0);
    free(n0);
    lda_layout_free(L);
    corpus_free(c);
}

/* 32 documents of two tokens; slot 0's are both of word 1 at topics (3, 6), drawn in that order
 * (the block's tokens of word 1 by slot, then position); the others' words and topics fixed at
 * random, so n[w,k] and n[k] are uneven. The pair's joint distribution is P(x | state)
 * P(y | x moved into the document's counts), the word–topic counts those of the pass's start
 * less the token's own topic (3 for x, 6 for y; real α and β); 200,000 passes from the same
 * state, each with its own uniforms, give that many samples: a chi-squared test over K² cells,
 * significance 0.001. */
Test(sampler_alias, chi_squared_of_pairs)
{
    enum { K = PAIR_K, V = PAIR_V, SAMPLES = 200000 };
    pair_state ps;
    pair_state_make(&ps);
    double prob[K * K], px[K], py[K];
    uint32_t nm[K], nw_x[K], nk_x[K], nw_y[K], nk_y[K]; /* word 1's, of the pass's start less the token */
    memcpy(nm, ps.n0, sizeof nm);
    memcpy(nw_x, ps.n_wk + K, sizeof nw_x);
    memcpy(nw_y, ps.n_wk + K, sizeof nw_y);
    memcpy(nk_x, ps.n_k, sizeof nk_x);
    memcpy(nk_y, ps.n_k, sizeof nk_y);
    nw_x[3]--, nk_x[3]--, nw_y[6]--, nk_y[6]--;
    nm[3]--;
    collapsed_conditional(nm, nw_x, nk_x, ps.alpha, ps.beta, V, K, px);
    for (uint32_t x = 0; x < K; x++) {
        nm[x]++, nm[6]--;
        collapsed_conditional(nm, nw_y, nk_y, ps.alpha, ps.beta, V, K, py);
        for (uint32_t y = 0; y < K; y++)
            prob[x * K + y] = px[x] * py[y];
        nm[6]++, nm[x]--;
    }
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_alias_sampler st;
    cr_assert_eq(lda_alias_create(ps.L, K, 1, 2, 0, &st, &err), 0, "%s", err.msg);
    const lda_alias_in ain = {&st, ps.n_wk, ps.n_k, ps.beta, NULL, 0};
    lda_zdraw in = {.alpha = ps.alpha, .K = K, .seed = 3, .alias = &ain};
    pair_chi_squared(&ps, pool, &in, prob, SAMPLES);
    lda_alias_free(&st);
    lda_pool_destroy(pool);
    pair_state_free(&ps);
}

Test(sampler_alias, planted_topics_recovered)
{
    planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_ALIAS);
}

/* Same seed, 1, 2 and 3 threads: identical θ, φ and z after a few iterations, over several
 * blocks, with documents cut into pieces and with --refresh 2. */
Test(sampler_alias, same_model_for_any_thread_count)
{
    same_model_over_blocks(LDA_SAMPLER_ALIAS, "CPU alias");
}

/* alias's blocks (sampler_alias.h): in the layout's order, each of up to LDA_ZPLAN_ALIAS_BLOCK_WARPS
 * warps and of at most 1 / (LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER × workers) of the tokens unless it is
 * one warp, so more workers make more, smaller blocks (the model is the same:
 * same_model_for_any_thread_count draws over these); mh's hold LDA_ZPLAN_MH_BLOCK_WARPS warps
 * whatever the workers, its blocks being its model. The corpus: documents of 5 to 40 tokens, the
 * longest in the first warps. */
Test(sampler_alias, blocks_share_the_tokens_among_the_workers)
{
    corpus *c = test_planted_corpus(5, 20, 3 * LDA_ZPLAN_MH_BLOCK_WARPS * LDA_WARP + 100, 5, 40, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L && L->num_warps > 3 * LDA_ZPLAN_MH_BLOCK_WARPS, "%s", err.msg);
    size_t blocks_before = 0;
    for (int mh = 0; mh < 2; mh++)
        for (int workers = 1; workers <= 4; workers *= 2) {
            lda_alias_sampler s;
            cr_assert_eq(lda_alias_create(L, 7, 1, workers, mh, &s, &err), 0, "%s", err.msg);
            const uint64_t most = L->num_tokens / ((uint64_t)LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER * workers);
            cr_assert_eq(s.block_j0[0], 0);
            cr_assert_eq(s.block_end[s.num_blocks - 1], L->num_warps, "every warp in a block");
            cr_assert_eq(s.block_token[s.num_blocks], L->num_tokens);
            for (size_t b = 0; b < s.num_blocks; b++) {
                const size_t warps = s.block_end[b] - s.block_j0[b];
                const uint64_t tokens = s.block_token[b + 1] - s.block_token[b];
                cr_assert(b == 0 || s.block_j0[b] == s.block_end[b - 1], "block %zu follows the one before", b);
                cr_assert(warps >= 1 && warps <= (mh ? LDA_ZPLAN_MH_BLOCK_WARPS : LDA_ZPLAN_ALIAS_BLOCK_WARPS),
                          "block %zu: %zu warps", b, warps);
                if (mh)
                    cr_assert(warps == LDA_ZPLAN_MH_BLOCK_WARPS || b == s.num_blocks - 1,
                              "mh, %d workers: block %zu of %zu warps", workers, b, warps);
                else
                    cr_assert(tokens <= most || warps == 1, "%d workers: block %zu holds %llu tokens, above %llu",
                              workers, b, (unsigned long long)tokens, (unsigned long long)most);
            }
            const size_t whole = (L->num_warps + LDA_ZPLAN_MH_BLOCK_WARPS - 1) / LDA_ZPLAN_MH_BLOCK_WARPS;
            if (mh)
                cr_assert_eq(s.num_blocks, whole);
            else
                cr_assert_gt(s.num_blocks, blocks_before, "%d workers: %zu blocks", workers, s.num_blocks);
            blocks_before = mh ? 0 : s.num_blocks;
            lda_alias_free(&s);
        }
    lda_layout_free(L);
    corpus_free(c);
}

/* The collapsed model only, on the CPU only, each refused in one line; held-out documents (φ
 * fixed) are drawn by sparse's split, so --holdout works, and the model records the sampler. */
Test(sampler_alias, collapsed_on_the_cpu_only)
{
    lda_zplan z;
    cpu_only_sampler_refusals(LDA_SAMPLER_ALIAS, &z);
    cr_assert_eq(z.alias_block_warps, LDA_ZPLAN_ALIAS_BLOCK_WARPS);
}

/* --sampler auto takes, for the collapsed model on the CPU, alias at every K (it learned as much
 * an iteration as mh at K = 100 and 1024, at less cost); sparse on the GPU and for the
 * θ-collapsed model; a named sampler (alias, sparselda, mh) is kept. */
Test(sampler_alias, auto_takes_alias_for_the_collapsed_model_on_the_cpu)
{
    const struct {
        lda_model_kind model;
        lda_device device;
        uint32_t K;
        lda_sampler want;
    } cases[] = {{LDA_MODEL_COLLAPSED, LDA_DEVICE_CPU, 100, LDA_SAMPLER_ALIAS},
                 {LDA_MODEL_COLLAPSED, LDA_DEVICE_CPU, 1024, LDA_SAMPLER_ALIAS},
                 {LDA_MODEL_COLLAPSED, LDA_DEVICE_CPU, 4096, LDA_SAMPLER_ALIAS},
                 {LDA_MODEL_COLLAPSED, LDA_DEVICE_CUDA, 1024, LDA_SAMPLER_SPARSE},
                 {LDA_MODEL_THETA_COLLAPSED, LDA_DEVICE_CPU, 100, LDA_SAMPLER_SPARSE},
                 {LDA_MODEL_UNCOLLAPSED, LDA_DEVICE_CPU, 100, LDA_SAMPLER_BUTTERFLY}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lda_params p;
        lda_params_default(&p);
        lda_params_set_model(&p, cases[i].model);
        p.device = cases[i].device;
        p.num_topics = cases[i].K;
        p.sampler = LDA_SAMPLER_AUTO;
        lda_zplan_resolve_sampler(&p);
        cr_assert_eq(p.sampler, cases[i].want, "case %zu: %s", i, lda_choice_name(lda_sampler_choices, p.sampler));
    }
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.device = LDA_DEVICE_CPU;
    p.sampler = LDA_SAMPLER_SPARSELDA;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.sampler, LDA_SAMPLER_SPARSELDA, "a named sampler is kept");
    p.sampler = LDA_SAMPLER_ALIAS;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.sampler, LDA_SAMPLER_ALIAS, "a named sampler is kept");
    p.sampler = LDA_SAMPLER_MH;
    lda_zplan_resolve_sampler(&p);
    cr_assert_eq(p.sampler, LDA_SAMPLER_MH, "a named sampler is kept");
}

/* A CPU backend of the collapsed model drawn by alias on L (pieces of piece_length), K = 7,
 * --refresh 2, after 3 iterations. */
static lda_backend *alias_after_three(const lda_layout *L, uint32_t piece_length, int threads, lda_params *p)
{
    lda_error err = {0};
    *p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_ALIAS, 7);
    p->device = LDA_DEVICE_CPU;
    p->threads = threads;
    p->refresh = 2;
    p->piece_length = piece_length;
    lda_backend *b = lda_backend_create(L, p, &err);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 3; it++) {
        lda_iter_timing t;
        cr_assert_eq(b->ops->iterate(b, it, &t, &err), 0, "%s", err.msg);
    }
    return b;
}

/* alias reads the counts, never θ or φ, so the CPU backend forms an iteration's θ and φ where
 * they are read: after 3 iterations (--refresh 2, cut documents), what is fetched is the means of
 * the counts fetched with them, to the bit, and the evaluation agrees with them. */
Test(sampler_alias, theta_and_phi_formed_where_read_are_the_counts_means)
{
    corpus *c = test_planted_corpus(5, 20, 300, 5, 60, 9, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 24, &err);
    cr_assert(L && L->num_cut_docs > 0, "%s", err.msg);
    lda_params p;
    lda_backend *b = alias_after_three(L, 24, 2, &p);
    const uint32_t K = p.num_topics, V = (uint32_t)L->vocab_size;
    float *theta = malloc(L->num_slots * K * sizeof *theta), *phi = malloc((size_t)V * K * sizeof *phi);
    float *theta_ref = malloc(L->num_slots * K * sizeof *theta), *phi_ref = malloc((size_t)V * K * sizeof *phi);
    uint32_t *n_mk = malloc(L->num_slots * K * sizeof *n_mk), *n_wk = malloc((size_t)V * K * sizeof *n_wk);
    uint32_t *n_k = malloc(K * sizeof *n_k);
    lda_eval e;
    cr_assert_eq(b->ops->evaluate(b, &e, &err), 0, "%s", err.msg); /* forms them */
    cr_assert_eq(b->ops->fetch(b, theta, phi, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_counts(b, n_mk, n_wk, n_k, &err), 0, "%s", err.msg);
    lda_pool *pool = lda_pool_create(1, &err);
    cr_assert(pool, "%s", err.msg);
    cr_assert_eq(lda_cpu_update_phi(pool, V, n_wk, n_k, K, b->priors.beta, lda_phi_update(&p), p.seed, 3, phi_ref,
                                    &err), 0, "%s", err.msg);
    cr_assert_eq(lda_cpu_update_theta(pool, L, n_mk, K, &b->priors, lda_theta_update(&p), p.seed, 3, theta_ref, &err),
                 0, "%s", err.msg);
    cr_assert_arr_eq(phi, phi_ref, (size_t)V * K * sizeof *phi);
    cr_assert_arr_eq(theta, theta_ref, L->num_slots * K * sizeof *theta);
    lda_eval again;
    cr_assert_eq(b->ops->evaluate(b, &again, &err), 0, "%s", err.msg);
    cr_assert_eq(again.loglik_pred, e.loglik_pred, "formed once: read again, the same");
    lda_pool_destroy(pool);
    free(theta);
    free(phi);
    free(theta_ref);
    free(phi_ref);
    free(n_mk);
    free(n_wk);
    free(n_k);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
}

/* alias leaves every row of n[m,k] as z's, so where no document is cut the backend does not count
 * them again after a pass: after 3 iterations (--refresh 2, 1 and 3 threads) the rows, n[w,k] and
 * n[k] it holds are z's counts. */
Test(sampler_alias, counts_after_a_pass_are_z_s)
{
    corpus *c = test_planted_corpus(5, 20, 300, 5, 60, 9, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L && L->num_cut_docs == 0, "%s", err.msg);
    const uint32_t K = 7, V = (uint32_t)L->vocab_size;
    for (int threads = 1; threads <= 3; threads += 2) {
        lda_params p;
        lda_backend *b = alias_after_three(L, 0, threads, &p);
        uint32_t *z = malloc(L->num_positions * sizeof *z), *n_mk = malloc(L->num_slots * K * sizeof *n_mk);
        uint32_t *n_wk = malloc((size_t)V * K * sizeof *n_wk), *n_k = malloc(K * sizeof *n_k);
        uint32_t *e_mk = malloc(L->num_slots * K * sizeof *e_mk), *e_wk = malloc((size_t)V * K * sizeof *e_wk);
        uint32_t *e_k = malloc(K * sizeof *e_k);
        cr_assert_eq(b->ops->fetch(b, NULL, NULL, z, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch_counts(b, n_mk, n_wk, n_k, &err), 0, "%s", err.msg);
        collapsed_count_all(L, K, z, e_mk, e_wk, e_k);
        cr_assert_arr_eq(n_mk, e_mk, L->num_slots * K * sizeof *n_mk, "%d threads: n[m,k]", threads);
        cr_assert_arr_eq(n_wk, e_wk, (size_t)V * K * sizeof *n_wk, "%d threads: n[w,k]", threads);
        cr_assert_arr_eq(n_k, e_k, K * sizeof *n_k, "%d threads: n[k]", threads);
        free(z);
        free(n_mk);
        free(n_wk);
        free(n_k);
        free(e_mk);
        free(e_wk);
        free(e_k);
        lda_backend_destroy(b);
    }
    lda_layout_free(L);
    corpus_free(c);
}
