/* test_model_stopwords.c — a model folder reads new text the way training read its corpus
 * without the files it was given: the stop words are kept in the folder (stopwords.txt), and the
 * token pattern, pretokenized input and lowercasing in model.conf. infer, eval, topics
 * --coherence and --resume give the same results after the stop-word files are deleted; older
 * folders, which name the user's file, still read it. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

TestSuite(model_stopwords);

/* Runs ldagpu with the formatted arguments, asserts success; its output (malloc'ed). */
static char *run_ok(const char *fmt, ...)
{
    char args[8192], *out = NULL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    return out;
}

/* The results of reading new text with model m: infer's θ (into DIR/theta-TAG.tsv), eval's
 * figures and topics --coherence, as one string (malloc'ed). */
static char *read_with(const char *dir, const char *m, const char *text_path, const char *tag)
{
    free(run_ok("infer '%s' '%s' -o '%s/theta-%s.tsv' -n 10 -j 2 --device cpu", m, text_path, dir, tag));
    char *eval = run_ok("eval '%s' '%s' -n 5 -j 2 --device cpu", m, text_path);
    char *coherence = run_ok("topics '%s' --coherence --top 5", m);
    char path[1024], *all = NULL;
    snprintf(path, sizeof path, "%s/theta-%s.tsv", dir, tag);
    char *theta = test_read_file(path);
    cr_assert(theta && asprintf(&all, "%s\n%s\n%s", theta, eval, coherence) > 0);
    free(theta);
    free(eval);
    free(coherence);
    return all;
}

static void expect_file_has(const char *path, const char *needle)
{
    char *text = test_read_file(path);
    cr_assert(text && strstr(text, needle), "%s lacks \"%s\": %s", path, needle, text);
    free(text);
}

typedef struct {
    char s[1024];
} path_buf;

/* "DIR/NAME". */
static path_buf in(const char *dir, const char *name)
{
    path_buf p;
    cr_assert(strlen(dir) + strlen(name) + 2 <= sizeof p.s);
    strcat(strcat(strcpy(p.s, dir), "/"), name);
    return p;
}

Test(model_stopwords, a_model_reads_text_after_its_stopword_file_is_gone)
{
    char *dir = test_tmpdir(), *stop = test_write_file(dir, "stop.txt", "the of and in to was is for on as\n"
                                                                        "film album school city\n");
    const path_buf wiki = in(test_root(), "data/wiki2k.txt.gz"), m = in(dir, "m");
    free(run_ok("train '%s' -K 6 -n 4 -j 2 -q --device cpu --holdout 0.1 --stopwords '%s' -o '%s'", wiki.s, stop,
                m.s));
    const path_buf conf = in(m.s, "model.conf"), list = in(m.s, "stopwords.txt");
    expect_file_has(conf.s, "stopwords = stopwords.txt\n");
    expect_file_has(list.s, "\nalbum\n");
    const path_buf a = in(dir, "resumed-before"), b = in(dir, "resumed-after"), b_list = in(b.s, "stopwords.txt");
    free(run_ok("train --resume '%s' -n 2 -j 2 -q --device cpu -o '%s'", m.s, a.s));
    char *before = read_with(dir, m.s, wiki.s, "before");

    cr_assert_eq(unlink(stop), 0);
    char *after = read_with(dir, m.s, wiki.s, "after");
    cr_assert_str_eq(after, before, "the same θ, figures and coherence without the stop-word file");
    free(run_ok("train --resume '%s' -n 2 -j 2 -q --device cpu -o '%s'", m.s, b.s));
    test_assert_same_models(a.s, b.s);
    cr_assert(test_same_bytes(b_list.s, list.s), "a resumed model keeps the list");
    free(before);
    free(after);
    free(stop);
    test_rmdir(dir);
    free(dir);
}

/* Rewrites model.conf's line starting with `key = ` as `replacement` ("" removes it). */
static void rewrite_conf(const char *conf, const char *key, const char *replacement)
{
    char *text = test_read_file(conf);
    cr_assert_not_null(text);
    FILE *f = fopen(conf, "w");
    cr_assert_not_null(f);
    const size_t n = strlen(key);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, key, n) == 0 && strncmp(line + n, " = ", 3) == 0)
            fprintf(f, "%s%s", replacement, *replacement ? "\n" : "");
        else
            fprintf(f, "%s\n", line);
    fclose(f);
    free(text);
}

Test(model_stopwords, an_older_model_still_reads_the_file_it_names)
{
    /* A folder from before: model.conf names the user's file, there is no stopwords.txt and no
     * key for the options added since. It reads text as the new folder does while the file is
     * there, and says which file is missing once it is not. */
    char *dir = test_tmpdir(), *stop = test_write_file(dir, "stop.txt", "the of and in film album\n");
    const path_buf wiki = in(test_root(), "data/wiki2k.txt.gz"), m = in(dir, "m");
    free(run_ok("train '%s' -K 4 -n 2 -j 2 -q --device cpu --stopwords '%s' -o '%s'", wiki.s, stop, m.s));
    char *fresh = read_with(dir, m.s, wiki.s, "new");
    const path_buf conf = in(m.s, "model.conf"), list = in(m.s, "stopwords.txt");
    char line[1200], args[4096];
    snprintf(line, sizeof line, "stopwords = %s", stop);
    rewrite_conf(conf.s, "stopwords", line);
    rewrite_conf(conf.s, "pretokenized", "");
    rewrite_conf(conf.s, "lowercase", "");
    cr_assert_eq(unlink(list.s), 0);
    const path_buf manifest = in(m.s, "manifest.txt"); /* nor a manifest: older folders have none */
    cr_assert_eq(unlink(manifest.s), 0);
    char *old = read_with(dir, m.s, wiki.s, "old");
    cr_assert_str_eq(old, fresh);
    cr_assert_eq(unlink(stop), 0);
    snprintf(args, sizeof args, "infer '%s' '%s' -o '%s/t.tsv' --device cpu", m.s, wiki.s, dir);
    test_expect_failure(args, 2, "stop.txt");
    free(fresh);
    free(old);
    free(stop);
    test_rmdir(dir);
    free(dir);
}

Test(model_stopwords, a_model_keeps_every_reader_option)
{
    /* Words the built-in tokenizer would split or lowercase: a pattern keeps them, in their case. */
    char *dir = test_tmpdir(), *extra = test_write_file(dir, "extra.txt", "Noise\n");
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    for (int d = 0; d < 60; d++)
        fprintf(f, "%s %s C++ noise the %s\n", d % 2 ? "New_York city_hall" : "covid19 e-mail",
                d % 3 ? "state-of-the-art" : "GPU", d % 5 ? "Berlin" : "Paris");
    fclose(f);
    char *source = test_write_file(dir, "c.txt", text);
    const path_buf m = in(dir, "m"), conf = in(m.s, "model.conf"), vocab = in(m.s, "vocab.txt");
    free(text);
    free(run_ok("train '%s' -K 3 -n 5 -j 2 -q --device cpu --token-pattern '[\\p{L}\\p{N}_+-]+' --no-lowercase "
                "--extra-stopwords '%s' --min-df 1 --max-df 1 -o '%s'", source, extra, m.s));
    expect_file_has(conf.s, "token_pattern = [\\p{L}\\p{N}_+-]+\n");
    expect_file_has(conf.s, "lowercase = no\n");
    expect_file_has(conf.s, "pretokenized = no\n");
    char *recorded = test_read_file(conf.s);
    cr_assert(!strstr(recorded, "extra_stopwords"), "the extra words are in stopwords.txt: %s", recorded);
    free(recorded);
    expect_file_has(vocab.s, "C++\n");
    expect_file_has(vocab.s, "New_York\n");
    char *before = read_with(dir, m.s, source, "before");
    cr_assert_eq(unlink(extra), 0);
    char *after = read_with(dir, m.s, source, "after");
    cr_assert_str_eq(after, before);
    cr_assert(strstr(after, "unknown_tokens 0\n"), "every word of the corpus read as in training: %s", after);

    /* --resume: the same words from another file are the same setting; another pattern is not */
    char *same = test_write_file(dir, "same.txt", "noise\n");
    free(run_ok("train --resume '%s' -n 1 -j 2 -q --device cpu --extra-stopwords '%s'", m.s, same));
    char args[4096];
    snprintf(args, sizeof args, "train --resume '%s' -n 1 --device cpu --token-pattern '\\w+'", m.s);
    test_expect_failure(args, 2, "--token-pattern differs from the model's setting");
    snprintf(args, sizeof args, "train --resume '%s' -n 1 --device cpu --lowercase", m.s);
    test_expect_failure(args, 2, "--lowercase differs from the model's setting");
    free(run_ok("train --resume '%s' -n 1 -j 2 -q --device cpu --token-regex '[\\p{L}\\p{N}_+-]+' --lowercase=no", m.s));
    free(before);
    free(after);
    free(same);
    free(source);
    free(extra);
    test_rmdir(dir);
    free(dir);
}
