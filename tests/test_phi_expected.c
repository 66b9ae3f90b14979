/* test_phi_expected.c — the collapsed model's φ from expected counts (train/phi_expected.h):
 * against a plain reference that forms every token's full conditional over all K topics, the
 * same bits for any thread count, and what train writes and logs with --phi-estimate. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/priors.h"
#include "core/rng.h"
#include "helpers.h"
#include "train/phi_expected.h"

/* Random topics for c's tokens: uniform over K, but a document's tokens mostly in a few of them
 * (so that documents' lists are short and long, as in a run). */
static uint32_t *some_topics(const corpus *c, uint32_t K)
{
    uint32_t *z = malloc((c->num_tokens ? c->num_tokens : 1) * sizeof *z);
    for (size_t m = 0; m < c->num_docs; m++)
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++) {
            const uint32_t u = lda_rng_once(5, LDA_RNG_TEST, 3, t);
            z[t] = (u & 1) ? (uint32_t)((m + (u >> 1) % 3) % K) : (u >> 1) % K;
        }
    return z;
}

/* The plain reference: every token's p(k) over all K, the token taken off every count. */
static double *reference_phi(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *pr)
{
    const uint32_t V = c->vocab_size;
    double *n_wk = calloc((size_t)V * K, sizeof *n_wk), *n_k = calloc(K, sizeof *n_k), *n_mk = calloc(K, sizeof *n_mk);
    double *e = calloc((size_t)V * K, sizeof *e), *p = malloc(K * sizeof *p), *total = calloc(K, sizeof *total);
    for (size_t t = 0; t < c->num_tokens; t++) {
        n_wk[(size_t)c->words[t] * K + z[t]]++;
        n_k[z[t]]++;
    }
    const double Vb = V * pr->beta;
    for (size_t m = 0; m < c->num_docs; m++) {
        memset(n_mk, 0, K * sizeof *n_mk);
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++)
            n_mk[z[t]]++;
        for (size_t t = c->doc_offsets[m]; t < c->doc_offsets[m + 1]; t++) {
            const uint32_t w = c->words[t];
            double sum = 0.0;
            for (uint32_t k = 0; k < K; k++) {
                const double own = k == z[t];
                p[k] = (n_mk[k] - own + pr->alpha[k]) * (n_wk[(size_t)w * K + k] - own + pr->beta) / (n_k[k] - own + Vb);
                sum += p[k];
            }
            for (uint32_t k = 0; k < K; k++)
                e[(size_t)w * K + k] += p[k] / sum;
        }
    }
    for (size_t i = 0; i < (size_t)V * K; i++)
        total[i % K] += e[i];
    for (size_t i = 0; i < (size_t)V * K; i++)
        e[i] = (e[i] + pr->beta) / (total[i % K] + Vb);
    free(n_wk);
    free(n_k);
    free(n_mk);
    free(p);
    free(total);
    return e;
}

static float *expected_phi(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *pr, int threads)
{
    float *phi = malloc((size_t)c->vocab_size * K * sizeof *phi);
    lda_error err = {0};
    cr_assert_eq(lda_phi_expected(c, z, K, pr, threads, phi, &err), 0, "%s", err.msg);
    return phi;
}

Test(phi_expected, agrees_with_every_tokens_full_conditional)
{
    const uint32_t Ks[] = {1, 2, 31, 32, 33, 100};
    corpus *c = test_word_runs_corpus(80, 37, 60);
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; i++) {
        const uint32_t K = Ks[i], V = c->vocab_size;
        lda_priors pr;
        lda_error err = {0};
        cr_assert_eq(lda_priors_init(&pr, K, 0.3, 0.05, &err), 0);
        if (K > 2) { /* learned priors: α differs by topic */
            double *alpha = malloc(K * sizeof *alpha);
            for (uint32_t k = 0; k < K; k++)
                alpha[k] = 0.05 + 0.01 * (k % 7);
            lda_priors_learn(&pr, alpha, 0.02);
            free(alpha);
        }
        uint32_t *z = some_topics(c, K);
        double *want = reference_phi(c, z, K, &pr);
        float *got = expected_phi(c, z, K, &pr, 2);
        for (uint32_t k = 0; k < K; k++) {
            double row = 0.0;
            for (uint32_t w = 0; w < V; w++) {
                const double a = got[(size_t)w * K + k], b = want[(size_t)w * K + k];
                cr_assert(fabs(a - b) <= 2e-6 * b, "K = %u: φ[%u,%u] %.9g, the reference %.9g", K, w, k, a, b);
                row += a;
            }
            cr_assert(fabs(row - 1.0) < 1e-5, "K = %u: topic %u sums to %.9g", K, k, row);
        }
        free(got);
        free(want);
        free(z);
        lda_priors_free(&pr);
    }
    corpus_free(c);
}

Test(phi_expected, the_same_for_any_thread_count)
{
    const uint32_t K = 64;
    corpus *c = test_word_runs_corpus(300, 200, 90);
    lda_priors pr;
    lda_error err = {0};
    cr_assert_eq(lda_priors_init(&pr, K, 20.0 / K, 0.01, &err), 0);
    uint32_t *z = some_topics(c, K);
    float *one = expected_phi(c, z, K, &pr, 1);
    const int threads[] = {2, 3, 8};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        float *more = expected_phi(c, z, K, &pr, threads[i]);
        cr_assert(!memcmp(one, more, (size_t)c->vocab_size * K * sizeof *one), "%d threads: another φ", threads[i]);
        free(more);
    }
    free(one);
    free(z);
    lda_priors_free(&pr);
    corpus_free(c);
}

/* The last field of log.csv's last row: phi_seconds. */
static double last_phi_seconds(const char *model)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/log.csv", model);
    char *text = test_read_file(path);
    cr_assert(text, "no %s", path);
    text[strlen(text) - 1] = '\0';
    const double s = strtod(strrchr(text, ',') + 1, NULL);
    free(text);
    return s;
}

Test(phi_expected, train_writes_records_and_times_it)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[8192], a[2048], b[2048];
    snprintf(args, sizeof args, "train '%s' -K 3 -n 8 --model collapsed --device cpu -j 2 --phi-estimate expected "
             "-o '%s/expected' -q", c, dir);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 8 --model collapsed --device cpu -j 2 --phi-estimate counts "
             "-o '%s/counts' -q", c, dir);
    test_run_ok(args, NULL);
    snprintf(a, sizeof a, "%s/expected", dir);
    snprintf(b, sizeof b, "%s/counts", dir);
    int status;
    snprintf(args, sizeof args, "grep phi_estimate '%s/model.conf'", a);
    char *conf = test_shell(args, &status);
    cr_assert(strstr(conf, "phi_estimate = expected"), "%s", conf);
    free(conf);
    cr_assert_gt(last_phi_seconds(a), 0.0);
    cr_assert_eq(last_phi_seconds(b), 0.0);
    /* The estimate moves no token: the same z, another φ. */
    char za[2100], zb[2100], pa[2100], pb[2100];
    snprintf(za, sizeof za, "%s/z.npy", a);
    snprintf(zb, sizeof zb, "%s/z.npy", b);
    snprintf(pa, sizeof pa, "%s/phi.npy", a);
    snprintf(pb, sizeof pb, "%s/phi.npy", b);
    cr_assert(test_same_bytes(za, zb));
    cr_assert(!test_same_bytes(pa, pb), "expected and counts wrote the same φ");
    /* φ is the state's: the expected model rewritten with the counts' φ is the counts run's. */
    snprintf(args, sizeof args, "train --resume '%s' -n 0 --phi-estimate counts -q", a);
    test_run_ok(args, NULL);
    cr_assert(test_same_bytes(pa, pb), "--resume -n 0 --phi-estimate counts: not the counts run's φ");
    /* Only the collapsed model has it. */
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --model uncollapsed --device cpu --phi-estimate expected "
             "-o '%s/u' -q", c, dir);
    test_expect_failure(args, 2, "--phi-estimate expected: the collapsed model's only");
    test_rmdir(dir);
    free(c);
    free(dir);
}

/* The pass's memory is planned with the run's: K = 4096 on the tiny corpus, where the pass's topic
 * totals (256 parts × K doubles, 8 MiB) add to the rest of a collapsed CPU run (7 MiB), so
 * a limit between the two lets the counts' run through and refuses the expected one before
 * training. */
Test(phi_expected, its_memory_is_counted_before_the_run)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "11M", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 4096 -n 1 -e 0 --model collapsed --device cpu --phi-estimate counts "
             "-o '%s/counts' -q", c, dir);
    test_run_ok(args, NULL);
    snprintf(args, sizeof args, "train '%s' -K 4096 -n 1 -e 0 --model collapsed --device cpu --phi-estimate expected "
             "-o '%s/expected' -q", c, dir);
    test_expect_failure(args, 1, "not enough memory for this run");
    test_expect_failure(args, 1, "(K=4096, 64 documents, V=12, training on the CPU), and 11 MiB are available");
    cr_assert_eq(unsetenv("LDAGPU_MEMORY_LIMIT"), 0);
    test_rmdir(dir);
    free(c);
    free(dir);
}
