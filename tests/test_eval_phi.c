/* test_eval_phi.c — `ldagpu eval --phi`: another program's topics (φ as .npy with the vocabulary
 * of its columns, and α) scored by the same document completion as ldagpu's own models. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/matrix_file.h"

static void run_ok(const char *args, char **out)
{
    int rc = test_run_ldagpu(args, out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, *out);
}

/* The loglik_per_token eval printed. */
static double eval_figure(const char *args)
{
    char *out = NULL;
    run_ok(args, &out);
    const char *at = strstr(out, "loglik_per_token ");
    cr_assert(at, "no figure in: %s", out);
    double ll = strtod(at + strlen("loglik_per_token "), NULL);
    free(out);
    return ll;
}

/* The field before the last (loglik_heldout; phi_seconds is last) of log.csv's row of iteration
 * `it`, as the log writes it. */
static char *logged_heldout(const char *model, unsigned it)
{
    char path[2048], *text, *line, *save = NULL, prefix[32], *found = NULL;
    snprintf(path, sizeof path, "%s/log.csv", model);
    cr_assert((text = test_read_file(path)), "no %s", path);
    snprintf(prefix, sizeof prefix, "%u,", it);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (!strncmp(line, prefix, strlen(prefix))) {
            *strrchr(line, ',') = '\0';
            found = strdup(strrchr(line, ',') + 1);
        }
    free(text);
    cr_assert(found && strlen(found) > 3, "no held-out figure at iteration %u in %s", it, path);
    return found;
}

/* The model's φ, columns reversed, with the vocabulary reversed beside it: the same topics. */
static void write_reversed(const char *model, const char *dir)
{
    char path[2048];
    float *phi = NULL;
    uint64_t K, V;
    lda_error err = {0};
    snprintf(path, sizeof path, "%s/phi.npy", model);
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_F32, &K, &V, (void **)&phi, &err), 0, "%s", err.msg);
    float *rev = malloc(K * V * sizeof *rev);
    for (uint64_t k = 0; k < K; k++)
        for (uint64_t w = 0; w < V; w++)
            rev[k * V + w] = phi[k * V + (V - 1 - w)];
    snprintf(path, sizeof path, "%s/reversed.npy", dir);
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_F32, K, V, rev, &err), 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/vocab.txt", model);
    char *vocab = test_read_file(path), *words[64], *save = NULL;
    size_t n = 0;
    for (char *w = strtok_r(vocab, "\n", &save); w && n < 64; w = strtok_r(NULL, "\n", &save))
        words[n++] = w;
    cr_assert_eq(n, V);
    snprintf(path, sizeof path, "%s/reversed.txt", dir);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\n", words[n - 1 - i]);
    fclose(f);
    free(vocab);
    free(rev);
    free(phi);
}

Test(eval_phi, scores_a_models_phi_as_eval_and_the_log_do)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[8192];
    char *out = NULL;
    /* After 0 iterations the evaluation's seed is the one --phi uses (lda_heldout_seed(seed, 0)):
     * the figure must be the log's, digit for digit. */
    snprintf(args, sizeof args, "train '%s' -K 3 -n 0 -a 0.4 --model collapsed --holdout 0.25 -j 2 --device cpu "
             "-o '%s/m0' -q", c, dir);
    run_ok(args, &out);
    free(out);
    char *logged = logged_heldout(strcat(strcpy((char[2048]){0}, dir), "/m0"), 0);
    snprintf(args, sizeof args, "eval --phi '%s/m0/phi.npy' --phi-vocab '%s/m0/vocab.txt' --alpha 0.4 '%s' --docs "
             "'%s/m0/heldout.txt' --device cpu", dir, dir, c, dir);
    run_ok(args, &out);
    char expect[128];
    snprintf(expect, sizeof expect, "loglik_per_token %s\n", logged);
    cr_assert(strstr(out, expect), "eval --phi says %s; the log's held-out figure is %s", out, logged);
    free(out);
    free(logged);

    /* A trained φ: close to what eval gives the model folder (another random stream), and better than
     * the random start's. */
    snprintf(args, sizeof args, "train '%s' -K 3 -n 30 -a 0.4 --model collapsed --holdout 0.25 -j 2 --device cpu "
             "-o '%s/m' -q", c, dir);
    run_ok(args, &out);
    free(out);
    snprintf(args, sizeof args, "eval '%s/m' '%s' --docs '%s/m/heldout.txt' --device cpu", dir, c, dir);
    double folder = eval_figure(args);
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' --phi-vocab '%s/m/vocab.txt' -a 0.4 '%s' --docs "
             "'%s/m/heldout.txt' --device cpu", dir, dir, c, dir);
    double from_phi = eval_figure(args);
    snprintf(args, sizeof args, "eval --phi '%s/m0/phi.npy' --phi-vocab '%s/m0/vocab.txt' -a 0.4 '%s' --docs "
             "'%s/m/heldout.txt' --device cpu", dir, dir, c, dir);
    double untrained = eval_figure(args);
    cr_assert(fabs(from_phi - folder) < 0.05, "eval --phi %f, eval of the folder %f", from_phi, folder);
    cr_assert(from_phi > untrained + 0.1, "trained φ %f, the random start's %f", from_phi, untrained);

    /* φ's columns are words: the same topics over the vocabulary in another order score the same. */
    write_reversed(strcat(strcpy((char[2048]){0}, dir), "/m"), dir);
    snprintf(args, sizeof args, "eval --phi '%s/reversed.npy' --phi-vocab '%s/reversed.txt' -a 0.4 '%s' --docs "
             "'%s/m/heldout.txt' --device cpu", dir, dir, c, dir);
    cr_assert_eq(eval_figure(args), from_phi);
    /* α is the one given: another gives another figure. */
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' --phi-vocab '%s/m/vocab.txt' -a 5 '%s' --docs "
             "'%s/m/heldout.txt' --device cpu", dir, dir, c, dir);
    cr_assert_neq(eval_figure(args), from_phi);
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(eval_phi, refuses_what_does_not_fit)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[8192], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -j 1 --device cpu -o '%s/m' -q", c, dir);
    run_ok(args, &out);
    free(out);
    char *short_vocab = test_write_file(dir, "short.txt", "apple\nbanana\n");
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' --phi-vocab '%s' -a 0.1 '%s'", dir, short_vocab, c);
    test_expect_failure(args, 2, "phi.npy: φ has 3 topics of 12 words, where");
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' --phi-vocab '%s/m/vocab.txt' '%s'", dir, dir, c);
    test_expect_failure(args, 2, "--phi needs --phi-vocab");
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' -a 0.1 '%s'", dir, c);
    test_expect_failure(args, 2, "--phi needs --phi-vocab");
    snprintf(args, sizeof args, "eval '%s/m' '%s' -a 0.1", dir, c);
    test_expect_failure(args, 2, "--phi-vocab and --alpha go with --phi");
    snprintf(args, sizeof args, "eval --phi '%s/m/phi.npy' --phi-vocab '%s/m/vocab.txt' -a 0.1 '%s/m' '%s'", dir, dir,
             dir, c);
    test_expect_failure(args, 2, "expected a corpus");
    /* Counts are not a distribution. */
    float counts[3 * 12];
    for (int i = 0; i < 3 * 12; i++)
        counts[i] = (float)(i % 5);
    char path[2048];
    lda_error err = {0};
    snprintf(path, sizeof path, "%s/counts.npy", dir);
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_F32, 3, 12, counts, &err), 0, "%s", err.msg);
    snprintf(args, sizeof args, "eval --phi '%s' --phi-vocab '%s/m/vocab.txt' -a 0.1 '%s'", path, dir, c);
    test_expect_failure(args, 2, "counts.npy: the value at row 0, column 2 is 2, not a probability");
    free(short_vocab);
    test_rmdir(dir);
    free(dir);
    free(c);
}
