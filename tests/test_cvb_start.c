/* test_cvb_start.c — a run's start from collapsed variational Bayes (train/cvb_start.h): a pass
 * against the update restated plainly in double, the counts against γ, the draw's picks exactly
 * and in distribution (chi-squared), the same start for any thread count, planted topics found
 * by the start alone, when it is taken, and the binary: resumed runs, the refusal of two
 * starts and the start's memory counted before the run. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/params.h"
#include "core/priors.h"
#include "core/rng.h"
#include "helpers.h"
#include "train/cvb_start.h"

static corpus *planted(size_t docs)
{
    return test_planted_corpus(8, 25, docs, 20, 60, 5, NULL);
}

/* The block holding document m, or the slot `slot`: the last whose first is at most it. */
static size_t block_of(const size_t *firsts, size_t num_blocks, size_t at)
{
    size_t b = 0;
    while (b + 1 < num_blocks && firsts[b + 1] <= at)
        b++;
    return b;
}

static int by_slot_word(const void *a, const void *b, void *vs)
{
    const lda_cvb_state *s = vs;
    const uint32_t x = s->slot_word[*(const size_t *)a], y = s->slot_word[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* Document m's slots, in increasing word order; returns how many. */
static size_t doc_slots(const lda_cvb_state *s, size_t m, size_t *out)
{
    const size_t b = block_of(s->block_doc, s->num_blocks, m);
    size_t n = 0;
    for (size_t p = s->block_slot[b]; p < s->block_slot[b + 1]; p++)
        if (s->block_doc[b] + s->slot_doc[p] == m)
            out[n++] = p;
    qsort_r(out, n, sizeof *out, by_slot_word, (void *)s);
    return n;
}

/* One pass restated plainly, in double: every document's pairs in increasing word order, each
 * pair's weights (θ[k] − own + α_k)(n[w,k] − own + β) / (n[k] + Vβ) from its document's counts as
 * they move and the word counts of the pass's start, its γ their shares in 1/65535ths rounded,
 * then θ moved. */
static void restated_pass(const lda_cvb_state *s, const lda_priors *pr, uint16_t *gamma)
{
    const uint32_t K = s->K;
    double *theta = calloc(K, sizeof *theta), *w = calloc(K, sizeof *w);
    size_t *slots = malloc((s->num_pairs + 1) * sizeof *slots);
    for (size_t m = 0; m < s->num_docs; m++) {
        const size_t n = doc_slots(s, m, slots);
        for (uint32_t k = 0; k < K; k++)
            theta[k] = 0;
        for (size_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < K; k++)
                theta[k] += (double)s->slot_count[slots[i]] * gamma[slots[i] * K + k] / LDA_CVB_ONE;
        for (size_t i = 0; i < n; i++) {
            const size_t p = slots[i];
            uint16_t *g = gamma + p * K;
            double total = 0;
            for (uint32_t k = 0; k < K; k++) {
                const double own = (double)g[k] / LDA_CVB_ONE;
                w[k] = (theta[k] - own + pr->alpha[k]) * (s->n_wk[(size_t)s->slot_word[p] * K + k] - own + pr->beta) /
                       (s->n_k[k] + s->V * pr->beta);
                total += w[k];
            }
            for (uint32_t k = 0; k < K; k++) {
                double q = floor(w[k] / total * LDA_CVB_ONE + 0.5);
                q = q < LDA_CVB_ONE ? q : LDA_CVB_ONE;
                theta[k] += (double)s->slot_count[p] * (q - g[k]) / LDA_CVB_ONE;
                g[k] = (uint16_t)q;
            }
        }
    }
    free(slots);
    free(theta);
    free(w);
}

Test(cvb_start, pass_agrees_with_the_update_restated)
{
    static const uint32_t Ks[] = {1, 2, 31, 32, 33, 100};
    corpus *c = planted(300);
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    for (size_t i = 0; i < sizeof Ks / sizeof *Ks; i++) {
        const uint32_t K = Ks[i];
        lda_priors pr = test_varied_priors(K);
        lda_cvb_state s;
        cr_assert_eq(lda_cvb_init(&s, c, K, 11, NULL, pool, &err), 0, "%s", err.msg);
        cr_assert_eq(s.num_docs, c->num_docs);
        for (int pass = 0; pass < 2; pass++) /* from a state that has moved */
            cr_assert_eq(lda_cvb_pass(&s, &pr, pool, &err), 0, "%s", err.msg);
        uint16_t *expected = malloc(s.num_pairs * K * sizeof *expected);
        memcpy(expected, s.gamma, s.num_pairs * K * sizeof *expected);
        restated_pass(&s, &pr, expected);
        cr_assert_eq(lda_cvb_pass(&s, &pr, pool, &err), 0, "%s", err.msg);
        size_t moved = 0;
        for (size_t j = 0; j < s.num_pairs * K; j++) { /* float sums against double: a few 65535ths apart */
            cr_assert_leq(abs((int)s.gamma[j] - (int)expected[j]), 4, "K = %u, pair %zu topic %zu: %u against %u", K,
                          j / K, j % K, s.gamma[j], expected[j]);
            moved += s.gamma[j] != 0 && s.gamma[j] != LDA_CVB_ONE;
        }
        cr_assert(K == 1 || moved > s.num_pairs, "K = %u: the pass must spread γ over topics", K);
        /* The counts are γ's sums: each word's Σ count γ, and n[k] their totals. */
        double *n_k = calloc(K, sizeof *n_k);
        for (uint32_t w = 0; w < s.V; w++)
            for (uint32_t k = 0; k < K; k++) {
                double n = 0;
                for (size_t p = 0; p < s.num_pairs; p++)
                    if (s.slot_word[p] == w)
                        n += (double)s.slot_count[p] * s.gamma[p * K + k] / LDA_CVB_ONE;
                cr_assert_float_eq(s.n_wk[(size_t)w * K + k], n, 1e-3 + 1e-5 * n, "K = %u word %u topic %u", K, w, k);
                n_k[k] += n;
            }
        for (uint32_t k = 0; k < K; k++)
            cr_assert_float_eq(s.n_k[k], n_k[k], 1e-2, "K = %u topic %u", K, k);
        free(n_k);
        free(expected);
        lda_cvb_free(&s);
        lda_priors_free(&pr);
    }
    lda_pool_destroy(pool);
    corpus_free(c);
}

Test(cvb_start, pairs_hold_every_token_once)
{
    corpus *c = planted(50);
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(3, &err);
    lda_cvb_state s;
    cr_assert_eq(lda_cvb_init(&s, c, 4, 1, NULL, pool, &err), 0, "%s", err.msg);
    cr_assert_gt(s.num_blocks, 3, "the pairs must be cut into blocks for this test");
    size_t *slots = malloc(s.num_pairs * sizeof *slots);
    for (size_t m = 0; m < c->num_docs; m++) {
        uint32_t *left = calloc(c->vocab_size, sizeof *left);
        for (size_t i = c->doc_offsets[m]; i < c->doc_offsets[m + 1]; i++)
            left[c->words[i]]++;
        const size_t n = doc_slots(&s, m, slots);
        for (size_t i = 0; i < n; i++) {
            const size_t p = slots[i];
            cr_assert(i == 0 || s.slot_word[slots[i - 1]] < s.slot_word[p], "one pair a word");
            cr_assert(i == 0 || slots[i - 1] < p, "a block's slots by word");
            cr_assert_eq(s.slot_count[p], left[s.slot_word[p]]);
            left[s.slot_word[p]] = 0;
        }
        for (uint32_t w = 0; w < c->vocab_size; w++)
            cr_assert_eq(left[w], 0);
        free(left);
    }
    uint32_t *listed = calloc(c->num_tokens, sizeof *listed);
    for (size_t b = 0; b < s.num_blocks; b++) { /* each slot's tokens: its own document's and word's */
        const size_t t0 = c->doc_offsets[s.block_doc[b]], t1 = c->doc_offsets[s.block_doc[b + 1]];
        size_t at = t0;
        for (size_t p = s.block_slot[b]; p < s.block_slot[b + 1]; p++)
            for (uint32_t n = 0; n < s.slot_count[p]; n++, at++) {
                const size_t i = t0 + s.slot_tokens[at];
                cr_assert(i < t1, "a slot's token in its own block");
                cr_assert(c->doc_offsets[s.block_doc[b] + s.slot_doc[p]] <= i &&
                          i < c->doc_offsets[s.block_doc[b] + s.slot_doc[p] + 1]);
                cr_assert_eq(c->words[i], s.slot_word[p]);
                listed[i]++;
            }
        cr_assert_eq(at, t1, "the block's slots list its tokens");
    }
    for (size_t i = 0; i < c->num_tokens; i++)
        cr_assert_eq(listed[i], 1, "token %zu listed %u times", i, listed[i]);
    free(listed);
    for (uint32_t w = 0; w < c->vocab_size; w++) /* by word, then document */
        for (size_t i = s.word_start[w]; i < s.word_start[w + 1]; i++) {
            const size_t p = s.word_slots[i];
            cr_assert_eq(s.slot_word[p], w);
            if (i > s.word_start[w]) {
                const size_t q = s.word_slots[i - 1];
                cr_assert_lt(s.block_doc[block_of(s.block_slot, s.num_blocks, q)] + s.slot_doc[q],
                             s.block_doc[block_of(s.block_slot, s.num_blocks, p)] + s.slot_doc[p]);
            }
        }
    free(slots);
    lda_cvb_free(&s);
    lda_pool_destroy(pool);
    corpus_free(c);
}

Test(cvb_start, pick_is_exact_on_integer_weights)
{
    const uint16_t q[] = {1, 0, 3};
    /* total 4: u < 2^30 picks 0, the rest 2, never the zero weight */
    cr_assert_eq(lda_cvb_pick(q, 3, 0), 0);
    cr_assert_eq(lda_cvb_pick(q, 3, (1u << 30) - 1), 0);
    cr_assert_eq(lda_cvb_pick(q, 3, 1u << 30), 2);
    cr_assert_eq(lda_cvb_pick(q, 3, UINT32_MAX), 2);
    const uint16_t zero[] = {0, 0, 0, 0};
    cr_assert_eq(lda_cvb_pick(zero, 4, UINT32_MAX), 3, "no weight: any topic, by u");
    /* Real-looking weights: 200,000 Philox uniforms, chi-squared at significance 0.001. */
    const uint16_t w[] = {30000, 1, 0, 12000, 23534, 7, 0, 2};
    const size_t K = sizeof w / sizeof *w, draws = 200000;
    uint64_t seen[8] = {0};
    double prob[8], total = 0;
    for (size_t k = 0; k < K; k++)
        total += w[k];
    for (size_t k = 0; k < K; k++)
        prob[k] = w[k] / total;
    for (size_t i = 0; i < draws; i++)
        seen[lda_cvb_pick(w, (uint32_t)K, lda_rng_once(9, LDA_RNG_TEST, 0, i))]++;
    cr_assert_eq(seen[2] + seen[6], 0);
    double dof;
    const double x = test_chi2_stat(seen, prob, K, draws, &dof);
    cr_assert_gt(test_chi2_sf(x, dof), 0.001, "chi2 %g (dof %g)", x, dof);
}

static uint32_t *started(const corpus *c, uint32_t K, int threads, uint32_t passes)
{
    lda_priors pr = test_varied_priors(K);
    lda_error err = {0};
    uint32_t *z = calloc(c->num_tokens, sizeof *z);
    lda_cvb_start_report rep;
    cr_assert_eq(lda_cvb_start(c, &pr, K, 3, threads, passes, z, &rep, &err), 0, "%s", err.msg);
    cr_assert_gt(rep.pairs, c->num_docs);
    lda_priors_free(&pr);
    return z;
}

Test(cvb_start, same_start_for_any_thread_count)
{
    corpus *c = planted(400);
    uint32_t *one = started(c, 12, 1, 4);
    for (int threads = 2; threads <= 3; threads++) {
        uint32_t *z = started(c, 12, threads, 4);
        cr_assert_arr_eq(z, one, c->num_tokens * sizeof *z, "%d threads", threads);
        free(z);
    }
    free(one);
    corpus_free(c);
}

/* Before any Gibbs iteration, 20 passes find every planted topic; one topic a pair at random (no
 * pass) finds none, which is what the test tells apart. */
Test(cvb_start, planted_topics_found_by_the_start_alone)
{
    corpus *c = planted(2000);
    const uint32_t K = 12;
    uint32_t *z = started(c, K, 2, 20);
    cr_assert_eq(test_planted_topics_found(c->words, z, c->num_tokens, c->vocab_size, K, 8, 25), 8);
    free(z);
    z = started(c, K, 2, 0);
    cr_assert_eq(test_planted_topics_found(c->words, z, c->num_tokens, c->vocab_size, K, 8, 25), 0);
    free(z);
    corpus_free(c);
}

/* Auto takes it for the collapsed model on the CPU up to K = 128 with 1,000 documents or more
 * (measured: docs/samplers.md); asked for, it turns the sample start's auto off, and both asked
 * for are refused before the corpus is read. */
Test(cvb_start, when_it_is_taken)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.device = LDA_DEVICE_CPU;
    p.num_topics = 100;
    const size_t docs = LDA_CVB_START_MIN_DOCS;
    cr_assert(lda_params_cvb_start_is_auto(&p), "auto by default");
    cr_assert_eq(lda_params_cvb_start(&p, docs), LDA_CVB_START_PASSES);
    cr_assert_eq(lda_params_cvb_start(&p, docs - 1), 0, "a smaller corpus was not measured");
    p.num_topics = LDA_CVB_START_UP_TO_K;
    cr_assert_eq(lda_params_cvb_start(&p, docs), LDA_CVB_START_PASSES);
    p.num_topics = LDA_CVB_START_UP_TO_K + 1;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "larger K was not measured");
    p.num_topics = 100;
    p.device = LDA_DEVICE_CUDA;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "not on the GPU");
    p.device = LDA_DEVICE_CPU;
    lda_params_set_model(&p, LDA_MODEL_THETA_COLLAPSED);
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "the collapsed model only");
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.sample_start = 4;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "not beside the other start asked for");
    p.sample_start = LDA_SAMPLE_START_AUTO;
    p.cvb_start = 7;
    cr_assert(!lda_params_cvb_start_is_auto(&p));
    cr_assert_eq(lda_params_cvb_start(&p, 1), 7);
    p.cvb_start = 0;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0);
    p.freeze_phi = 1;
    p.cvb_start = 7;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "inference never");
    p.cvb_start = LDA_CVB_START_AUTO;
    cr_assert_eq(lda_params_cvb_start(&p, docs), 0, "inference never");
    p.freeze_phi = 0;
    p.num_topics = LDA_SAMPLE_START_FROM_K;
    const size_t enough = (size_t)LDA_SAMPLE_START_STRIDE * LDA_SAMPLE_START_MIN_DOCS;
    cr_assert_eq(lda_params_sample_start(&p, enough), LDA_SAMPLE_START_ITERATIONS, "the autos do not meet");
    cr_assert_eq(lda_params_cvb_start(&p, enough), 0);
    p.cvb_start = 0;
    cr_assert_eq(lda_params_sample_start(&p, enough), LDA_SAMPLE_START_ITERATIONS);
    p.cvb_start = 10;
    cr_assert_eq(lda_params_sample_start(&p, enough), 0);
    lda_error err = {0};
    cr_assert_eq(lda_params_check_starts(&p, &err), 0);
    p.sample_start = 5;
    cr_assert_eq(lda_params_check_starts(&p, &err), -1);
    p.sample_start = 0;
    cr_assert_eq(lda_params_check_starts(&p, &err), 0);
    p.cvb_start = LDA_CVB_START_AUTO;
    p.sample_start = 5;
    cr_assert_eq(lda_params_check_starts(&p, &err), 0, "auto gives way to the start asked for");
}

/* A corpus of 1,000 documents of 50 distinct words each, in LDA-C form: auto's start takes it. */
static char *thousand_documents(const char *dir)
{
    size_t cap = 1000 * 50 * 8 + 1, n = 0;
    char *text = malloc(cap);
    for (int d = 0; d < 1000; d++) {
        n += (size_t)snprintf(text + n, cap - n, "50");
        for (int i = 0; i < 50; i++)
            n += (size_t)snprintf(text + n, cap - n, " %d:1", (d * 7 + i * 13) % 400);
        n += (size_t)snprintf(text + n, cap - n, "\n");
    }
    char *path = test_write_file(dir, "thousand.ldac", text);
    free(text);
    return path;
}

/* Auto's start runs where the corpus is large enough; where its passes would not fit in memory
 * but the run does, the run starts at random instead of being refused (asked for, it is refused). */
Test(cvb_start, auto_starts_where_it_fits)
{
    char *dir = test_tmpdir(), *c = thousand_documents(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' --vocab none -K 100 -n 1 -e 0 --model collapsed --device cpu -o '%s/auto'", c, dir);
    test_run_ok(args, "start: 25 passes of collapsed variational Bayes");
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "12M", 1), 0);
    snprintf(args, sizeof args, "train '%s' --vocab none -K 100 -n 1 -e 0 --model collapsed --device cpu -o '%s/tight'", c, dir);
    test_run_ok(args, "--cvb-start auto: its passes would not fit in the memory available; starting at random");
    snprintf(args, sizeof args, "train '%s' --vocab none -K 100 -n 1 -e 0 --model collapsed --device cpu --cvb-start 25 -o '%s/asked' -q",
             c, dir);
    test_expect_failure(args, 1, "not enough memory for this run");
    cr_assert_eq(unsetenv("LDAGPU_MEMORY_LIMIT"), 0);
    test_rmdir(dir);
    free(c);
    free(dir);
}

/* The start is the first run's: 2 + 2 resumed iterations after it give the model 4 in one run do. */
Test(cvb_start, resumed_runs_give_the_same_model)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[8192], one[2048], two[2048];
    snprintf(one, sizeof one, "%s/one", dir);
    snprintf(two, sizeof two, "%s/two", dir);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 4 -e 2 --model collapsed --device cpu -j 2 --cvb-start 5 -o '%s'",
             c, one);
    test_run_ok(args, "start: 5 passes of collapsed variational Bayes");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -e 2 --model collapsed --device cpu -j 3 --cvb-start 5 -o '%s' -q",
             c, two);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train --resume '%s' -n 2 -j 1", two);
    test_run_ok(args, NULL);
    test_assert_same_models(one, two);
    test_rmdir(dir);
    free(c);
    free(dir);
}

Test(cvb_start, two_starts_are_refused)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --model collapsed --device cpu --cvb-start 3 --sample-start 2 "
             "-o '%s/m' -q", c, dir);
    test_expect_failure(args, 2, "--cvb-start 3 and --sample-start 2 are two starts: give one of them");
    test_rmdir(dir);
    free(c);
    free(dir);
}

Test(cvb_start, its_memory_is_counted_before_the_run)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "8M", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 4096 -n 1 -e 0 --model collapsed --device cpu --phi-estimate counts "
             "--cvb-start 0 -o '%s/none' -q", c, dir);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train '%s' -K 4096 -n 1 -e 0 --model collapsed --device cpu --phi-estimate counts "
             "--cvb-start 1 -o '%s/cvb' -q", c, dir);
    test_expect_failure(args, 1, "not enough memory for this run: it needs 11 MiB");
    cr_assert_eq(unsetenv("LDAGPU_MEMORY_LIMIT"), 0);
    test_rmdir(dir);
    free(c);
    free(dir);
}
