/* test_infer_cli.c — `ldagpu infer` end to end on the CPU: a model trained on planted topics
 * infers the planted mixtures of new documents; unknown words and empty documents; the
 * usage errors and --help of the new commands and options. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/matrix_file.h"
#include "model/topwords.h"

enum { PLANTED = 8, WORDS = 25, LEARNED = 12, NEW_DOCS = 200 };

/* Writes c as LDA-C (NAME.ldac + NAME.vocab) in dir, with `extra` more vocabulary words
 * ("zzzN") and, when extra > 0, every 10th document given one token of an extra word and
 * one more document made of extra words only. Returns the corpus path. */
static char *write_ldac(const char *dir, const char *name, const corpus *c, int extra)
{
    char *path = NULL, *vpath = NULL;
    cr_assert(asprintf(&path, "%s/%s.ldac", dir, name) > 0 && asprintf(&vpath, "%s/%s.vocab", dir, name) > 0);
    FILE *f = fopen(path, "w"), *v = fopen(vpath, "w");
    cr_assert(f && v);
    uint32_t V = c->vocab_size, *count = calloc(V + 1, sizeof *count);
    for (size_t d = 0; d < c->num_docs; d++) {
        memset(count, 0, (V + 1) * sizeof *count);
        for (size_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; t++)
            count[c->words[t]]++;
        if (extra && d % 10 == 0)
            count[V]++;
        uint32_t distinct = 0;
        for (uint32_t w = 0; w <= V; w++)
            distinct += count[w] > 0;
        fprintf(f, "%u", distinct);
        for (uint32_t w = 0; w <= V; w++)
            if (count[w])
                fprintf(f, " %u:%u", w, count[w]);
        fputc('\n', f);
    }
    if (extra)
        fprintf(f, "1 %u:3\n", V); /* a document of unknown words only */
    for (uint32_t w = 0; w < V; w++)
        fprintf(v, "%s\n", c->vocab[w]);
    for (int i = 0; i < extra; i++)
        fprintf(v, "zzz%d\n", i);
    fclose(f);
    fclose(v);
    free(count);
    free(vpath);
    return path;
}

/* The planted topic all of learned topic k's top 10 words come from, or -1. */
static int planted_of(const float *phi_kv, uint32_t V, uint32_t k)
{
    uint32_t top[10];
    lda_top_indices(phi_kv + (size_t)k * V, V, 10, top);
    for (int i = 1; i < 10; i++)
        if (top[i] / WORDS != top[0] / WORDS)
            return -1;
    return (int)(top[0] / WORDS);
}

Test(infer_cli, recovers_the_planted_mixtures_of_new_documents)
{
    char *dir = test_tmpdir(), args[8192], *out = NULL;
    corpus *train = test_planted_corpus(PLANTED, WORDS, 1000, 40, 90, 12, NULL);
    double *mix = malloc(NEW_DOCS * PLANTED * sizeof *mix);
    corpus *fresh = test_planted_corpus(PLANTED, WORDS, NEW_DOCS, 40, 90, 99, mix);
    char *train_path = write_ldac(dir, "train", train, 0), *new_path = write_ldac(dir, "new", fresh, 1);
    snprintf(args, sizeof args,
             "train '%s' -K %d -n 60 -a 0.1 -b 0.05 -s 2024 -e 0 -j 2 --device cpu -o '%s/m' -q", train_path,
             LEARNED, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "infer '%s/m' '%s' -o '%s/theta.tsv' -n 30 -j 2 --device cpu", dir, new_path, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    /* 20 documents have one unknown token; the last document has 3 and nothing else. */
    cr_assert(strstr(out, "23 tokens of words the model does not know skipped"), "%s", out);
    cr_assert(strstr(out, "1 document without a known word gets the uniform row"), "%s", out);
    free(out);

    /* Which planted topic each learned topic is (phi.npy: K × V floats). */
    const uint32_t V = PLANTED * WORDS;
    float *phi = NULL;
    uint64_t phi_rows, phi_cols;
    lda_error err = {0};
    snprintf(args, sizeof args, "%s/m/phi.npy", dir);
    cr_assert_eq(lda_matrix_read(args, LDA_MATRIX_F32, &phi_rows, &phi_cols, (void **)&phi, &err), 0, "%s", err.msg);
    cr_assert(phi_rows == LEARNED && phi_cols == V);
    int map[LEARNED], covered[PLANTED] = {0};
    for (uint32_t k = 0; k < LEARNED; k++) {
        map[k] = planted_of(phi, V, k);
        if (map[k] >= 0)
            covered[map[k]] = 1;
    }
    for (int t = 0; t < PLANTED; t++)
        cr_assert(covered[t], "planted topic %d not learned", t);

    /* θ of the new documents, summed per planted topic, against the planted mixtures. */
    snprintf(args, sizeof args, "%s/theta.tsv", dir);
    char *tsv = test_read_file(args), *line = tsv;
    cr_assert(tsv);
    cr_assert(strncmp(tsv, "document\ttopic0\ttopic1\t", 23) == 0, "header: %.80s", tsv);
    double l1_sum = 0;
    size_t rows = 0, major_right = 0;
    for (line = strchr(line, '\n') + 1; *line; line = strchr(line, '\n') + 1, rows++) {
        char *p = line, *end;
        unsigned long doc = strtoul(p, &end, 10);
        cr_assert_eq(doc, rows, "rows in input order");
        double theta[LEARNED], agg[PLANTED] = {0}, sum = 0, unmatched = 0;
        for (int k = 0; k < LEARNED; k++) {
            theta[k] = strtod(end, &end);
            sum += theta[k];
            if (map[k] >= 0)
                agg[map[k]] += theta[k];
            else
                unmatched += theta[k];
        }
        cr_assert_float_eq(sum, 1.0, 1e-4, "row %zu sums to %f", rows, sum);
        if (doc == NEW_DOCS) { /* the document of unknown words: uniform */
            for (int k = 0; k < LEARNED; k++)
                cr_assert_float_eq(theta[k], 1.0 / LEARNED, 1e-6);
            continue;
        }
        double l1 = 0;
        int best = 0;
        for (int t = 0; t < PLANTED; t++) {
            l1 += fabs(agg[t] - mix[doc * PLANTED + t]);
            if (agg[t] > agg[best])
                best = t;
        }
        l1 += unmatched;
        l1_sum += l1;
        major_right += (size_t)best == doc % PLANTED;
    }
    cr_assert_eq(rows, NEW_DOCS + 1);
    /* Sampling noise gives a mean L1 near 0.1 (θ's mass on unmatched topics counts as error);
     * θ ignoring the words would give about 1.5. */
    cr_assert_lt(l1_sum / NEW_DOCS, 0.25, "mean L1 distance to the planted mixtures %f", l1_sum / NEW_DOCS);
    cr_assert_geq(major_right, NEW_DOCS * 95 / 100, "dominant topic right in %zu of %d", major_right, NEW_DOCS);

    /* Reproducible: the same seed gives the same file, to stdout with -o -. */
    snprintf(args, sizeof args, "infer '%s/m' '%s' -n 30 -j 1 --device cpu -o - 2>/dev/null | cat", dir, new_path);
    cr_assert_eq(test_run_ldagpu(args, &out), 0);
    cr_assert_str_eq(out, tsv, "infer to stdout with 1 thread differs from the file written with 2");
    free(out);
    free(tsv);
    free(phi);
    free(mix);
    free(train_path);
    free(new_path);
    corpus_free(train);
    corpus_free(fresh);
    test_rmdir(dir);
    free(dir);
}

Test(infer_cli, bad_values_and_usage_are_clear_errors)
{
    char *dir = test_tmpdir(), args[8192];
    char *c = NULL;
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    snprintf(args, sizeof args, "train '%s' --holdout 1", c);
    test_expect_failure(args, 2, "--holdout: expected a number in [0, 1), got '1'");
    snprintf(args, sizeof args, "train '%s' --holdout -0.1", c);
    test_expect_failure(args, 2, "--holdout: expected a number in [0, 1), got '-0.1'");
    snprintf(args, sizeof args, "train '%s' --holdout-iterations 0", c);
    test_expect_failure(args, 2, "--holdout-iterations: expected an integer from 1");
    snprintf(args, sizeof args, "train '%s' --checkpoint-every often", c);
    test_expect_failure(args, 2, "--checkpoint-every: expected an integer");
    test_expect_failure("train --resume", 2, "needs a value");

    snprintf(args, sizeof args, "train '%s' -K 4 -n 1 -e 0 --device cpu -o '%s/m' -q", c, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    test_expect_failure("infer", 2, "expected a model folder and a corpus");
    snprintf(args, sizeof args, "infer '%s/m'", dir);
    test_expect_failure(args, 2, "expected a model folder and a corpus");
    snprintf(args, sizeof args, "infer '%s/m' '%s' -n 0", dir, c);
    test_expect_failure(args, 2, "-n/--iterations: expected an integer from 1");
    snprintf(args, sizeof args, "infer '%s/nope' '%s'", dir, c);
    test_expect_failure(args, 2, "nope/model.conf");
    snprintf(args, sizeof args, "infer '%s/m' '%s/missing.txt'", dir, dir);
    test_expect_failure(args, 2, "missing.txt");
    snprintf(args, sizeof args, "infer '%s/m' '%s' -o '%s/no/such/dir/theta.tsv' -n 1", dir, c, dir);
    test_expect_failure(args, 1, "no/such/dir/theta.tsv");

    char *list = test_write_file(dir, "docs.txt", "3\n# a comment\n\n2000\n");
    snprintf(args, sizeof args, "eval '%s/m' '%s' --docs '%s'", dir, c, list);
    test_expect_failure(args, 2, "docs.txt:4: expected a document index from 0 to 1999");
    snprintf(args, sizeof args, "eval '%s/m' '%s' --docs '%s/none.txt'", dir, c, dir);
    test_expect_failure(args, 2, "none.txt");
    snprintf(args, sizeof args, "eval '%s/m' '%s' --seed -3", dir, c);
    test_expect_failure(args, 2, "-s/--seed: expected an integer");
    test_expect_failure("eval", 2, "expected a model folder and a corpus");
    test_rmdir(dir);
    free(dir);
    free(c);
    free(list);
}

Test(infer_cli, help_lists_every_new_option_with_its_default)
{
    static const struct {
        const char *command, *expect[8];
    } cases[] = {
        {"train --help", {"--holdout F", "(default: 0)", "--holdout-iterations N", "(default: 20)",
                          "--checkpoint-every N", "--resume MODEL", NULL}},
        {"infer --help", {"-o, --output FILE", "(default: -)", "-n, --iterations N", "(default: 50)",
                          "-s, --seed S", "(default: 1)", "--device auto|cpu|cuda", NULL}},
        {"eval --help", {"--docs FILE", "(default: every document)", "-n, --iterations N",
                         "(default: the model's holdout_iterations (20))", "(default: the model's seed)", NULL}},
        {"topics --help", {"--coherence", "--corpus PATH", "--sort id|size|coherence", "(default: id)",
                           "--format text|tsv|json", "(default: text)", "-t, --top N", NULL}},
        {"--help", {"infer", "eval", "topics", "train", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        cr_assert_eq(test_run_ldagpu(cases[i].command, &out), 0);
        for (int j = 0; cases[i].expect[j]; j++)
            cr_assert(strstr(out, cases[i].expect[j]), "'%s' missing from ldagpu %s:\n%s", cases[i].expect[j],
                      cases[i].command, out);
        free(out);
    }
}
