/* test_generate.c — ldagpu generate (synth/): alias tables give each outcome its weight, the
 * lengths have their stated distribution, the files are the same bytes for any thread count,
 * both forms read as one corpus, the words follow the planted topics (chi-squared, significance
 * 0.001), and training on a generated corpus recovers its planted topics. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alias.h"
#include "corpus/corpus_read.h"
#include "helpers.h"
#include "model/matrix_file.h"
#include "planted.h"
#include "synth/generate.h"
#include "synth/planted_model.h"

/* What a table gives outcome i: its own bucket's keep share and every bucket aliasing it. */
static void alias_probabilities(const lda_alias_entry *t, uint32_t n, double *p)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        const double keep = t[j].keep == UINT32_MAX ? 1.0 : t[j].keep / 4294967296.0;
        p[j] += keep / n;
        p[t[j].alias] += (1.0 - keep) / n;
    }
}

Test(generate, an_alias_table_gives_each_outcome_its_weight)
{
    enum { N = 1000 };
    static double w[N], q[N], p[N];
    static uint32_t work[N];
    static lda_alias_entry table[N];
    double sum = 0.0;
    for (uint32_t i = 0; i < N; i++)
        sum += (w[i] = i % 7 == 3 ? 0.0 : i % 5 == 1 ? 1e-9 : pow((double)(i % 13) + 0.5, 3.0));
    lda_alias_build(w, N, table, q, work);
    alias_probabilities(table, N, p);
    for (uint32_t i = 0; i < N; i++) {
        if (w[i] == 0.0)
            cr_assert_eq(p[i], 0.0, "outcome %u has no weight and is drawn", i);
        cr_assert_lt(fabs(p[i] - w[i] / sum), 1e-9, "outcome %u: %g, expected %g", i, p[i], w[i] / sum);
    }
    /* A draw is the bucket of u_bucket's high bits, kept or aliased by u_keep. */
    cr_assert_eq(lda_alias_draw(table, N, 0, 0), table[0].keep > 0 ? 0 : table[0].alias);
    cr_assert_eq(lda_alias_draw(table, N, UINT32_MAX, UINT32_MAX), table[N - 1].alias);
}

/* A document's topics (the urn, θ integrated out) have the Dirichlet-multinomial law: the
 * count vectors of 4 tokens over 3 topics, 100,000 documents, against their exact probabilities
 * L! / Π n_k! · Γ(Kα) / Γ(L + Kα) · Π Γ(n_k + α) / Γ(α); and the order of the topics carries
 * nothing more (each position's topic is uniform over the topics, as by symmetry it must be). */
Test(generate, a_documents_topics_have_the_dirichlet_multinomial_law)
{
    enum { K = 3, L = 4, DOCS = 100000, OUTCOMES = (L + 1) * (L + 1) };
    const double alpha = 0.4;
    double prob[OUTCOMES] = {0};
    uint64_t seen[OUTCOMES] = {0}, at[L][K] = {{0}};
    for (int a = 0; a <= L; a++)
        for (int b = 0; a + b <= L; b++) {
            const int n[K] = {a, b, L - a - b};
            double lp = lgamma(L + 1.0) + lgamma(K * alpha) - lgamma(L + K * alpha);
            for (int k = 0; k < K; k++)
                lp += lgamma(n[k] + alpha) - lgamma(alpha) - lgamma(n[k] + 1.0);
            prob[a * (L + 1) + b] = exp(lp);
        }
    uint32_t z[L];
    uint64_t bits[L];
    for (uint64_t d = 0; d < DOCS; d++) {
        lda_planted_doc_topics(11, d, alpha, K, L, z, bits);
        int n[K] = {0};
        for (int i = 0; i < L; i++) {
            cr_assert_lt(z[i], K);
            n[z[i]]++;
            at[i][z[i]]++;
        }
        seen[n[0] * (L + 1) + n[1]]++;
    }
    double dof, stat = test_chi2_stat(seen, prob, OUTCOMES, DOCS, &dof);
    cr_assert_gt(test_chi2_sf(stat, dof), 0.001, "counts: chi-squared %f on %g degrees of freedom", stat, dof);
    const double third[K] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    for (int i = 0; i < L; i++) {
        stat = test_chi2_stat(at[i], third, K, DOCS, &dof);
        cr_assert_gt(test_chi2_sf(stat, dof), 0.001, "token %d: chi-squared %f", i, stat);
    }
}

/* A document costs its tokens, not K Gamma variates: 20,000 documents of 5 tokens at
 * K = 100,000 (2 × 10^9 variates when θ_d was drawn first: minutes) take well under a second. */
Test(generate, a_documents_cost_does_not_grow_with_the_topics)
{
    char *dir = test_tmpdir(), args[1024], *out = NULL;
    snprintf(args, sizeof args, "generate -o '%s/k.ldab' --docs 20000 --mean-length 5 -K 100000 --vocab-size 20 "
             "--alpha 0.00003 -j 2", dir);
    cr_assert_eq(test_run_ldagpu_within(args, 30, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "20000 documents"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

/* ---- document lengths: 20,000 draws, each check at five standard errors ---- */

enum { DRAWS = 20000 };

static void length_moments(const lda_length_spec *spec, double *mean, double *var, double *log_mean, double *log_sd)
{
    double s = 0, s2 = 0, l = 0, l2 = 0;
    for (uint64_t d = 0; d < DRAWS; d++) {
        const double x = lda_doc_length(spec, 42, d);
        cr_assert_geq(x, 1.0);
        s += x;
        s2 += x * x;
        l += log(x);
        l2 += log(x) * log(x);
    }
    *mean = s / DRAWS;
    *var = s2 / DRAWS - *mean * *mean;
    *log_mean = l / DRAWS;
    *log_sd = sqrt(l2 / DRAWS - *log_mean * *log_mean);
}

Test(generate, poisson_lengths_have_the_mean_and_variance_asked_for)
{
    double mean, var, lm, ls;
    const lda_length_spec large = {LDA_LENGTHS_POISSON, 100.0, 1.0};
    length_moments(&large, &mean, &var, &lm, &ls);
    cr_assert_lt(fabs(mean - 100.0), 5 * sqrt(100.0 / DRAWS), "mean %f", mean);
    cr_assert_lt(fabs(var - 100.0), 5 * 100.0 * sqrt(2.0 / DRAWS), "variance %f", var);
    /* Below 10 the other method; a 0 becomes 1, so the mean is λ + P(0). */
    const lda_length_spec small = {LDA_LENGTHS_POISSON, 3.5, 1.0};
    length_moments(&small, &mean, &var, &lm, &ls);
    cr_assert_lt(fabs(mean - (3.5 + exp(-3.5))), 5 * sqrt(3.5 / DRAWS), "mean %f", mean);
}

Test(generate, lognormal_lengths_have_the_mean_and_spread_asked_for)
{
    double mean, var, lm, ls;
    const lda_length_spec spec = {LDA_LENGTHS_LOGNORMAL, 1000.0, 1.0};
    length_moments(&spec, &mean, &var, &lm, &ls);
    cr_assert_lt(fabs(mean - 1000.0), 5 * 1000.0 * sqrt((exp(1.0) - 1.0) / DRAWS), "mean %f", mean);
    cr_assert_lt(fabs(lm - (log(1000.0) - 0.5)), 5 / sqrt(DRAWS), "mean of the logarithm %f", lm);
    cr_assert_lt(fabs(ls - 1.0), 0.03, "σ of the logarithm %f", ls);
}

/* ---- the files ---- */

static lda_generate_options options(const char *output, corpus_format format)
{
    lda_generate_options o = {output, format, 2000, {LDA_LENGTHS_POISSON, 100.0, 1.0}, 300, 4, 0.5, 0.5, 7, 2, 0};
    return o;
}

static uint64_t generate_ok(const lda_generate_options *o)
{
    lda_generate_result r;
    lda_error err = {0};
    cr_assert_eq(lda_generate(o, &r, &err), 0, "%s", err.msg);
    uint64_t tokens = r.num_tokens;
    lda_generate_result_free(&r);
    return tokens;
}

static corpus *read_generated(const char *path)
{
    corpus_options opt;
    corpus_options_default(&opt);
    lda_error err = {0};
    corpus *c = corpus_read(path, &opt, &err);
    cr_assert_not_null(c, "%s", err.msg);
    return c;
}

static float *read_matrix(const char *path, uint64_t rows, uint64_t cols)
{
    uint64_t r, c;
    void *data;
    lda_error err = {0};
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_F32, &r, &c, &data, &err), 0, "%s", err.msg);
    cr_assert_eq(r, rows);
    cr_assert_eq(c, cols);
    return data;
}

Test(generate, the_same_bytes_for_one_and_four_threads)
{
    char *dir = test_tmpdir(), args[2048], *out = NULL;
    static const char *files[] = {"docword.%d.txt", "vocab.%d.txt", "docword.%d.txt.phi.npy",
                                  "docword.%d.txt.theta.npy", "%d.ldab", "%d.ldab.phi.npy"};
    for (int threads = 1; threads <= 4; threads += 3) {
        /* 3 M tokens: a dozen blocks, so several rounds are made while others are written. */
        snprintf(args, sizeof args, "generate -o '%s/docword.%d.txt' --docs 30000 -K 30 --vocab-size 5000 --theta "
                 "--lengths lognormal -j %d", dir, threads, threads);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
        cr_assert_not_null(strstr(out, "(uci): 30000 documents"), "%s", out);
        free(out);
        snprintf(args, sizeof args, "generate -o '%s/%d.ldab' --docs 30000 -K 30 --vocab-size 5000 -j %d", dir,
                 threads, threads);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
        cr_assert_not_null(strstr(out, "(binary): 30000 documents"), "%s", out);
        free(out);
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char name[64], a[1024], b[1024];
        snprintf(name, sizeof name, files[i], 1);
        snprintf(a, sizeof a, "%s/%s", dir, name);
        snprintf(name, sizeof name, files[i], 4);
        snprintf(b, sizeof b, "%s/%s", dir, name);
        cr_assert(test_same_bytes(a, b), "%s and %s differ", a, b);
    }
    test_rmdir(dir);
    free(dir);
}

Test(generate, both_forms_read_as_the_same_corpus)
{
    char *dir = test_tmpdir(), uci[512], bin[512];
    snprintf(uci, sizeof uci, "%s/docword.g.txt", dir);
    snprintf(bin, sizeof bin, "%s/g.ldab", dir);
    lda_generate_options o = options(uci, CORPUS_FORMAT_UCI);
    const uint64_t tokens = generate_ok(&o);
    o.output = bin;
    o.format = CORPUS_FORMAT_BINARY;
    cr_assert_eq(generate_ok(&o), tokens);
    corpus *a = read_generated(uci), *b = read_generated(bin);
    cr_assert_eq(a->format, CORPUS_FORMAT_UCI);
    cr_assert_eq(b->format, CORPUS_FORMAT_BINARY);
    cr_assert_eq(a->num_tokens, tokens);
    cr_assert_eq(a->num_input_docs, 2000);
    cr_assert_eq(a->num_empty_docs, 0, "every document has a token");
    test_expect_same_corpus(a, b);
    cr_assert_str_eq(a->vocab[0], "w000");
    cr_assert_str_eq(a->vocab[299], "w299");
    corpus_free(a);
    corpus_free(b);
    test_rmdir(dir);
    free(dir);
}

/* Chi-squared of the corpus's word counts against expected probabilities, significance 0.001. */
static void expect_words_follow(const corpus *c, const double *prob, uint32_t V)
{
    uint64_t *seen = calloc(V, sizeof *seen);
    cr_assert_not_null(seen);
    for (size_t i = 0; i < c->num_tokens; i++)
        seen[c->words[i]]++;
    double dof, stat = test_chi2_stat(seen, prob, V, c->num_tokens, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert_gt(p, 0.001, "chi-squared %f on %g degrees of freedom: p = %g", stat, dof, p);
    free(seen);
}

Test(generate, with_one_topic_the_words_follow_it)
{
    char *dir = test_tmpdir(), path[512], phi_path[600];
    snprintf(path, sizeof path, "%s/one.ldab", dir);
    lda_generate_options o = options(path, CORPUS_FORMAT_BINARY);
    o.num_topics = 1;
    o.lengths.mean = 500; /* 10^6 tokens */
    generate_ok(&o);
    snprintf(phi_path, sizeof phi_path, "%s.phi.npy", path);
    float *phi = read_matrix(phi_path, 1, 300);
    double prob[300], sum = 0;
    for (int w = 0; w < 300; w++)
        sum += phi[w];
    cr_assert_lt(fabs(sum - 1.0), 1e-5);
    for (int w = 0; w < 300; w++)
        prob[w] = phi[w] / sum;
    corpus *c = read_generated(path);
    expect_words_follow(c, prob, 300);
    corpus_free(c);
    free(phi);
    test_rmdir(dir);
    free(dir);
}

/* Given θ, each token of document d is drawn from Σ_k θ_dk φ_k: the corpus's words follow those
 * mixtures weighted by the lengths. (The counts then vary less than a multinomial's of the pooled
 * probabilities, so the test errs on the side of passing, never of failing.) */
Test(generate, with_several_topics_the_words_follow_the_mixture)
{
    char *dir = test_tmpdir(), path[512], file[600];
    snprintf(path, sizeof path, "%s/docword.mix.txt", dir);
    lda_generate_options o = options(path, CORPUS_FORMAT_UCI);
    o.want_theta = 1;
    generate_ok(&o);
    const uint32_t K = 4, V = 300;
    snprintf(file, sizeof file, "%s.phi.npy", path);
    float *phi = read_matrix(file, K, V);
    snprintf(file, sizeof file, "%s.theta.npy", path);
    float *theta = read_matrix(file, 2000, K);
    corpus *c = read_generated(path);
    double prob[300] = {0};
    for (size_t d = 0; d < c->num_docs; d++) {
        const double len = (double)(c->doc_offsets[d + 1] - c->doc_offsets[d]);
        double theta_sum = 0;
        for (uint32_t k = 0; k < K; k++)
            theta_sum += theta[d * K + k];
        cr_assert_lt(fabs(theta_sum - 1.0), 1e-5, "θ of document %zu sums to %f", d, theta_sum);
        for (uint32_t k = 0; k < K; k++)
            for (uint32_t w = 0; w < V; w++)
                prob[w] += len * theta[d * K + k] * phi[k * V + w] / (double)c->num_tokens;
    }
    expect_words_follow(c, prob, V);
    corpus_free(c);
    free(phi);
    free(theta);
    test_rmdir(dir);
    free(dir);
}

Test(generate, training_recovers_the_planted_topics)
{
    char *dir = test_tmpdir(), args[2048], *out = NULL, file[1024];
    /* Five topics over 500 words, β = 0.02: each puts most of its mass on a few dozen words. */
    snprintf(args, sizeof args, "generate -o '%s/p.ldab' --docs 1000 -K 5 --vocab-size 500 --alpha 0.1 --beta 0.02 "
             "-s 7", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "train '%s/p.ldab' -K 8 -n 100 --alpha 0.1 --device cpu -j 2 -q -o '%s/m'", dir, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(file, sizeof file, "%s/p.ldab.phi.npy", dir);
    float *planted = read_matrix(file, 5, 500);
    snprintf(file, sizeof file, "%s/m/phi.npy", dir);
    float *learned = read_matrix(file, 8, 500);
    planted_expect_matched(planted, 5, learned, 8, 500, 0.15);
    free(planted);
    free(learned);
    test_rmdir(dir);
    free(dir);
}

Test(generate, bad_requests_are_clear_errors)
{
    test_expect_failure("generate -o /tmp/ldagpu-none.txt --docs 5", 2,
                        "-o /tmp/ldagpu-none.txt: a UCI corpus is named docword.NAME.txt");
    test_expect_failure("generate --docs 5", 2, "no output given");
    test_expect_failure("generate -o /tmp/x.ldab --docs 0", 2, "--docs: expected an integer");
    /* -j 2: the need counts a buffer a thread, so the figure is the same on any machine */
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "10M", 1), 0);
    test_expect_failure("generate -o /tmp/ldagpu-none.ldab --docs 5000 -K 1000 --vocab-size 1000 -j 2", 1,
                        "not enough memory: 1000 topics over 1000 words need 11 MiB, and 10 MiB are available");
    cr_assert_eq(unsetenv("LDAGPU_MEMORY_LIMIT"), 0);
    test_expect_failure("generate -o /tmp/ldagpu-none.ldab -f ldac", 2, "-f/--format: ");
}
