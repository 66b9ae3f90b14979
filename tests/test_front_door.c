/* test_front_door.c — what a new user meets first: the sampler auto chooses, what train says
 * it ran and recommends, the model/update interplay, Mallet's option names, -q, no GPU,
 * SIGPIPE, the presets in configs/. Runs of the real binary on a tiny corpus. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "helpers.h"
#include "model/model.h"

/* Trains the tiny corpus of dir with extra options into dir/NAME; returns the output. */
static char *train_tiny(const char *dir, const char *name, const char *options)
{
    char *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 --device cpu -j 2 -o '%s/%s' %s", tiny, dir, name, options);
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", args, rc, out);
    free(tiny);
    return out;
}

/* Runs ldagpu with args, which must succeed. */
static void run_ok(const char *args)
{
    char *out = NULL;
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", args, rc, out);
    free(out);
}

static char *model_conf(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.conf", dir, name);
    char *conf = test_read_file(path);
    cr_assert(conf, "no %s", path);
    return conf;
}

/* --sampler auto (the default): sparse where θ is collapsed (alias for the collapsed model on the
 * CPU, as here), butterfly where θ is given; the opening line names the model
 * and the sampler that ran, and model.conf records it. */
Test(front, auto_sampler_is_sparse_where_theta_is_collapsed)
{
    static const struct {
        const char *model, *sampler;
    } cases[] = {{"collapsed", "alias"},        {"theta-collapsed", "sparse"}, {"uncollapsed", "butterfly"},
                 {"mean-for-mode", "butterfly"}, {"phi-mean", "butterfly"}};
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char options[256], line[256], conf_line[256];
        snprintf(options, sizeof options, "--model %s", cases[i].model);
        char *out = train_tiny(dir, cases[i].model, options), *conf = model_conf(dir, cases[i].model);
        snprintf(line, sizeof line, "model %s, sampler %s,", cases[i].model, cases[i].sampler);
        snprintf(conf_line, sizeof conf_line, "\nsampler = %s\n", cases[i].sampler);
        cr_assert(strstr(out, line), "--model %s: '%s' not in: %s", cases[i].model, line, out);
        cr_assert(strstr(conf, conf_line), "--model %s: model.conf lacks '%s': %s", cases[i].model, conf_line + 1,
                  conf);
        free(out);
        free(conf);
    }
    /* the default model, and an explicit sampler still holds */
    char *out = train_tiny(dir, "default", "");
    cr_assert(strstr(out, "model uncollapsed, sampler butterfly,"), "%s", out);
    free(out);
    out = train_tiny(dir, "naive", "--model collapsed --sampler naive");
    cr_assert(strstr(out, "model collapsed, sampler naive,"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

/* The default α: a prior mass of 20 where φ is the mean of the counts (collapsed, phi-mean,
 * mean-for-mode), the paper's 50 where φ is drawn (uncollapsed, theta-collapsed); K = 3 here, and
 * model.conf records the value used. An explicit -a holds for every model. */
Test(front, default_alpha_follows_the_model)
{
    static const struct {
        const char *model, *alpha;
    } cases[] = {{"collapsed", "6.666666666666667"},   {"phi-mean", "6.666666666666667"},
                 {"mean-for-mode", "6.666666666666667"}, {"uncollapsed", "16.666666666666668"},
                 {"theta-collapsed", "16.666666666666668"}};
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char options[256], expect[256];
        snprintf(options, sizeof options, "--model %s", cases[i].model);
        free(train_tiny(dir, cases[i].model, options));
        char *conf = model_conf(dir, cases[i].model);
        snprintf(expect, sizeof expect, "\nalpha = %.17g\n", atof(cases[i].alpha));
        cr_assert(strstr(conf, expect), "--model %s: model.conf lacks '%s': %s", cases[i].model, expect + 1, conf);
        free(conf);
    }
    free(train_tiny(dir, "given", "--model collapsed -a 0.25"));
    char *conf = model_conf(dir, "given");
    cr_assert(strstr(conf, "\nalpha = 0.25\n"), "%s", conf);
    free(conf);
    test_rmdir(dir);
    free(dir);
}

/* A resumed run keeps the sampler its model recorded (a model from before auto, or one asked
 * for by name), unless --sampler is given. */
Test(front, resume_keeps_the_recorded_sampler)
{
    char *dir = test_tmpdir(), args[4096], *out = NULL;
    free(train_tiny(dir, "m", "--model collapsed --sampler butterfly"));
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1 --device cpu -j 2", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "sampler butterfly"), "%s", out);
    char *conf = model_conf(dir, "m");
    cr_assert(strstr(conf, "\nsampler = butterfly\n"), "%s", conf);
    free(conf);
    free(out);
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1 --device cpu -j 2 --sampler auto", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    conf = model_conf(dir, "m");
    cr_assert(strstr(conf, "\nsampler = alias\n"), "--sampler auto on resume (the CPU, K = 3): %s", conf);
    free(conf);
    free(out);
    test_rmdir(dir);
    free(dir);
}

/* bench's rows name the sampler auto resolved to. */
Test(front, bench_rows_name_the_resolved_sampler)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "bench '%s' -K 4 --models collapsed,uncollapsed -n 1 -w 0 -r 1 --device cpu -j 1 "
             "-o '%s/bench.csv'", tiny, dir);
    run_ok(args);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    char *csv = test_read_file(path);
    cr_assert(csv && strstr(csv, "\n4,alias,float,collapsed,") && strstr(csv, "\n4,butterfly,float,uncollapsed,"),
              "%s", csv);
    free(csv);
    /* auto next to the sampler it resolves to: that point once */
    snprintf(args, sizeof args, "bench '%s' -K 4 --samplers auto,alias --models collapsed -n 1 -w 0 -r 1 "
             "--device cpu -j 1 -o '%s/bench.csv'", tiny, dir);
    run_ok(args);
    csv = test_read_file(path);
    cr_assert(csv);
    int rows = 0;
    for (const char *p = csv; (p = strstr(p, "\n4,alias,")); p++)
        rows++;
    cr_assert_eq(rows, 1, "%s", csv);
    free(csv);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* The opening line says what ran; a run of another model than the recommended one is pointed
 * to it, in one line; --help says the same. */
Test(front, train_points_to_the_recommended_model)
{
    char *dir = test_tmpdir();
    char *out = train_tiny(dir, "default", "");
    cr_assert(strstr(out, "recommended") && strstr(out, "--model collapsed"), "%s", out);
    free(out);
    out = train_tiny(dir, "collapsed", "--model collapsed");
    cr_assert(!strstr(out, "recommended"), "the recommended model is not pointed to itself: %s", out);
    free(out);
    cr_assert_eq(test_run_ldagpu("train --help", &out), 0);
    cr_assert(strstr(out, "--sampler NAME"), "%s", out);
    const char *model_row = strstr(out, "--model NAME");
    cr_assert(model_row, "%s", out);
    const char *end = strchr(model_row, '\n');
    cr_assert(end && memmem(model_row, (size_t)(end - model_row), "recommended", 11), "%.*s",
              (int)(end ? end - model_row : 80), model_row);
    cr_assert(strstr(out, "(default: auto)"), "the sampler's default: %s", out);
    cr_assert(strstr(out, "--model collapsed"), "the description points to --model collapsed: %s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

/* --model names the update rule too: an --update that contradicts it is refused, in either
 * order, from a flag or a config file; one that agrees, or --update alone, is taken. */
Test(front, model_and_update_never_contradict_silently)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --device cpu -o '%s/x' --model collapsed --update draw", tiny,
             dir);
    test_expect_failure(args, 2, "--model collapsed");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --device cpu -o '%s/x' --update draw --model collapsed", tiny,
             dir);
    test_expect_failure(args, 2, "--update draw");
    char *conf = test_write_file(dir, "c.conf", "model = mean-for-mode\n");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --device cpu -o '%s/x' -c '%s' --update draw", tiny, dir, conf);
    test_expect_failure(args, 2, "c.conf:1: model");
    char *out = train_tiny(dir, "agree", "--model collapsed --update mean");
    cr_assert(strstr(out, "model collapsed,"), "%s", out);
    free(out);
    out = train_tiny(dir, "alone", "--update mean");
    cr_assert(strstr(out, "model mean-for-mode,"), "%s", out);
    free(out);
    free(conf);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* Every preset in configs/ trains as it is on a fresh clone (a flag still overrides it, --model
 * included), and names no file the repository lacks. */
Test(front, configs_train_as_they_are_and_name_no_missing_file)
{
    static const char *const presets[] = {"demo.conf", "wiki.conf"};
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        snprintf(args, sizeof args, "train '%s' -c '%s/configs/%s' -K 3 -n 1 --device cpu -o '%s/m%zu' -q", tiny,
                 test_root(), presets[i], dir, i);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s: %s", presets[i], out);
        free(out);
        snprintf(args, sizeof args, "train '%s' -c '%s/configs/%s' -K 3 -n 1 --device cpu -o '%s/c%zu' -q "
                 "--model collapsed", tiny, test_root(), presets[i], dir, i);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s --model collapsed: %s", presets[i], out);
        free(out);
        snprintf(args, sizeof args, "%s/configs/%s", test_root(), presets[i]);
        char *text = test_read_file(args);
        cr_assert(text, "no %s", args);
        /* a word with a file's extension names a file of the repository */
        static const char *const extensions[] = {".txt", ".gz", ".conf", ".csv", ".ldab", ".md", ".npy"};
        for (char *word = strtok(text, " \t\n\r()\"',;"); word; word = strtok(NULL, " \t\n\r()\"',;"))
            for (size_t e = 0; e < sizeof extensions / sizeof extensions[0]; e++) {
                const size_t n = strlen(word), m = strlen(extensions[e]);
                if (n <= m || strcmp(word + n - m, extensions[e]) != 0)
                    continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", test_root(), word);
                FILE *f = fopen(path, "r");
                cr_assert(f, "%s names %s, which the repository lacks", presets[i], word);
                fclose(f);
            }
        free(text);
    }
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* The line of model.conf that starts with `key = `, its value as a number. */
static double conf_number(const char *conf, const char *key)
{
    char needle[128];
    snprintf(needle, sizeof needle, "\n%s = ", key);
    const char *at = strstr(conf, needle);
    cr_assert(at, "model.conf lacks %s: %s", key, conf);
    return strtod(at + strlen(needle), NULL);
}

/* Mallet's train-topics names, where the meaning is the same, on the command line and as
 * config keys; --help lists them; Mallet's --alpha (a sum over topics) is no alias. */
Test(front, mallet_option_names_are_aliases)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' --num-topics 4 --num-iterations 3 --random-seed 9 --num-threads 1 "
             "--num-top-words 2 --optimize-interval 2 --optimize-burn-in 1 --device cpu -q -o '%s/m'", tiny, dir);
    run_ok(args);
    char *conf = model_conf(dir, "m");
    cr_assert(conf_number(conf, "topics") == 4 && conf_number(conf, "seed") == 9 && conf_number(conf, "iterations") == 3 &&
              conf_number(conf, "optimize_interval") == 2, "%s", conf);
    free(conf);
    char path[4096];
    snprintf(path, sizeof path, "%s/m/topics.txt", dir);
    char *topics = test_read_file(path);
    cr_assert(topics, "no %s", path);
    /* 2 words a topic: "topic k: w1 w2" or similar, so every line has at most 2 of the 12 words */
    int lines = 0;
    for (char *line = strtok(topics, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        int words = 0;
        static const char *const all[] = {"apple", "banana", "cherry", "grape", "lemon", "mango",
                                          "engine", "piston", "rotor", "valve", "wheel", "gear"};
        for (size_t w = 0; w < 12; w++)
            words += strstr(line, all[w]) != NULL;
        cr_assert_leq(words, 2, "--num-top-words 2: %s", line);
    }
    cr_assert_eq(lines, 4, "%d", lines);
    free(topics);
    /* as config keys, and a bad value is named by the alias given */
    char *preset = test_write_file(dir, "mallet.conf", "num-topics = 5\nnum-iterations = 1\nrandom-seed = 3\n");
    snprintf(args, sizeof args, "train '%s' -c '%s' --device cpu -q -o '%s/c'", tiny, preset, dir);
    run_ok(args);
    conf = model_conf(dir, "c");
    cr_assert(conf_number(conf, "topics") == 5 && conf_number(conf, "seed") == 3, "%s", conf);
    free(conf);
    snprintf(args, sizeof args, "train '%s' --num-topics 0", tiny);
    test_expect_failure(args, 2, "--num-topics: expected an integer");
    /* the other commands' names: topics, infer, eval */
    snprintf(args, sizeof args, "topics '%s/m' --num-top-words 1", dir);
    run_ok(args);
    snprintf(args, sizeof args, "infer '%s/m' '%s' --num-iterations 2 --random-seed 4 --num-threads 1 --device cpu "
             "-o '%s/theta.tsv'", dir, tiny, dir);
    run_ok(args);
    snprintf(args, sizeof args, "eval '%s/m' '%s' --num-iterations 2 --random-seed 4 --num-threads 1 --device cpu", dir,
             tiny);
    run_ok(args);
    /* --help names them; Mallet's --alpha is said to differ, and is no alias */
    cr_assert_eq(test_run_ldagpu("train --help", &out), 0);
    cr_assert(strstr(out, "--num-topics") && strstr(out, "--random-seed") && strstr(out, "--num-top-words"), "%s", out);
    cr_assert(strstr(out, "Mallet's --alpha is K times this"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "train '%s' --num-topics 3 --alpha-sum 1", tiny);
    test_expect_failure(args, 2, "unknown option");
    free(preset);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* train --output-topic-keys / --output-doc-topics write Mallet's files after training, as
 * export does from the model folder. */
Test(front, train_writes_mallets_files)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 --device cpu -q -o '%s/m' --output-topic-keys '%s/keys.txt' "
             "--output-doc-topics '%s/doc-topics.txt'", tiny, dir, dir, dir);
    run_ok(args);
    snprintf(args, sizeof args, "export '%s/m' --output-topic-keys '%s/keys2.txt' --output-doc-topics '%s/dt2.txt'",
             dir, dir, dir);
    run_ok(args);
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/keys.txt", dir);
    snprintf(b, sizeof b, "%s/keys2.txt", dir);
    cr_assert(test_same_bytes(a, b), "train's topic keys are not export's");
    snprintf(a, sizeof a, "%s/doc-topics.txt", dir);
    snprintf(b, sizeof b, "%s/dt2.txt", dir);
    cr_assert(test_same_bytes(a, b), "train's document topics are not export's");
    char *doc_topics = test_read_file(a);
    int lines = 0;
    for (const char *p = doc_topics; (p = strchr(p, '\n')); p++)
        lines++;
    cr_assert_eq(lines, 64, "a line a document: %d", lines);
    free(doc_topics);
    /* nothing to write them from: refused before training */
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 --device cpu -q -o '%s/n' --doc-topics none "
             "--output-doc-topics '%s/none.txt'", tiny, dir, dir);
    test_expect_failure(args, 2, "--output-doc-topics");
    snprintf(a, sizeof a, "%s/n/model.conf", dir);
    cr_assert(!test_read_file(a), "trained before refusing");
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* -q prints only errors (and warnings): nothing at all on a run that goes well, whatever it
 * does on the way (held-out documents, learned priors, a cache, --device auto, Mallet's files);
 * an error still prints. */
Test(front, quiet_prints_nothing_on_success)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 3 -n 3 -q -o '%s/m' --holdout 0.2 --optimize-interval 1 "
             "--optimize-burn-in 1 --cache auto --checkpoint-every 1 --output-doc-topics '%s/dt.txt' --doc-topics "
             "top:1", tiny, dir, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert_str_empty(out, "-q printed: %s", out);
    free(out);
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1 -q", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert_str_empty(out, "-q printed on resume: %s", out);
    free(out);
    snprintf(args, sizeof args, "train '%s/missing.txt' -q -o '%s/x'", dir, dir);
    test_expect_failure(args, 2, "missing.txt");
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* Without a GPU, --device cuda says what is missing before any input is read: a corpus that
 * does not exist, or a FIFO nothing will ever write, gives the GPU's message at once. (On a
 * machine with a GPU there is nothing to refuse: skipped.) */
Test(front, no_gpu_is_said_before_the_input_is_read)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) > 0)
        cr_skip_test("this machine has a GPU");
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL, fifo[4096];
    free(train_tiny(dir, "m", "-q"));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    const char *commands[] = {"train '%s/missing.txt' --device cuda -o '%s/x'", "train '%s/fifo' --device cuda -o '%s/x'",
                              "infer '%s/m' '%s/missing.txt' --device cuda", "infer '%s/m' '%s/fifo' --device cuda",
                              "eval '%s/m' '%s/fifo' --device cuda", "bench '%s/fifo' --device cuda -K 2 -o '%s/b.csv'"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, commands[i], dir, dir);
        const int rc = test_run_ldagpu_within(args, 10, &out);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", args, rc, out);
        cr_assert(strstr(out, "--device cuda: ") && !strstr(out, "missing.txt") &&
                      (strstr(out, "no NVIDIA GPU") || strstr(out, "built without CUDA")),
                  "%s: %s", args, out);
        cr_assert(!strstr(out, "driver version is insufficient") || strstr(out, "(CUDA: "),
                  "the CUDA error alone reads as 'upgrade your driver': %s", out);
        free(out);
    }
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* `ldagpu train ... 2>&1 | head` once head is gone: the run goes on and writes its model; its
 * lines to the closed pipe are lost, and it is not killed by SIGPIPE. The pipe's reading end is
 * closed before train starts, so every line it writes meets a closed pipe. */
Test(front, a_closed_pipe_on_stderr_does_not_lose_the_run)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), *cmd = NULL;
    const char *bin = getenv("LDAGPU_BIN");
    cr_assert(asprintf(&cmd, "exec '%s' train '%s' -K 3 -n 2 --device cpu -o '%s/m'", bin ? bin : "./ldagpu", tiny,
                       dir) > 0);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    close(fds[0]);
    fflush(NULL);
    const pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL); /* as a shell starts it, whatever the test runner set */
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(!WIFSIGNALED(status), "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", WEXITSTATUS(status));
    char *conf = model_conf(dir, "m"); /* asserts it is there */
    free(conf);
    free(cmd);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

/* After --optimize-interval the topic keys carry each topic's learned α (alpha.npy), as Mallet
 * writes them, not the setting α started from. */
Test(front, mallet_topic_keys_carry_the_learned_alpha)
{
    char *dir = test_tmpdir(), args[4096];
    free(train_tiny(dir, "m", "-n 4 --optimize-interval 1 --optimize-burn-in 1 -q"));
    snprintf(args, sizeof args, "export '%s/m' --output-topic-keys '%s/keys.txt'", dir, dir);
    run_ok(args);
    lda_model m;
    lda_error err = {0};
    snprintf(args, sizeof args, "%s/m", dir);
    cr_assert_eq(lda_model_read(&m, args, 0, 0, &err), 0, "%s", err.msg);
    cr_assert(m.alpha_learned, "no learned alpha");
    snprintf(args, sizeof args, "%s/keys.txt", dir);
    char *keys = test_read_file(args), *save = NULL;
    cr_assert(keys);
    uint32_t k = 0;
    int differs = 0;
    for (char *line = strtok_r(keys, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
        unsigned topic;
        double alpha;
        cr_assert_eq(sscanf(line, "%u\t%lf\t", &topic, &alpha), 2, "%s", line);
        cr_assert_eq(topic, k);
        cr_assert(fabs(alpha - m.alpha_learned[k]) <= 5e-6, "topic %u: α %g in the keys, %g learned", k, alpha,
                  (double)m.alpha_learned[k]);
        differs |= fabs(alpha - m.settings.params.alpha) > 1e-3;
    }
    cr_assert_eq(k, m.num_topics);
    cr_assert(differs, "the learned α equal the setting: the test shows nothing");
    free(keys);
    lda_model_free(&m);
    test_rmdir(dir);
    free(dir);
}
