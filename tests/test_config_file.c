/* test_config_file.c — "key = value" files (util/config_file.h): --config files through the
 * real binary (text values (paths) are used after the file is read, odd bytes are quoted in
 * errors, a byte-order mark is skipped), and values that cannot be cut or injected: a '#' that
 * does not follow a blank is part of the value, and what would not read back as itself is
 * written quoted, in model.conf as in any file written with lda_config_write. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "core/params.h"
#include "core/parse.h"
#include "util/config_file.h"

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

typedef struct {
    char keys[16][32];
    char *values[16];
    size_t lines[16];
    int count;
} collected;

static int collect(void *vctx, const char *key, const char *value, const char *path, size_t line, lda_error *err)
{
    (void)path;
    (void)err;
    collected *c = vctx;
    cr_assert_lt(c->count, 16);
    snprintf(c->keys[c->count], sizeof c->keys[0], "%s", key);
    c->values[c->count] = strdup(value);
    c->lines[c->count++] = line;
    return 0;
}

static void collected_free(collected *c)
{
    for (int i = 0; i < c->count; i++)
        free(c->values[i]);
}

/* Every value reads back as itself, whatever its bytes; a plain one is written as it is. */
Test(config_file, values_read_back_as_written)
{
    static const char *const values[] = {"/data/plain.txt", "/data/a#b.txt", "/data/my #1.txt", "c.txt\nvocabulary = 1",
                                         "\"quoted\"", " padded ", "tab\there", "back\\slash", "cr\rand \x01", "",
                                         "say \"hi\" # not a comment"};
    enum { N = sizeof values / sizeof values[0] };
    char *dir = test_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s/v.conf", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "# a comment line\n");
    for (int i = 0; i < N; i++)
        lda_config_write(f, "k", values[i]);
    fclose(f);
    char *text = test_read_file(path);
    cr_assert(strstr(text, "\nk = /data/plain.txt\n"), "a plain value is written as it is: %s", text);
    cr_assert_eq(strchr(text, '\r'), NULL, "%s", text);
    free(text);
    collected c = {0};
    lda_error err = {0};
    cr_assert_eq(lda_config_read(path, collect, &c, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.count, N);
    for (int i = 0; i < N; i++) {
        cr_assert_str_eq(c.keys[i], "k");
        cr_assert_str_eq(c.values[i], values[i], "value %d", i);
        cr_assert_eq(c.lines[i], (size_t)i + 2, "one line a value");
    }
    collected_free(&c);
    test_rmdir(dir);
    free(dir);
}

/* Files written by hand or by an older ldagpu: a '#' starts a comment at the start of a line or
 * after a blank; elsewhere it is part of the value; a quoted value may be followed by one. */
Test(config_file, a_hash_is_a_comment_only_after_a_blank)
{
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "h.conf", "# comment = no\noutput = a#b\ncorpus = /x/c.txt # where it was\n"
                                                "k =   \"a # b\"  # after the quotes\nempty = # nothing\n");
    collected c = {0};
    lda_error err = {0};
    cr_assert_eq(lda_config_read(path, collect, &c, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.count, 4);
    cr_assert_str_eq(c.values[0], "a#b");
    cr_assert_str_eq(c.values[1], "/x/c.txt");
    cr_assert_str_eq(c.values[2], "a # b");
    cr_assert_str_eq(c.values[3], "");
    collected_free(&c);
    free(path);
    test_rmdir(dir);
    free(dir);
}

/* `output = a#b` in a --config file trains into a#b, not a; a corpus whose name holds a '#' and a
 * line break is recorded so that the commands that read it again (report, --resume) find it. */
Test(config_file, paths_with_hashes_and_line_breaks_survive_model_conf)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[8192], *out = NULL;
    char *conf_text = NULL, *odd = NULL, *odd_vocab = NULL;
    cr_assert(asprintf(&conf_text, "output = %s/a#b\ntopics = 2\niterations = 1\nquiet = true\n", dir) > 0);
    char *conf = test_write_file(dir, "p.conf", conf_text);
    snprintf(args, sizeof args, "train '%s' -c '%s' --device cpu", tiny, conf);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/a#b/model.conf", dir);
    struct stat sb;
    cr_assert_eq(stat(args, &sb), 0, "no model in a#b");

    cr_assert(asprintf(&odd, "%s/c #1\nvocabulary = 1.ldac", dir) > 0);
    cr_assert(asprintf(&odd_vocab, "%s/c #1\nvocabulary = 1.vocab", dir) > 0);
    snprintf(args, sizeof args, "cp '%s' '%s' && cp '%s/tiny.vocab' '%s'", tiny, odd, dir, odd_vocab);
    int status;
    free(test_shell(args, &status));
    cr_assert_eq(status, 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 -q --device cpu -o '%s/m'", odd, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/m/model.conf", dir);
    char *model_conf = test_read_file(args);
    cr_assert(strstr(model_conf, "vocabulary = 12\n") && !strstr(model_conf, "vocabulary = 1\n"), "%s", model_conf);
    free(model_conf);
    const char *readers[] = {"topics '%s/m' --coherence", "report '%s/m' -o '%s/r.html'",
                             "train --resume '%s/m' -n 1 -q --device cpu"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, readers[i], dir, dir);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s: %s", args, out);
        cr_assert(!strstr(out, "warning"), "%s: %s", args, out);
        free(out);
    }
    free(odd);
    free(odd_vocab);
    free(conf);
    free(conf_text);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* A value read back from a file may hold any byte once its escapes are undone (model.conf's
 * "\n"); the refusal quoting it is still one line (found by fuzz_model_conf). */
Test(config_file, a_refused_value_is_quoted_on_one_line)
{
    const char *bad = "1\n2\t\x01\xff";
    lda_error err = {0};
    uint64_t u;
    double d;
    int i;
    uint32_t *list = NULL;
    size_t n;
    cr_assert(lda_parse_u64("tokens", bad, 0, 10, &u, &err));
    cr_assert(!strchr(err.msg, '\n') && strstr(err.msg, "\\x0a"), "%s", err.msg);
    cr_assert(lda_parse_double("beta", bad, 0, 1, 1, &d, &err));
    cr_assert(!strchr(err.msg, '\n'), "%s", err.msg);
    cr_assert(lda_parse_choice("model", bad, lda_model_choices, &i, &err));
    cr_assert(!strchr(err.msg, '\n'), "%s", err.msg);
    cr_assert(lda_parse_flag_value("lowercase", bad, &i, &err));
    cr_assert(!strchr(err.msg, '\n'), "%s", err.msg);
    cr_assert(lda_parse_u32_list("topics", "9:2\n", 1, 100, &list, &n, &err));
    cr_assert(!strchr(err.msg, '\n'), "%s", err.msg);
}
