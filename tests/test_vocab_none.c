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

/* A vocabulary of ids too big for memory says which file declared it and where: W of a UCI
 * header, the largest id of an LDA-C file. Memory is bounded with ulimit -v, which an
 * AddressSanitizer build cannot run under (its shadow memory alone is terabytes of addresses). */
Test(vocab_none, a_vocabulary_of_ids_beyond_memory_names_its_file)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("ulimit -v and AddressSanitizer do not mix");
#endif
    char *dir = test_tmpdir(), cmd[8192];
    char *uci = test_write_file(dir, "docword.big.txt", "1\n4294967294\n1\n1 1 1\n");
    char *ldac = test_write_file(dir, "big.ldac", "1 4294967293:1\n");
    const char *bin = getenv("LDAGPU_BIN");
    const struct {
        const char *path, *needle;
    } cases[] = {{uci, "a vocabulary of 4294967294 word ids (W in "},
                 {ldac, "a vocabulary of 4294967294 word ids (the largest word id in "}};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "ulimit -v 2000000; '%s' train '%s' --vocab none -K 2 -n 1 --device cpu -o '%s/m' 2>&1",
                 bin, cases[i].path, dir);
        int status;
        char *out = test_shell(cmd, &status);
        cr_assert_eq(status, 1, "%s", out);
        cr_assert(strstr(out, cases[i].needle) && strstr(out, cases[i].path), "%s", out);
        free(out);
    }
    free(uci);
    free(ldac);
    test_rmdir(dir);
    free(dir);
}
