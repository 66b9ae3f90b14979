/* test_cli.c — the real binary: help, bad flags and values, config presets, determinism
 * across thread counts, and the topics command. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static char *corpus_path(void)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    return p;
}

Test(cli, help_lists_every_option_with_defaults)
{
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu("train --help", &out), 0);
    static const char *expect[] = {"-K, --topics N", "(default: 100)", "--alpha", "(default: 50/K; 20/K where", "--beta",
                                   "(default: 0.01)", "-s, --seed", "-o, --output", "--update draw|mean",
                                   "--precision float|double", "--device auto|cpu|cuda", "--config FILE"};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        cr_assert(strstr(out, expect[i]), "'%s' missing from train --help", expect[i]);
    free(out);
    cr_assert_eq(test_run_ldagpu("--help", &out), 0);
    cr_assert(strstr(out, "train") && strstr(out, "topics"));
    free(out);
}

Test(cli, bad_values_are_clear_errors)
{
    char *c = corpus_path(), args[1024];
    snprintf(args, sizeof args, "train '%s' -K 0", c);
    test_expect_failure(args, 2, "-K/--topics: expected an integer from 1");
    snprintf(args, sizeof args, "train '%s' --alpha -1", c);
    test_expect_failure(args, 2, "--alpha: expected a number > 0, got '-1'");
    snprintf(args, sizeof args, "train '%s' -b abc", c);
    test_expect_failure(args, 2, "--beta");
    snprintf(args, sizeof args, "train '%s' --update sideways", c);
    test_expect_failure(args, 2, "expected one of draw|mean");
    snprintf(args, sizeof args, "train '%s' --no-such-flag", c);
    test_expect_failure(args, 2, "unknown option '--no-such-flag'");
    snprintf(args, sizeof args, "train '%s' -K", c);
    test_expect_failure(args, 2, "needs a value");
    test_expect_failure("train /nonexistent/corpus.txt -K 4", 2, "/nonexistent/corpus.txt");
    test_expect_failure("train", 2, "no corpus given");
    test_expect_failure("frobnicate", 2, "unknown command 'frobnicate'");
    free(c);
}

static unsigned model_topics(const char *dir)
{
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/model.conf", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    unsigned k = 0;
    while (fgets(line, sizeof line, f))
        sscanf(line, "topics = %u", &k);
    fclose(f);
    return k;
}

Test(cli, config_presets_and_flags_override_them)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[2048];
    char *conf = test_write_file(dir, "p.conf", "# a preset\ntopics = 7\niterations = 2\neval-every = 0\n");
    snprintf(args, sizeof args, "train '%s' -c '%s' -o '%s/m1' -q", c, conf, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    snprintf(args, sizeof args, "%s/m1", dir);
    cr_assert_eq(model_topics(args), 7);
    snprintf(args, sizeof args, "train '%s' -K 5 --config '%s' -o '%s/m2' -q", c, conf, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    snprintf(args, sizeof args, "%s/m2", dir);
    cr_assert_eq(model_topics(args), 5, "the flag must override the preset");

    char *bad = test_write_file(dir, "bad.conf", "topics = 7\n\ncolour = blue\n");
    snprintf(args, sizeof args, "train '%s' -c '%s'", c, bad);
    test_expect_failure(args, 2, "bad.conf:3: unknown setting 'colour'");
    char *bad2 = test_write_file(dir, "bad2.conf", "topics = many\n");
    snprintf(args, sizeof args, "train '%s' -c '%s'", c, bad2);
    test_expect_failure(args, 2, "bad2.conf:1: topics: expected an integer");
    test_rmdir(dir);
    free(dir);
    free(c);
    free(conf);
    free(bad);
    free(bad2);
}

Test(cli, same_seed_gives_identical_model_with_one_and_two_threads, .timeout = 120)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[2048];
    for (int threads = 1; threads <= 2; threads++) {
        snprintf(args, sizeof args, "train '%s' -K 12 -n 4 -s 99 -j %d --device cpu -o '%s/j%d' -q", c, threads,
                 dir, threads);
        cr_assert_eq(test_run_ldagpu(args, NULL), 0, "%s", args);
    }
    static const char *files[] = {"phi.npy", "theta.npy", "z.npy", "topic_tokens.npy", "topics.txt", "vocab.txt",
                                  "model.conf"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/j1/%s", dir, files[i]);
        snprintf(b, sizeof b, "%s/j2/%s", dir, files[i]);
        cr_assert(test_same_bytes(a, b), "%s differs between 1 and 2 threads", files[i]);
    }
    /* and a different seed gives a different model */
    snprintf(args, sizeof args, "train '%s' -K 12 -n 4 -s 100 -j 2 --device cpu -o '%s/s100' -q", c, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/j1/phi.npy", dir);
    snprintf(b, sizeof b, "%s/s100/phi.npy", dir);
    cr_assert(!test_same_bytes(a, b), "the seed changes nothing");

    snprintf(args, sizeof args, "topics '%s/j1' --top 5", dir);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0);
    int lines = 0;
    for (char *p = out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 12, "one line per topic: %s", out);
    cr_assert(strncmp(out, "topic    0", 10) == 0, "%s", out);
    free(out);
    test_expect_failure("topics /nonexistent-model", 2, "/nonexistent-model/model.conf");
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(cli, no_temporary_files_are_left_behind)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[2048];
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --device cpu -o '%s/m' -q", c, dir);
    cr_assert_eq(test_run_ldagpu(args, NULL), 0);
    snprintf(args, sizeof args, "ls '%s/m' | grep -c tmp", dir);
    FILE *p = popen(args, "r");
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    cr_assert_eq(n, 0, "temporary files left in the model folder");
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(cli, bench_writes_one_row_per_point, .timeout = 120)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[2048];
    snprintf(args, sizeof args,
             "bench '%s' -K 4,8:12:4 --models uncollapsed,collapsed --device cpu -n 1 -r 2 -w 0 -j 2 -o '%s/b.csv'",
             c, dir);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/b.csv", dir);
    FILE *f = fopen(args, "r");
    cr_assert(f);
    char line[512];
    int rows = 0;
    cr_assert(fgets(line, sizeof line, f) && strncmp(line, "K,sampler,precision,model", 25) == 0, "%s", line);
    while (fgets(line, sizeof line, f)) {
        unsigned K;
        char model[32], split[16];
        double ms;
        char sampler[32];
        cr_assert_eq(sscanf(line, "%u,%31[^,],float,%31[^,],%15[^,],cpu,%lf", &K, sampler, model, split, &ms), 5, "%s",
                     line);
        /* --samplers auto (the default): the collapsed model's on the CPU */
        cr_assert_str_eq(sampler, strcmp(model, "collapsed") == 0 ? "alias" : "butterfly", "%s", line);
        cr_assert_str_eq(split, strcmp(model, "collapsed") == 0 ? "1" : "auto", "%s", line);
        cr_assert(ms > 0);
        /* the plan that ran (kernel, warps a group) and the piece length (auto: by the model and
         * sampler; alias draws documents whole) end the row */
        cr_assert(strstr(line, strcmp(model, "collapsed") == 0 ? ",cpu,0,0\n" : ",cpu,0,512\n"), "%s", line);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 6, "3 K values x 2 models");
    snprintf(args, sizeof args, "bench '%s' -K 4:2", c);
    test_expect_failure(args, 2, "ends before it starts");
    snprintf(args, sizeof args, "bench '%s' --samplers fastest", c);
    test_expect_failure(args, 2, "expected one of auto|butterfly|butterfly-stored|transpose|naive");
    test_rmdir(dir);
    free(dir);
    free(c);
}

/* train reports the phases before its first iteration (issue 14's 10^9-token run reads them:
 * scripts/billion.sh): the read, then the set-up after it with the layout's share. */
Test(cli, train_reports_read_and_set_up_times)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[2048], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 -e 0 --device cpu -j 1 -o '%s/m'", c, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    const char *read = strstr(out, "ldagpu: read "), *setup = strstr(out, "ldagpu: set up in ");
    cr_assert(read && setup && read < setup, "no read line before the set-up line: %s", out);
    const char *read_time = strstr(read, " words in ");
    double read_s = -1.0, setup_s = -1.0, layout_s = -1.0;
    cr_assert(read_time && read_time < setup && sscanf(read_time, " words in %lf s", &read_s) == 1, "%s", out);
    cr_assert_eq(sscanf(setup, "ldagpu: set up in %lf s (the layout built in %lf s", &setup_s, &layout_s), 2, "%s",
                 out);
    cr_assert(read_s >= 0.0 && layout_s >= 0.0 && layout_s <= setup_s, "read %g s, set up %g s, layout %g s", read_s,
              setup_s, layout_s);
    free(out);
    test_rmdir(dir);
    free(dir);
    free(c);
}
