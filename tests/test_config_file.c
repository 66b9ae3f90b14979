/* test_config_file.c — --config files through the real binary: text values (paths) are used
 * after the file is read, odd bytes are quoted in errors, a byte-order mark is skipped. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

/* Every text value of a config file (output, vocab, stopwords, resume) is used long after
 * the line it was read from; later lines must not change it. */
Test(config_file, text_values_outlive_the_line_they_were_read_from)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), text[4096], args[8192];
    snprintf(text, sizeof text,
             "output = %s/cfgout\nvocab = %s/tiny.vocab\n# a long comment line that reuses the reader's buffer "
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
             "topics = 3\niterations = 2\nquiet = true\n",
             dir, dir);
    char *conf = test_write_file(dir, "p.conf", text);
    snprintf(args, sizeof args, "train '%s' -c '%s' --device cpu", c, conf);
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    snprintf(args, sizeof args, "%s/cfgout/model.conf", dir);
    struct stat sb;
    cr_assert_eq(stat(args, &sb), 0, "the model is not in the folder the config file names: %s", out);
    char *model_conf = test_read_file(args);
    snprintf(args, sizeof args, "vocab_file = %s/tiny.vocab\n", dir);
    cr_assert(strstr(model_conf, args), "vocab_file recorded wrongly: %s", model_conf);
    free(model_conf);
    free(out);
    free(conf);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* A binary file given as a config file: one line, its bytes quoted, not echoed raw. */
Test(config_file, binary_bytes_are_quoted_in_the_error)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    char *conf = test_write_file(dir, "bin.conf", "\x7f" "ELF\x02\x01\x1b[2J\xff\xfe junk\n");
    snprintf(args, sizeof args, "train '%s' -c '%s'", c, conf);
    test_expect_failure(args, 2, "bin.conf:1: expected 'key = value', got '\\x7fELF\\x02\\x01\\x1b[2J\\xff\\xfe junk'");
    char *nul = NULL;
    cr_assert(asprintf(&nul, "%s/nul.conf", dir) > 0);
    FILE *f = fopen(nul, "wb");
    fwrite("topics = 3\nseed\0= 1\n", 1, 21, f);
    fclose(f);
    snprintf(args, sizeof args, "train '%s' -c '%s'", c, nul);
    test_expect_failure(args, 2, "nul.conf:2: not a text file (a NUL byte in 'seed\\x00= 1\\x0a')");
    free(nul);
    free(conf);
    free(c);
    test_rmdir(dir);
    free(dir);
}

Test(config_file, a_byte_order_mark_is_skipped)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    char *conf = test_write_file(dir, "bom.conf", "\xEF\xBB\xBFtopics = 3\niterations = 1\n");
    snprintf(args, sizeof args, "train '%s' -c '%s' -o '%s/m' -q --device cpu", c, conf, dir);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    free(conf);
    free(c);
    test_rmdir(dir);
    free(dir);
}
