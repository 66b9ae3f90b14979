/* test_model_checks.c — the commands that read a model (topics, infer, eval): a model of
 * NaN is refused, a folder holding only a checkpoint says how to finish it, eval's counts
 * follow --docs, and a training corpus read again must still be the model's. (Damaged model
 * files and a corpus of other sizes are rows of test_malformed.c.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static char *train_tiny(const char *dir, const char *extra)
{
    char *c = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 2 -n 3 -q --device cpu -o '%s/m' %s", c, dir, extra);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    return c;
}

/* Overwrites value i (0-based) of a float32 .npy file: after its magic, version, the
 * little-endian 16-bit length of its header, and the header. */
static void poke_float(const char *path, long i, float v)
{
    FILE *f = fopen(path, "r+b");
    cr_assert(f, "no %s", path);
    unsigned char preamble[10];
    cr_assert_eq(fread(preamble, sizeof preamble, 1, f), 1);
    cr_assert_eq(memcmp(preamble + 1, "NUMPY", 5), 0, "%s is not a .npy file", path);
    const long data = 10 + (preamble[8] | preamble[9] << 8);
    cr_assert_eq(fseek(f, data + 4 * i, SEEK_SET), 0);
    cr_assert_eq(fwrite(&v, sizeof v, 1, f), 1);
    fclose(f);
}

Test(model_checks, a_model_that_is_not_numbers_is_refused)
{
    char *dir = test_tmpdir(), *c = train_tiny(dir, ""), phi[1100], args[4096];
    snprintf(phi, sizeof phi, "%s/m/phi.npy", dir);
    poke_float(phi, 13, NAN); /* row 1, column 1 of 2 x 12 */
    const char *commands[] = {"topics '%s/m'", "infer '%s/m' '%s' -n 2 --device cpu",
                              "eval '%s/m' '%s' -n 2 --device cpu"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, commands[i], dir, c);
        test_expect_failure(args, 2, "phi.npy: the value at row 1, column 1 is not a finite number (nan)");
    }
    poke_float(phi, 13, INFINITY);
    snprintf(args, sizeof args, "topics '%s/m'", dir);
    test_expect_failure(args, 2, "phi.npy: the value at row 1, column 1 is not a finite number (inf)");
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* A run killed before it wrote its model leaves only MODEL/checkpoint. */
Test(model_checks, a_folder_with_only_a_checkpoint_says_how_to_finish_it)
{
    char *dir = test_tmpdir(), *c = train_tiny(dir, "--checkpoint-every 1"), args[4096];
    static const char *model_files[] = {"model.conf", "vocab.txt", "phi.npy", "theta.npy", "topic_tokens.npy",
                                        "z.npy", "topics.txt", "log.csv"};
    for (size_t i = 0; i < sizeof model_files / sizeof model_files[0]; i++) {
        snprintf(args, sizeof args, "%s/m/%s", dir, model_files[i]);
        cr_assert_eq(remove(args), 0, "%s", args);
    }
    snprintf(args, sizeof args, "topics '%s/m'", dir);
    test_expect_failure(args, 2, "holds no finished model, only a checkpoint at iteration 2");
    snprintf(args, sizeof args, "eval '%s/m' '%s'", dir, c);
    test_expect_failure(args, 2, "finish it with 'ldagpu train --resume");
    /* ... and that is what finishes it. */
    snprintf(args, sizeof args, "train --resume '%s/m' -n 0 -q --device cpu", dir);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "topics '%s/m'", dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    free(c);
    test_rmdir(dir);
    free(dir);
}

static long eval_figure(const char *args, const char *key)
{
    char *out = NULL, *at;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert((at = strstr(out, key)), "no %s in %s", key, out);
    long v = strtol(at + strlen(key), NULL, 10);
    free(out);
    return v;
}

/* Documents 0..63 of the tiny corpus, then one with 5 tokens of words the model lacks and one
 * with 2 such tokens among known ones. */
Test(model_checks, eval_counts_the_unknown_tokens_of_the_documents_it_scores)
{
    char *dir = test_tmpdir(), *c = train_tiny(dir, ""), args[4096];
    char *text = test_read_file(c), *more = NULL;
    cr_assert(asprintf(&more, "%s1 12:5\n3 0:2 13:2 1:1\n", text) > 0);
    char *c2 = test_write_file(dir, "more.ldac", more);
    char *v = test_read_file(strcat(strcpy(args, dir), "/tiny.vocab")), *v2 = NULL;
    cr_assert(asprintf(&v2, "%szebra\nyak\n", v) > 0);
    free(test_write_file(dir, "more.vocab", v2));
    char *docs = test_write_file(dir, "docs.txt", "0\n1\n"), *last = test_write_file(dir, "last.txt", "65\n");
    for (int text_form = 0; text_form < 2; text_form++) {
        const char *path = c2;
        if (text_form) /* raw text too: its unknown words are counted as they are read */
            path = test_write_file(dir, "more.txt", "apple banana zebra\ncherry grape\nmango yak yak lemon\n");
        snprintf(args, sizeof args, "eval '%s/m' '%s' -n 2 --device cpu", dir, path);
        cr_assert_eq(eval_figure(args, "unknown_tokens "), text_form ? 3 : 7);
        snprintf(args, sizeof args, "eval '%s/m' '%s' -n 2 --device cpu --docs '%s'", dir, path, docs);
        cr_assert_eq(eval_figure(args, "unknown_tokens "), text_form ? 1 : 0, "--docs 0, 1");
        if (!text_form) {
            snprintf(args, sizeof args, "eval '%s/m' '%s' -n 2 --device cpu --docs '%s'", dir, path, last);
            cr_assert_eq(eval_figure(args, "unknown_tokens "), 2, "--docs 65");
        } else {
            free((char *)path);
        }
    }
    free(docs);
    free(last);
    free(v);
    free(v2);
    free(more);
    free(text);
    free(c2);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* The same documents and tokens, other words (ids 0 and 1 swapped): only the corpus checksum
 * model.conf records tells it from the training corpus. */
Test(model_checks, a_corpus_of_the_same_size_with_other_words_is_refused)
{
    char *dir = test_tmpdir(), *c = train_tiny(dir, ""), args[4096], cmd[4200];
    snprintf(cmd, sizeof cmd, "sed -E -i 's/ 0:/ X:/g; s/ 1:/ 0:/g; s/ X:/ 1:/g' '%s'", c);
    int status;
    free(test_shell(cmd, &status));
    cr_assert_eq(status, 0);
    const char *commands[] = {"report '%s/m' -o '%s/r.html'", "export '%s/m' --pyldavis '%s/p.json'",
                              "export '%s/m' --counts '%s/counts'", "topics '%s/m' --coherence"};
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, commands[i], dir, dir);
        test_expect_failure(args, 2, "tiny.ldac: not the corpus");
        test_expect_failure(args, 2, "was trained on (of the same size, but other words: its checksum differs from "
                                     "model.conf's corpus_checksum)");
    }
    free(c);
    test_rmdir(dir);
    free(dir);
}
