/* test_resume.c — the real binary on the CPU: resuming equals an uninterrupted run, a killed
 * run leaves a resumable checkpoint, SIGINT/SIGTERM save and exit 130/143, --resume refuses
 * conflicting settings and another corpus, eval repeats the training log's held-out figure. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "model/matrix_file.h"

static char *corpus_path(void)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    return p;
}

static void run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
}

static void same_files(const char *a, const char *b, const char *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        cr_assert(test_same_bytes(pa, pb), "%s differs between %s and %s", files[i], a, b);
    }
}

static const char *const model_files[] = {"phi.npy", "theta.npy", "z.npy", "topic_tokens.npy", "topics.txt"};
enum { NUM_MODEL_FILES = sizeof model_files / sizeof model_files[0] };

/* The last line of a log.csv, its figures: loglik_pred, loglik_joint, loglik_heldout (not the
 * phi_seconds after them, a time). */
static char *last_log_figures(const char *dir)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/log.csv", dir);
    char *text = test_read_file(path);
    cr_assert(text, "no %s", path);
    size_t len = strlen(text);
    cr_assert(len > 1 && text[len - 1] == '\n');
    text[len - 1] = '\0';
    char *last = strrchr(text, '\n') + 1, *p = last;
    for (int commas = 0; commas < 6; p++)
        commas += *p == ',';
    *strrchr(p, ',') = '\0';
    char *out = strdup(p);
    free(text);
    return out;
}

/* model: the training options that pick the model (--update, --model, --refresh). */
static void resume_equals_uninterrupted(const char *model, const char *device)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192];
    snprintf(args, sizeof args,
             "train '%s' -K 12 -n 6 -e 3 -s 5 %s --holdout 0.1 -j 2 --device %s -o '%s/full' -q", c,
             model, device, dir);
    run_ok(args);
    snprintf(args, sizeof args,
             "train '%s' -K 12 -n 3 -e 3 -s 5 %s --holdout 0.1 -j 2 --device %s -o '%s/part' -q", c,
             model, device, dir);
    run_ok(args);
    /* Another thread count, and the settings the model already has may be repeated. */
    snprintf(args, sizeof args, "train --resume '%s/part' -n 3 -e 3 -K 12 -s 5 -j 1 --device %s -q", dir, device);
    run_ok(args);
    char full[1024], part[1024];
    snprintf(full, sizeof full, "%s/full", dir);
    snprintf(part, sizeof part, "%s/part", dir);
    same_files(full, part, model_files, NUM_MODEL_FILES);
    static const char *const more[] = {"heldout.txt", "vocab.txt", "alpha.npy"};
    same_files(full, part, more, strstr(model, "--optimize-interval") ? 3 : 2); /* learned α: part of the state */
    cr_assert_eq(test_conf_number(part, "iterations"), 6);
    /* The log went on (iteration 0 .. 6 rows), with the same figures at iteration 6. */
    char path[2048];
    snprintf(path, sizeof path, "%s/log.csv", part);
    char *log = test_read_file(path);
    cr_assert(strstr(log, "\n0,") && strstr(log, "\n3,") && strstr(log, "\n6,"), "%s", log);
    free(log);
    char *a = last_log_figures(full), *b = last_log_figures(part);
    cr_assert_str_eq(a, b, "evaluations at iteration 6 differ: %s vs %s", a, b);
    cr_assert(strlen(a) > 20, "the last row has log-likelihoods and the held-out figure: %s", a);
    free(a);
    free(b);
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(resume, equals_an_uninterrupted_run_draw) { resume_equals_uninterrupted("--update draw", "cpu"); }
Test(resume, equals_an_uninterrupted_run_mean) { resume_equals_uninterrupted("--update mean", "cpu"); }
/* The start from a sample is the run's first step only: a resumed run goes on from its z. */
Test(resume, equals_an_uninterrupted_run_started_from_a_sample)
{
    resume_equals_uninterrupted("--model collapsed --sample-start 5", "cpu");
}
/* So is the start from collapsed variational Bayes. */
Test(resume, equals_an_uninterrupted_run_started_from_cvb)
{
    resume_equals_uninterrupted("--model collapsed --cvb-start 5", "cpu");
}
/* φ drawn between the parts of an iteration: the resumed run must start from the last part's φ. */
Test(resume, equals_an_uninterrupted_run_refreshed)
{
    resume_equals_uninterrupted("--model theta-collapsed --sampler butterfly --refresh 3", "cpu");
}

/* Priors learned at iterations 2, 4 and 6: the resumed run (from 3) goes on with those of 2. */
Test(resume, equals_an_uninterrupted_run_learning_priors)
{
    resume_equals_uninterrupted("--model collapsed --optimize-interval 2 --optimize-mode every --optimize-burn-in 1", "cpu");
}

Test(resume, refuses_conflicting_settings_and_another_corpus)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 6 -n 1 -e 0 --device cpu -o '%s/m' -q", c, dir);
    run_ok(args);
    snprintf(args, sizeof args, "train --resume '%s/m' -K 7", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "-K/--topics differs from the model's setting (6"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "train --resume '%s/m' --update mean", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "--update differs from the model's setting (draw"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "train --resume '%s/m' --holdout 0.2", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "--holdout differs"), "%s", out);
    free(out);
    /* Another corpus given as CORPUS: its checksum differs. */
    char *other = test_write_file(dir, "other.txt", "alpha beta\nalpha beta\ngamma delta\ngamma delta\n");
    snprintf(args, sizeof args, "train '%s' --resume '%s/m' -n 1 --min-df 1 --max-df 1", other, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "--min-df differs"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "train '%s' --resume '%s/m' -n 1", other, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "is not the corpus"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "train --resume '%s/nothing-here'", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "nothing-here/model.conf"), "%s", out);
    free(out);
    /* A z.npy that does not match model.conf (a write cut short) and no checkpoint. */
    char z[1024];
    snprintf(z, sizeof z, "%s/m/z.npy", dir);
    cr_assert_eq(truncate(z, 100), 0);
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "z.npy"), "%s", out);
    free(out);
    /* The same value as the model's is not a conflict; -o writes elsewhere. */
    snprintf(args, sizeof args, "train '%s' -K 6 -n 1 -e 0 --device cpu -o '%s/m' -q --force", c, dir);
    run_ok(args);
    snprintf(args, sizeof args, "train --resume '%s/m' -K 6 -n 1 -o '%s/m2' -q --device cpu", dir, dir);
    run_ok(args);
    char m2[1024];
    snprintf(m2, sizeof m2, "%s/m2", dir);
    cr_assert_eq(test_conf_number(m2, "iterations"), 2);
    snprintf(m2, sizeof m2, "%s/m", dir);
    cr_assert_eq(test_conf_number(m2, "iterations"), 1, "the resumed model itself is left alone");
    test_rmdir(dir);
    free(dir);
    free(c);
    free(other);
}

/* A long run with a checkpoint every iteration, stopped once its first checkpoint exists. */
static pid_t start_long_run(const char *c, const char *model, const char *log)
{
    char args[8192];
    snprintf(args, sizeof args,
             "train '%s' -K 16 -n 1000000 -e 0 -s 3 --holdout 0.1 --checkpoint-every 1 -j 2 --device cpu -o '%s'", c,
             model);
    pid_t pid = test_spawn_ldagpu(args, log);
    char conf[2048];
    snprintf(conf, sizeof conf, "%s/checkpoint/model.conf", model);
    test_wait_for_file(conf, pid, log, 120);
    return pid;
}

Test(resume, a_killed_run_resumes_from_its_checkpoint)
{
    char *dir = test_tmpdir(), *c = corpus_path(), model[1024], log[1024], ckpt[1024], args[8192];
    snprintf(model, sizeof model, "%s/run", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(ckpt, sizeof ckpt, "%s/run/checkpoint", dir);
    pid_t pid = start_long_run(c, model, log);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(test_wait_ldagpu(pid), 128 + SIGKILL);
    struct stat sb;
    snprintf(args, sizeof args, "%s/model.conf", model);
    cr_assert_neq(stat(args, &sb), 0, "a killed run wrote no model");
    long t = test_conf_number(ckpt, "iterations");
    cr_assert_geq(t, 1);
    /* Resume to t + 2 and compare with a run of t + 2 iterations in one go. */
    snprintf(args, sizeof args, "train --resume '%s' -n 2 -q -j 2 --device cpu", model);
    run_ok(args);
    cr_assert_eq(test_conf_number(model, "iterations"), t + 2);
    snprintf(args, sizeof args, "train '%s' -K 16 -n %ld -e 0 -s 3 --holdout 0.1 -j 2 --device cpu -o '%s/ref' -q",
             c, t + 2, dir);
    run_ok(args);
    char ref[1024];
    snprintf(ref, sizeof ref, "%s/ref", dir);
    same_files(ref, model, model_files, NUM_MODEL_FILES);
    test_rmdir(dir);
    free(dir);
    free(c);
}

static void stop_with(int sig)
{
    char *dir = test_tmpdir(), *c = corpus_path(), model[1024], log[1024], args[8192];
    snprintf(model, sizeof model, "%s/run", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    pid_t pid = start_long_run(c, model, log);
    cr_assert_eq(kill(pid, sig), 0);
    int status = test_wait_ldagpu(pid);
    char *out = test_read_file(log);
    cr_assert_eq(status, 128 + sig, "exit status %d: %s", status, out);
    const char *name = sig == SIGINT ? "stopped by SIGINT after iteration" : "stopped by SIGTERM after iteration";
    cr_assert(strstr(out, name), "%s", out);
    cr_assert(strstr(out, "continue with: ldagpu train --resume"), "%s", out);
    free(out);
    /* The model is complete and loadable, and its checkpoint is at the same iteration. */
    long t = test_conf_number(model, "iterations");
    char ckpt[2048];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", model);
    cr_assert_geq(t, 1);
    cr_assert_eq(test_conf_number(ckpt, "iterations"), t);
    snprintf(args, sizeof args, "topics '%s' --top 3", model);
    run_ok(args);
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", model);
    run_ok(args);
    cr_assert_eq(test_conf_number(model, "iterations"), t + 1);
    snprintf(args, sizeof args, "ls -a '%s' | grep -c tmp", model);
    FILE *p = popen(args, "r");
    int leftovers = -1;
    cr_assert_eq(fscanf(p, "%d", &leftovers), 1);
    pclose(p);
    cr_assert_eq(leftovers, 0, "temporary files or folders left in the model folder");
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(resume, sigint_saves_a_checkpoint_and_the_model_and_exits_130) { stop_with(SIGINT); }
Test(resume, sigterm_saves_a_checkpoint_and_the_model_and_exits_143) { stop_with(SIGTERM); }

/* A second SIGINT right after the first, while the iteration under way (and then the save)
 * would still take a while: status 1 and a line that says so, not 130 ("saved"). */
Test(resume, a_second_signal_stops_at_once_and_says_so)
{
    char *dir = test_tmpdir(), *c = corpus_path(), model[1024], log[1024];
    snprintf(model, sizeof model, "%s/run", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    /* K = 512 on one thread: an iteration takes a second or so, the window for the second
     * signal; it follows the first once that one has surely been delivered (two pending
     * signals of a kind are one). */
    char args[8192];
    snprintf(args, sizeof args, "train '%s' -K 512 -n 1000 -e 0 --checkpoint-every 1 -j 1 --device cpu -o '%s'", c,
             model);
    pid_t pid = test_spawn_ldagpu(args, log);
    snprintf(args, sizeof args, "%s/checkpoint/model.conf", model);
    test_wait_for_file(args, pid, log, 120);
    cr_assert_eq(kill(pid, SIGINT), 0);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    cr_assert_eq(kill(pid, SIGINT), 0);
    int status = test_wait_ldagpu(pid);
    char *out = test_read_file(log);
    cr_assert_eq(status, 1, "exit status %d: %s", status, out);
    cr_assert(strstr(out, "ldagpu train: stopped by a second signal before its state was saved"), "%s", out);
    free(out);
    /* What was there stays usable: the last checkpoint resumes. */
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q -j 2 --device cpu", model);
    run_ok(args);
    test_rmdir(dir);
    free(dir);
    free(c);
}

static void eval_repeats_the_log(const char *device, const char *model)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 12 -n 5 -e 5 -s 9 --holdout 0.15 -j 2 --device %s -o '%s/m' -q %s",
             c, device, dir, model);
    run_ok(args);
    char m[1024];
    snprintf(m, sizeof m, "%s/m", dir);
    char *figures = last_log_figures(m), *heldout = strrchr(figures, ',') + 1;
    cr_assert(strlen(heldout) > 3, "no held-out figure in the log: %s", figures);
    snprintf(args, sizeof args, "eval '%s' '%s' --docs '%s/heldout.txt' -j 1 --device %s", m, c, m, device);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    char expect[128];
    snprintf(expect, sizeof expect, "loglik_per_token %s\n", heldout);
    cr_assert(strstr(out, expect), "eval says %s; the log's last held-out figure is %s", out, heldout);
    double ll = 0, ppl = 0;
    cr_assert_eq(sscanf(strstr(out, "loglik_per_token"), "loglik_per_token %lf\nperplexity %lf", &ll, &ppl), 2);
    cr_assert_float_eq(ppl, exp(-ll), 0.01 + 1e-6 * ppl);
    free(out);
    /* Another seed gives another (but close) figure. */
    snprintf(args, sizeof args, "eval '%s' '%s' --docs '%s/heldout.txt' -s 2 --device %s", m, c, m, device);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(!strstr(out, expect), "%s", out);
    free(out);
    /* The held-out documents were not trained on: their θ rows are uniform. */
    snprintf(args, sizeof args, "%s/theta.npy", m);
    float *theta = NULL;
    uint64_t rows, cols;
    lda_error err = {0};
    cr_assert_eq(lda_matrix_read(args, LDA_MATRIX_F32, &rows, &cols, (void **)&theta, &err), 0, "%s", err.msg);
    cr_assert(rows == 2000 && cols == 12);
    snprintf(args, sizeof args, "%s/heldout.txt", m);
    FILE *f = fopen(args, "r");
    size_t held = 0, idx;
    while (fscanf(f, "%zu", &idx) == 1) {
        held++;
        cr_assert_lt(idx, 2000);
        for (int k = 0; k < 12; k++)
            cr_assert_eq(theta[idx * 12 + k], 1.0f / 12, "held-out document %zu has a trained θ", idx);
    }
    fclose(f);
    cr_assert(held > 200 && held < 400, "%zu of 2000 held out at 0.15", held);
    cr_assert_eq(test_conf_number(m, "heldout_documents"), (long)held);
    free(theta);
    free(figures);
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(resume, eval_repeats_the_training_logs_heldout_figure) { eval_repeats_the_log("cpu", ""); }
/* eval scores with the model's learned α (alpha.npy), as training did. */
Test(resume, eval_repeats_the_log_with_learned_priors)
{
    eval_repeats_the_log("cpu", "--optimize-interval 2 --optimize-burn-in 1");
}

/* The same on the GPU (skipped without one): byte-identical resume, eval equal to the log. */
#ifdef LDA_HAVE_CUDA
#include "backend/backend.h"

static void require_gpu(void)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0)
        cr_skip_test("no GPU here: %s", why);
}

Test(resume_gpu, equals_an_uninterrupted_run_draw)
{
    require_gpu();
    resume_equals_uninterrupted("--update draw", "cuda");
}

Test(resume_gpu, equals_an_uninterrupted_run_refreshed)
{
    require_gpu();
    resume_equals_uninterrupted("--model theta-collapsed --sampler butterfly --refresh 3", "cuda");
}

Test(resume_gpu, equals_an_uninterrupted_run_learning_priors)
{
    require_gpu();
    resume_equals_uninterrupted("--model collapsed --optimize-interval 2 --optimize-mode every --optimize-burn-in 1", "cuda");
}

Test(resume_gpu, eval_repeats_the_training_logs_heldout_figure)
{
    require_gpu();
    eval_repeats_the_log("cuda", "--optimize-interval 2 --optimize-burn-in 1");
}
#endif
