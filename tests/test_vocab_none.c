/* test_vocab_none.c — `--vocab none`: a UCI docword file without its vocabulary trains,
 * resumes and infers with words named by their ids. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* Six documents over six words (1-based ids), two themes. */
static const char DOCWORD[] = "6\n6\n12\n"
                              "1 1 5\n1 2 4\n2 1 3\n2 3 6\n3 2 5\n3 3 2\n"
                              "4 4 5\n4 5 4\n5 5 6\n5 6 3\n6 4 2\n6 6 5\n";

Test(vocab_none, uci_without_vocabulary_trains_resumes_and_infers)
{
    char *dir = test_tmpdir(), args[4096], *out = NULL;
    char *docword = test_write_file(dir, "docword.novocab.txt", DOCWORD);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 4 -q --device cpu -o '%s/m'", docword, dir);
    test_expect_failure(args, 2, "vocab.novocab.txt");

    snprintf(args, sizeof args, "train '%s' --vocab none -K 2 -n 4 -q --device cpu -o '%s/m'", docword, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/m/vocab.txt", dir);
    char *vocab = test_read_file(args);
    cr_assert_str_eq(vocab, "1\n2\n3\n4\n5\n6\n");
    free(vocab);

    snprintf(args, sizeof args, "train --resume '%s/m' -n 2 -q --device cpu", dir); /* model.conf: vocab_file = none */
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "infer '%s/m' '%s' --vocab none --device cpu -o '%s/theta.tsv'", dir, docword, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(!strstr(out, "unknown"), "every id is a word of the model: %s", out);
    free(out);
    snprintf(args, sizeof args, "topics '%s/m' --top 3", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "topic    0") && strstr(out, "topic    1"), "%s", out);
    free(out);
    free(docword);
    test_rmdir(dir);
    free(dir);
}
