/* test_heldout.c — the held-out split, document completion and inference with a fixed φ,
 * on the CPU backend (library level). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/layout.h"
#include "core/rng.h"
#include "helpers.h"
#include "train/heldout.h"
#include "train/inference.h"

enum { PLANTED = 8, WORDS = 25 };

/* φ (V × K) equal to the planted topics of test_planted_corpus: Zipf weights 1/(j+1) over
 * each topic's own block of words, zero elsewhere. */
static float *planted_phi(void)
{
    const uint32_t V = PLANTED * WORDS;
    float *phi = calloc((size_t)V * PLANTED, sizeof *phi);
    double norm = 0;
    for (uint32_t j = 0; j < WORDS; j++)
        norm += 1.0 / (j + 1);
    for (uint32_t k = 0; k < PLANTED; k++)
        for (uint32_t j = 0; j < WORDS; j++)
            phi[(size_t)(k * WORDS + j) * PLANTED + k] = (float)(1.0 / (j + 1) / norm);
    return phi;
}

static lda_params cpu_params(uint32_t K, int threads)
{
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.alpha = 0.1;
    p.device = LDA_DEVICE_CPU;
    p.threads = threads;
    p.seed = 77;
    return p;
}

Test(heldout, split_is_reproducible_disjoint_and_about_the_fraction)
{
    corpus *c = test_planted_corpus(PLANTED, WORDS, 2000, 5, 30, 3, NULL);
    lda_error err = {0};
    corpus *train[2], *held[2];
    for (int run = 0; run < 2; run++)
        cr_assert_eq(lda_heldout_split(c, 0.2, 42, &train[run], &held[run], &err), 0, "%s", err.msg);
    cr_assert_eq(held[0]->num_docs, held[1]->num_docs);
    cr_assert_eq(memcmp(held[0]->input_index, held[1]->input_index, held[0]->num_docs * sizeof(size_t)), 0,
                 "the same seed must hold out the same documents");
    /* Binomial(2000, 0.2): mean 400, sd ~ 17.9; 5 sd either side. */
    cr_assert(held[0]->num_docs > 310 && held[0]->num_docs < 490, "%zu held out", held[0]->num_docs);
    cr_assert_eq(train[0]->num_docs + held[0]->num_docs, c->num_docs);
    cr_assert_eq(train[0]->num_tokens + held[0]->num_tokens, c->num_tokens);
    cr_assert_eq(train[0]->num_input_docs, c->num_input_docs, "θ keeps one row per input document");
    /* Disjoint, each document where the rule says, with its own tokens. */
    size_t t = 0, h = 0;
    for (size_t d = 0; d < c->num_docs; d++) {
        int out = lda_heldout_selected(42, 0.2, c->input_index[d]);
        corpus *dst = out ? held[0] : train[0];
        size_t j = out ? h++ : t++;
        cr_assert_eq(dst->input_index[j], c->input_index[d]);
        size_t len = c->doc_offsets[d + 1] - c->doc_offsets[d];
        cr_assert_eq(dst->doc_offsets[j + 1] - dst->doc_offsets[j], len);
        cr_assert_eq(memcmp(dst->words + dst->doc_offsets[j], c->words + c->doc_offsets[d], len * 4), 0);
    }
    cr_assert_eq(strcmp(train[0]->vocab[3], c->vocab[3]), 0, "the training part keeps the vocabulary");
    /* Another seed holds out other documents; fraction 0 holds out none. */
    corpus *t2, *h2;
    cr_assert_eq(lda_heldout_split(c, 0.2, 43, &t2, &h2, &err), 0);
    cr_assert(h2->num_docs != held[0]->num_docs ||
              memcmp(h2->input_index, held[0]->input_index, h2->num_docs * sizeof(size_t)) != 0);
    for (size_t d = 0; d < c->num_docs; d++)
        cr_assert(!lda_heldout_selected(42, 0.0, d));
    for (int run = 0; run < 2; run++) {
        corpus_free(train[run]);
        corpus_free(held[run]);
    }
    corpus_free(t2);
    corpus_free(h2);
    corpus_free(c);
}

Test(heldout, split_refuses_to_hold_out_everything)
{
    corpus *c = test_planted_corpus(2, 5, 3, 5, 6, 3, NULL);
    lda_error err = {0};
    corpus *t, *h;
    cr_assert_eq(lda_heldout_split(c, 0.9999999, 1, &t, &h, &err), -1);
    cr_assert(strstr(err.msg, "nothing is left"), "%s", err.msg);
    corpus_free(c);
}

/* The same refusal from train, its corpus freed on the way out (a leak under `make asan`). */
Test(heldout, train_refuses_to_hold_out_everything)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 -q --holdout 0.99999 --device cpu -o '%s/m'", c, dir);
    test_expect_failure(args, 2, "--holdout 0.99999 holds out all 64 documents; nothing is left to train on");
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* Documents of lengths 1..9: halves ⌊len/2⌋ and the rest; one-token documents not scored. */
Test(heldout, completion_scores_second_halves_and_skips_one_token_documents)
{
    uint32_t *docs[9], lengths[9];
    size_t expect_tokens = 0;
    for (int d = 0; d < 9; d++) {
        lengths[d] = (uint32_t)d + 1;
        docs[d] = malloc(lengths[d] * sizeof(uint32_t));
        for (uint32_t i = 0; i < lengths[d]; i++)
            docs[d][i] = (uint32_t)(d * 3 + i) % 20;
        if (lengths[d] >= 2)
            expect_tokens += lengths[d] - lengths[d] / 2;
    }
    corpus *c = test_corpus_from_docs(9, (const uint32_t *const *)docs, lengths, 20);
    lda_params p = cpu_params(4, 2);
    lda_completion comp;
    lda_error err = {0};
    cr_assert_eq(lda_completion_init(&comp, c, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(comp.num_docs, 8);
    cr_assert_eq(comp.num_short_docs, 1);
    cr_assert_eq(comp.num_tokens, expect_tokens);
    for (size_t d = 0; d < comp.num_docs; d++) { /* document d+1 of c, split at its middle */
        size_t len = d + 2, half = len / 2;
        cr_assert_eq(comp.estimate->doc_offsets[d + 1] - comp.estimate->doc_offsets[d], half);
        cr_assert_eq(comp.scored->words[comp.scored->doc_offsets[d]], docs[d + 1][half]);
    }
    /* Uniform φ: every token scores log(1/V) whatever θ. */
    float *phi = malloc(20 * 4 * sizeof *phi);
    for (int i = 0; i < 80; i++)
        phi[i] = 1.0f / 20;
    double ll;
    cr_assert_eq(lda_completion_run(&comp, phi, NULL, 5, 3, &ll, &err), 0, "%s", err.msg);
    cr_assert_float_eq(ll, log(1.0 / 20), 1e-6);
    lda_completion_free(&comp);
    free(phi);
    for (int d = 0; d < 9; d++)
        free(docs[d]);
    corpus_free(c);
}

Test(heldout, completion_is_reproducible_for_any_thread_count)
{
    corpus *c = test_planted_corpus(PLANTED, WORDS, 300, 10, 60, 9, NULL);
    float *phi = planted_phi();
    double ll[3];
    lda_error err = {0};
    for (int run = 0; run < 3; run++) {
        lda_params p = cpu_params(PLANTED, run == 2 ? 1 : 2);
        lda_completion comp;
        cr_assert_eq(lda_completion_init(&comp, c, &p, &err), 0, "%s", err.msg);
        cr_assert_eq(lda_completion_run(&comp, phi, NULL, 11, 10, &ll[run], &err), 0, "%s", err.msg);
        lda_completion_free(&comp);
    }
    cr_assert_eq(ll[0], ll[1], "same seed, same figure: %.17g vs %.17g", ll[0], ll[1]);
    cr_assert_eq(ll[0], ll[2], "1 and 2 threads differ: %.17g vs %.17g", ll[0], ll[2]);
    /* With the true topics the held-out halves score far better than under a uniform φ. */
    cr_assert_gt(ll[0], log(1.0 / (PLANTED * WORDS)) + 1.0, "%f", ll[0]);
    free(phi);
    corpus_free(c);
}

/* Inference with φ = the planted topics recovers each document's planted mixture. */
static void inference_recovers(lda_device device)
{
    const size_t D = 400;
    double *mix = malloc(D * PLANTED * sizeof *mix);
    corpus *c = test_planted_corpus(PLANTED, WORDS, D, 40, 90, 21, mix);
    float *phi = planted_phi();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    float *theta = malloc(L->num_slots * PLANTED * sizeof *theta);
    lda_params p = cpu_params(PLANTED, 2);
    p.device = device;
    cr_assert_eq(lda_infer(L, &p, NULL, phi, 30, theta, NULL, NULL, &err), 0, "%s", err.msg);
    double l1_sum = 0, worst = 0;
    size_t major_right = 0;
    for (size_t d = 0; d < D; d++) {
        const float *th = theta + (size_t)L->doc_slot[d] * PLANTED;
        double l1 = 0, sum = 0;
        uint32_t best = 0;
        for (uint32_t k = 0; k < PLANTED; k++) {
            l1 += fabs(th[k] - mix[d * PLANTED + k]);
            sum += th[k];
            if (th[k] > th[best])
                best = k;
        }
        cr_assert_float_eq(sum, 1.0, 1e-4, "θ of document %zu sums to %f", d, sum);
        major_right += best == d % PLANTED;
        l1_sum += l1;
        worst = l1 > worst ? l1 : worst;
    }
    /* Sampling noise alone (40..90 tokens, minor share up to 30%) gives a mean L1 near 0.07;
     * a uniform θ would give about 1.5. */
    cr_assert_lt(l1_sum / D, 0.15, "mean L1 distance to the planted mixtures %f (worst %f)", l1_sum / D, worst);
    cr_assert_geq(major_right, D * 98 / 100, "dominant topic right in %zu of %zu documents", major_right, D);
    free(theta);
    free(phi);
    free(mix);
    lda_layout_free(L);
    corpus_free(c);
}

Test(heldout, inference_recovers_planted_mixtures) { inference_recovers(LDA_DEVICE_CPU); }

#ifdef LDA_HAVE_CUDA
#include "backend/backend.h"

Test(heldout_gpu, inference_recovers_planted_mixtures)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0)
        cr_skip_test("no GPU here: %s", why);
    inference_recovers(LDA_DEVICE_CUDA);
}
#endif

Test(heldout, seeds_of_evaluations_differ)
{
    cr_assert_neq(lda_heldout_seed(1, 10), lda_heldout_seed(1, 20));
    cr_assert_neq(lda_heldout_seed(1, 10), lda_heldout_seed(2, 10));
    cr_assert_eq(lda_heldout_seed(1, 10), lda_heldout_seed(1, 10));
}
