/* test_phi_cvb.c — the topics polished by CVB0 from the last sample (train/phi_cvb.h): each pair's
 * first γ its tokens' shares exactly, no pass giving the counts' φ, the same φ for any thread
 * count, planted topics sharpened out of a noisy sample, when auto takes it, and what train
 * writes, resumes and refuses with --phi-estimate cvb. */
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
#include "train/phi_cvb.h"
#include "util/threadpool.h"

/* Topics for c's tokens: a document's mostly among three of K, so that pairs of a repeated word
 * hold one topic or several. */
static uint32_t *some_topics(const corpus *c, uint32_t K, uint64_t seed)
{
    uint32_t *z = malloc((c->num_tokens ? c->num_tokens : 1) * sizeof *z);
    for (size_t m = 0; m < c->num_docs; m++)
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++) {
            const uint32_t u = lda_rng_once(seed, LDA_RNG_TEST, 4, t);
            z[t] = (u & 1) ? (uint32_t)((m + (u >> 1) % 3) % K) : (u >> 1) % K;
        }
    return z;
}

static float *polished(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *pr, int threads,
                       uint32_t passes)
{
    float *phi = malloc((size_t)c->vocab_size * K * sizeof *phi);
    lda_error err = {0};
    cr_assert_eq(lda_phi_cvb(c, z, K, pr, threads, passes, phi, &err), 0, "%s", err.msg);
    return phi;
}

/* Every pair's first γ: floor(its tokens in k × 65535 / its tokens), and what that leaves added
 * to its most frequent topic (the first of a tie), for K from 1 to past a cache line of γ. */
Test(phi_cvb, a_pairs_first_gamma_is_its_tokens_shares)
{
    const uint32_t Ks[] = {1, 2, 3, 31, 33, 100};
    corpus *c = test_word_runs_corpus(120, 29, 70);
    lda_error perr = {0};
    lda_pool *pool = lda_pool_create(2, &perr);
    cr_assert(pool, "%s", perr.msg);
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; i++) {
        const uint32_t K = Ks[i];
        uint32_t *z = some_topics(c, K, K), *tally = calloc(K, sizeof *tally);
        lda_cvb_state s;
        lda_error err = {0};
        cr_assert_eq(lda_cvb_init(&s, c, K, 7, z, pool, &err), 0, "%s", err.msg);
        size_t mixed = 0;
        for (size_t b = 0; b < s.num_blocks; b++)
            for (size_t p = s.block_slot[b]; p < s.block_slot[b + 1]; p++) {
                const size_t m = s.block_doc[b] + s.slot_doc[p];
                uint32_t count = 0, most = 0, topics = 0;
                for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++)
                    if (c->words[t] == s.slot_word[p]) {
                        tally[z[t]]++;
                        count++;
                    }
                cr_assert_eq(count, s.slot_count[p], "K = %u, slot %zu", K, p);
                uint64_t sum = 0;
                for (uint32_t k = 0; k < K; k++) {
                    most = tally[k] > tally[most] ? k : most;
                    topics += tally[k] > 0;
                    sum += (uint64_t)tally[k] * LDA_CVB_ONE / count;
                }
                mixed += topics > 1;
                const uint16_t *g = s.gamma + p * K;
                uint64_t total = 0;
                for (uint32_t k = 0; k < K; k++) {
                    const uint64_t want = (uint64_t)tally[k] * LDA_CVB_ONE / count + (k == most ? LDA_CVB_ONE - sum : 0);
                    cr_assert_eq(g[k], want, "K = %u, slot %zu, topic %u: %u, want %llu", K, p, k, g[k],
                                 (unsigned long long)want);
                    total += g[k];
                    tally[k] = 0;
                }
                cr_assert_eq(total, LDA_CVB_ONE);
            }
        if (K > 1)
            cr_assert_gt(mixed, 10, "K = %u: the test wants pairs of several topics", K);
        lda_cvb_free(&s);
        free(tally);
        free(z);
    }
    lda_pool_destroy(pool);
    corpus_free(c);
}

/* With no pass, φ is the counts' mean, (n[w,k] + β) / (n[k] + Vβ), of z: to float's rounding
 * where every pair holds one topic (γ exact), and to γ's unit's where pairs are mixed. */
Test(phi_cvb, no_pass_gives_the_counts_mean)
{
    const uint32_t K = 17;
    corpus *c = test_word_runs_corpus(90, 41, 50);
    const uint32_t V = c->vocab_size;
    lda_priors pr = test_varied_priors(K);
    for (int mixed = 0; mixed <= 1; mixed++) {
        uint32_t *z = some_topics(c, K, 3);
        if (!mixed) /* a pair's tokens all in its document's and word's one topic */
            for (size_t m = 0; m < c->num_docs; m++)
                for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++)
                    z[t] = (uint32_t)((m * 7 + c->words[t]) % K);
        double *n_wk = calloc((size_t)V * K, sizeof *n_wk), *n_k = calloc(K, sizeof *n_k);
        for (size_t t = 0; t < c->num_tokens; t++) {
            n_wk[(size_t)c->words[t] * K + z[t]]++;
            n_k[z[t]]++;
        }
        float *phi = polished(c, z, K, &pr, 2, 0);
        const double tolerance = mixed ? 1e-3 : 2e-6; /* mixed: a pair's γ_k off by up to K units of 1/65535 */
        for (uint32_t w = 0; w < V; w++)
            for (uint32_t k = 0; k < K; k++) {
                const double want = (n_wk[(size_t)w * K + k] + pr.beta) / (n_k[k] + V * pr.beta),
                             got = phi[(size_t)w * K + k];
                cr_assert(fabs(got - want) <= tolerance * want, "mixed %d: φ[%u,%u] %.9g, the counts' %.9g", mixed, w,
                          k, got, want);
            }
        free(phi);
        free(n_wk);
        free(n_k);
        free(z);
    }
    lda_priors_free(&pr);
    corpus_free(c);
}

Test(phi_cvb, the_same_for_any_thread_count)
{
    const uint32_t K = 40;
    corpus *c = test_word_runs_corpus(400, 300, 90);
    lda_priors pr = test_varied_priors(K);
    uint32_t *z = some_topics(c, K, 9);
    float *one = polished(c, z, K, &pr, 1, 6);
    const int threads[] = {2, 3, 8};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        float *more = polished(c, z, K, &pr, threads[i], 6);
        cr_assert(!memcmp(one, more, (size_t)c->vocab_size * K * sizeof *one), "%d threads: another φ", threads[i]);
        free(more);
    }
    for (uint32_t k = 0; k < K; k++) { /* each topic a distribution over the words */
        double row = 0.0;
        for (uint32_t w = 0; w < c->vocab_size; w++)
            row += one[(size_t)w * K + k];
        cr_assert(fabs(row - 1.0) < 1e-4, "topic %u sums to %.9g", k, row);
    }
    free(one);
    free(z);
    lda_priors_free(&pr);
    corpus_free(c);
}

/* The share of topic k's φ on planted topic k's words (a block of `per` word ids). */
static double mass_on_block(const float *phi, uint32_t V, uint32_t K, uint32_t k, uint32_t per)
{
    double in = 0.0;
    for (uint32_t w = k * per; w < (k + 1) * per && w < V; w++)
        in += phi[(size_t)w * K + k];
    return in;
}

/* A noisy sample of planted topics (each token in its word's planted topic with probability 0.4,
 * else in any of K at random): the counts' φ puts under 60% of each topic on its own words; 20
 * passes from that sample put over 95% there, every topic. */
Test(phi_cvb, planted_topics_sharpened_from_a_noisy_sample)
{
    const uint32_t planted = 8, per = 25, K = planted;
    corpus *c = test_planted_corpus(planted, per, 1500, 20, 60, 5, NULL);
    lda_priors pr;
    lda_error err = {0};
    cr_assert_eq(lda_priors_init(&pr, K, 0.1, 0.01, &err), 0, "%s", err.msg);
    uint32_t *z = malloc(c->num_tokens * sizeof *z);
    for (size_t t = 0; t < c->num_tokens; t++) {
        const uint32_t u = lda_rng_once(21, LDA_RNG_TEST, 5, t);
        z[t] = u % 5 < 2 ? c->words[t] / per : (u >> 8) % K;
    }
    float *counts = polished(c, z, K, &pr, 2, 0), *sharp = polished(c, z, K, &pr, 2, 20);
    for (uint32_t k = 0; k < K; k++) {
        const double before = mass_on_block(counts, c->vocab_size, K, k, per),
                     after = mass_on_block(sharp, c->vocab_size, K, k, per);
        cr_assert_lt(before, 0.6, "topic %u: the noisy sample's φ has %.3f on its words", k, before);
        cr_assert_gt(after, 0.95, "topic %u: %.3f on its words after the passes (%.3f before)", k, after, before);
    }
    free(counts);
    free(sharp);
    free(z);
    lda_priors_free(&pr);
    corpus_free(c);
}

/* Auto: cvb for the collapsed model on the CPU up to K = 128 (where measured), expected above it,
 * the counts on the GPU and for the other models; the passes at most one a sampling iteration. */
Test(phi_cvb, when_auto_takes_it)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    const struct {
        uint32_t K;
        int on_cpu;
        lda_model_kind model;
        lda_phi_estimate want;
    } cases[] = {
        {100, 1, LDA_MODEL_COLLAPSED, LDA_PHI_ESTIMATE_CVB},
        {LDA_PHI_CVB_UP_TO_K, 1, LDA_MODEL_COLLAPSED, LDA_PHI_ESTIMATE_CVB},
        {LDA_PHI_CVB_UP_TO_K + 1, 1, LDA_MODEL_COLLAPSED, LDA_PHI_ESTIMATE_EXPECTED},
        {100, 0, LDA_MODEL_COLLAPSED, LDA_PHI_ESTIMATE_COUNTS},
        {100, 1, LDA_MODEL_THETA_COLLAPSED, LDA_PHI_ESTIMATE_COUNTS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lda_params q = p;
        lda_params_set_model(&q, cases[i].model);
        q.num_topics = cases[i].K;
        q.phi_estimate = LDA_PHI_ESTIMATE_AUTO;
        lda_params_resolve_phi_estimate(&q, cases[i].on_cpu);
        cr_assert_eq(q.phi_estimate, cases[i].want, "case %zu: %s", i,
                     lda_choice_name(lda_phi_estimate_choices, q.phi_estimate));
    }
    cr_assert_eq(p.phi_passes, LDA_PHI_CVB_PASSES);
    cr_assert_eq(lda_phi_cvb_passes(20, 0), 0);
    cr_assert_eq(lda_phi_cvb_passes(20, 1), 1);
    cr_assert_eq(lda_phi_cvb_passes(20, 20), 20);
    cr_assert_eq(lda_phi_cvb_passes(20, 800), 20);
    cr_assert_eq(lda_phi_cvb_passes(0, 800), 0);
}

/* What train does with it: auto takes it at K = 3 on the CPU and model.conf says so; the log
 * times it; the tokens' topics are the counts run's; 2 + 2 resumed iterations give the model 4 in
 * one run give; --resume -n 0 --phi-estimate counts writes the counts' φ of the same state; the
 * other models refuse it. */
Test(phi_cvb, train_writes_resumes_and_refuses)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[8192], a[2048], b[2048], r[2048];
    snprintf(a, sizeof a, "%s/auto", dir);
    snprintf(b, sizeof b, "%s/counts", dir);
    snprintf(r, sizeof r, "%s/resumed", dir);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 4 -e 2 --model collapsed --device cpu -j 2 -o '%s'", c, a);
    test_run_ok(args, "after passes of CVB0 from the last sample");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 4 -e 2 --model collapsed --device cpu -j 2 --phi-estimate counts "
             "-o '%s' -q", c, b);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -e 2 --model collapsed --device cpu -j 3 -o '%s' -q", c, r);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train --resume '%s' -n 2 -j 1 -q", r);
    test_run_ok(args, NULL);
    test_assert_same_models(a, r);
    int status;
    snprintf(args, sizeof args, "grep phi_estimate '%s/model.conf'", a);
    char *conf = test_shell(args, &status);
    cr_assert(strstr(conf, "phi_estimate = cvb"), "auto on the CPU at K = 3: %s", conf);
    free(conf);
    snprintf(args, sizeof args, "tail -n 1 '%s/log.csv' | awk -F, '{print ($NF > 0)}'", a);
    char *timed = test_shell(args, &status);
    cr_assert_str_eq(timed, "1\n", "phi_seconds of the last row");
    free(timed);
    char za[2100], zb[2100], pa[2100], pb[2100];
    snprintf(za, sizeof za, "%s/z.npy", a);
    snprintf(zb, sizeof zb, "%s/z.npy", b);
    snprintf(pa, sizeof pa, "%s/phi.npy", a);
    snprintf(pb, sizeof pb, "%s/phi.npy", b);
    cr_assert(test_same_bytes(za, zb), "the estimate moved a token");
    cr_assert(!test_same_bytes(pa, pb), "cvb and counts wrote the same φ");
    /* At most one pass an iteration: after 4, 4 passes are the default's 20; 1 pass another φ. */
    char saved[2100];
    snprintf(saved, sizeof saved, "%s/phi-20.npy", dir);
    snprintf(args, sizeof args, "cp '%s' '%s'", pa, saved);
    free(test_shell(args, &status));
    snprintf(args, sizeof args, "train --resume '%s' -n 0 --phi-passes 4 -q", a);
    test_run_ok(args, NULL);
    cr_assert(test_same_bytes(pa, saved), "--phi-passes 4 after 4 iterations: not the default's φ");
    snprintf(args, sizeof args, "train --resume '%s' -n 0 --phi-passes 1 -q", a);
    test_run_ok(args, NULL);
    cr_assert(!test_same_bytes(pa, saved), "1 pass: the φ of 4");
    snprintf(args, sizeof args, "grep phi_passes '%s/model.conf'", a);
    conf = test_shell(args, &status);
    cr_assert(strstr(conf, "phi_passes = 1"), "%s", conf);
    free(conf);
    snprintf(args, sizeof args, "train --resume '%s' -n 0 --phi-estimate counts -q", a);
    test_run_ok(args, NULL);
    cr_assert(test_same_bytes(pa, pb), "--resume -n 0 --phi-estimate counts: not the counts run's φ");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --model uncollapsed --device cpu --phi-estimate cvb "
             "-o '%s/u' -q", c, dir);
    test_expect_failure(args, 2, "--phi-estimate cvb: the collapsed model's only");
    test_rmdir(dir);
    free(c);
    free(dir);
}
