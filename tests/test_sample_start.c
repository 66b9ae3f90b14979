/* test_sample_start.c — a run's start from a sample of its documents (train/sample_start.h): the
 * sample's counts exactly, the draw's distribution (chi-squared), the same start for any thread
 * count, planted topics found by the start alone, and --sample-start auto's choice. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/layout.h"
#include "core/params.h"
#include "core/priors.h"
#include "helpers.h"
#include "model/topwords.h"
#include "train/sample_start.h"

/* A corpus of one-token documents: doc d is word words[d]. */
static corpus *one_token_docs(const uint32_t *words, size_t n, uint32_t V)
{
    const uint32_t **docs = malloc(n * sizeof *docs), *lengths = malloc(n * sizeof *lengths);
    uint32_t *len = (uint32_t *)lengths;
    for (size_t d = 0; d < n; d++) {
        docs[d] = &words[d];
        len[d] = 1;
    }
    corpus *c = test_corpus_from_docs(n, (const uint32_t *const *)docs, lengths, V);
    free(docs);
    free(len);
    return c;
}

/* The sample of counts_of_a_known_z: word 0 in topics 0 ×5, 2 ×2, 3 ×1; word 1 in topic 1 ×3;
 * word 2 nowhere (V = 3, K = 4). */
static const uint32_t sample_words[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
static const uint32_t sample_topics[] = {0, 0, 0, 0, 0, 2, 2, 3, 1, 1, 1};
enum { SAMPLE_TOKENS = sizeof sample_words / sizeof sample_words[0], V3 = 3, K4 = 4 };

static lda_layout *known_sample(uint32_t **z_pos)
{
    corpus *c = one_token_docs(sample_words, SAMPLE_TOKENS, V3);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    *z_pos = calloc(L->num_positions, sizeof **z_pos);
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s])
            (*z_pos)[lda_layout_pos(L, s, 0)] = sample_topics[L->slot_doc[s]];
    corpus_free(c);
    return L;
}

Test(sample_start, counts_of_a_known_z)
{
    uint32_t *z;
    lda_layout *L = known_sample(&z);
    lda_priors pr;
    lda_error err = {0};
    cr_assert_eq(lda_priors_init(&pr, K4, 0.5, 0.1, &err), 0);
    lda_sample_counts c;
    cr_assert_eq(lda_sample_counts_build(L, z, &pr, &c, &err), 0, "%s", err.msg);
    const uint64_t offset[] = {0, 3, 4, 4};
    const uint32_t topic[] = {0, 2, 3, 1}, count[] = {5, 2, 1, 3}, n_k[] = {5, 3, 2, 1};
    for (uint32_t w = 0; w <= V3; w++)
        cr_assert_eq(c.offset[w], offset[w], "offset of word %u", w);
    for (uint32_t j = 0; j < 4; j++) {
        cr_assert_eq(c.topic[j], topic[j]);
        cr_assert_eq(c.count[j], count[j]);
    }
    double smooth = 0;
    for (uint32_t k = 0; k < K4; k++) {
        cr_assert_eq(c.inv[k], 1.0 / ((double)n_k[k] + V3 * 0.1), "1 / (n[k] + Vβ) of topic %u", k);
        smooth += 0.5 * 0.1 * c.inv[k];
        cr_assert_eq(c.smooth_sum[k], smooth);
    }
    double sum = 0;
    for (uint32_t j = 0; j < 3; j++) {
        sum += 0.5 * (double)count[j] * c.inv[topic[j]];
        cr_assert_eq(c.word_sum[j], sum, "word 0's running sum at its topic %u", topic[j]);
    }
    cr_assert_eq(c.word_sum[3], 0.5 * 3 * c.inv[1]);
    lda_sample_counts_free(&c);
    lda_priors_free(&pr);
    lda_layout_free(L);
    free(z);
}

/* Documents of two tokens of word 0 drawn from the known sample: the pair (k1, k2) has the
 * probability p(k1) p(k2 | k1), p(k) ∝ (c_k + α)(n'[0,k] + β) / (n'[k] + Vβ), c the document's
 * topics so far. 20,000 documents, every pair a bin (16), rejected at significance 1e-4. */
Test(sample_start, draw_follows_the_conditional)
{
    enum { DOCS = 20000 };
    uint32_t *z;
    lda_layout *S = known_sample(&z);
    lda_priors pr;
    lda_error err = {0};
    const double alpha = 0.5, beta = 0.1;
    cr_assert_eq(lda_priors_init(&pr, K4, alpha, beta, &err), 0);
    lda_sample_counts c;
    cr_assert_eq(lda_sample_counts_build(S, z, &pr, &c, &err), 0, "%s", err.msg);
    corpus *docs = test_repeated_word_corpus(DOCS, 2, V3, 0);
    lda_layout *L = lda_layout_build(docs, 0, &err);
    cr_assert(L, "%s", err.msg);
    uint32_t *start = calloc(L->num_positions, sizeof *start);
    cr_assert_eq(lda_sample_start_draw(L, &c, &pr, 7, 2, start, &err), 0, "%s", err.msg);
    uint64_t observed[K4 * K4] = {0};
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s] == 2)
            observed[start[lda_layout_pos(L, s, 0)] * K4 + start[lda_layout_pos(L, s, 1)]]++;
    const double n0[K4] = {5, 0, 2, 1};
    double f[K4], p1[K4], total1 = 0, prob[K4 * K4];
    for (uint32_t k = 0; k < K4; k++) {
        f[k] = (n0[k] + beta) * c.inv[k];
        total1 += p1[k] = alpha * f[k];
    }
    for (uint32_t a = 0; a < K4; a++) {
        double total2 = 0;
        for (uint32_t k = 0; k < K4; k++)
            total2 += ((k == a) + alpha) * f[k];
        for (uint32_t k = 0; k < K4; k++)
            prob[a * K4 + k] = p1[a] / total1 * ((k == a) + alpha) * f[k] / total2;
    }
    double dof;
    const double x = test_chi2_stat(observed, prob, K4 * K4, DOCS, &dof);
    cr_assert_gt(test_chi2_sf(x, dof), 1e-4, "chi-squared %.1f on %.0f degrees of freedom", x, dof);
    free(start);
    lda_layout_free(L);
    corpus_free(docs);
    lda_sample_counts_free(&c);
    lda_priors_free(&pr);
    lda_layout_free(S);
    free(z);
}

/* The planted corpus of 8 topics over 25 words each, and the run's parameters for it. */
static corpus *planted(void)
{
    return test_planted_corpus(8, 25, 2000, 40, 90, 12, NULL);
}

static lda_params collapsed_params(uint32_t piece_length, int threads)
{
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_ALIAS, 12);
    p.device = LDA_DEVICE_CPU;
    p.piece_length = piece_length;
    p.threads = threads;
    p.seed = 3;
    return p;
}

/* z of the whole start on c laid out as L. */
static uint32_t *started(const corpus *c, const lda_layout *L, const lda_params *p, uint32_t iterations)
{
    lda_priors pr;
    lda_error err = {0};
    cr_assert_eq(lda_priors_init(&pr, p->num_topics, 0.1, p->beta, &err), 0);
    uint32_t *z = calloc(L->num_positions, sizeof *z);
    lda_sample_start_report rep;
    cr_assert_eq(lda_sample_start(c, L, p, &pr, iterations, z, &rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep.sample_docs, (c->num_docs + LDA_SAMPLE_START_STRIDE - 1) / LDA_SAMPLE_START_STRIDE);
    lda_priors_free(&pr);
    return z;
}

Test(sample_start, same_start_for_any_thread_count)
{
    corpus *c = planted();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 16, &err); /* documents cut into pieces */
    cr_assert(L && L->num_cut_docs > 0, "%s", err.msg);
    lda_params p1 = collapsed_params(16, 1);
    uint32_t *one = started(c, L, &p1, 4);
    for (int threads = 2; threads <= 3; threads++) {
        lda_params p = collapsed_params(16, threads);
        uint32_t *z = started(c, L, &p, 4);
        cr_assert_arr_eq(z, one, L->num_positions * sizeof *z, "%d threads", threads);
        free(z);
    }
    free(one);
    lda_layout_free(L);
    corpus_free(c);
}

/* How many of the 8 planted topics own a topic of φ (from z's counts, L's positions) whose top 10
 * words are all theirs. */
static int planted_found(const lda_layout *L, const uint32_t *z, uint32_t K)
{
    uint32_t *words = malloc(L->num_tokens * sizeof *words), *topics = malloc(L->num_tokens * sizeof *topics);
    size_t n = 0;
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++, n++) {
            const size_t pos = lda_layout_pos(L, s, i);
            words[n] = L->words[pos];
            topics[n] = z[pos];
        }
    const int found = test_planted_topics_found(words, topics, n, (uint32_t)L->vocab_size, K, 8, 25);
    free(words);
    free(topics);
    return found;
}

/* Before any iteration of the whole corpus, the start from 30 iterations on its tenth finds every
 * planted topic; the random start finds none (what the test tells apart). */
Test(sample_start, planted_topics_found_by_the_start_alone)
{
    corpus *c = planted();
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    lda_params p = collapsed_params(0, 2);
    uint32_t *z = started(c, L, &p, 30);
    cr_assert_eq(planted_found(L, z, p.num_topics), 8);
    for (size_t pos = 0; pos < L->num_positions; pos++)
        z[pos] = pos % p.num_topics;
    cr_assert_eq(planted_found(L, z, p.num_topics), 0);
    free(z);
    lda_layout_free(L);
    corpus_free(c);
}

Test(sample_start, auto_takes_it_for_the_collapsed_model_on_the_cpu)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.device = LDA_DEVICE_CPU;
    p.num_topics = LDA_SAMPLE_START_FROM_K;
    const size_t enough = (size_t)LDA_SAMPLE_START_STRIDE * LDA_SAMPLE_START_MIN_DOCS;
    cr_assert_eq(p.sample_start, LDA_SAMPLE_START_AUTO);
    cr_assert_eq(lda_params_sample_start(&p, enough), LDA_SAMPLE_START_ITERATIONS);
    cr_assert_eq(lda_params_sample_start(&p, enough - 1), 0, "a sample of fewer documents was not measured");
    p.num_topics = LDA_SAMPLE_START_FROM_K - 1;
    cr_assert_eq(lda_params_sample_start(&p, enough), 0, "no sooner at K = 100");
    p.num_topics = LDA_SAMPLE_START_FROM_K;
    p.device = LDA_DEVICE_CUDA;
    cr_assert_eq(lda_params_sample_start(&p, enough), 0);
    p.device = LDA_DEVICE_CPU;
    lda_params_set_model(&p, LDA_MODEL_UNCOLLAPSED);
    cr_assert_eq(lda_params_sample_start(&p, enough), 0);
    p.sample_start = 7;
    cr_assert_eq(lda_params_sample_start(&p, 5), 7, "asked for: taken whatever the corpus and model");
    p.freeze_phi = 1;
    cr_assert_eq(lda_params_sample_start(&p, enough), 0, "inference never");
}
