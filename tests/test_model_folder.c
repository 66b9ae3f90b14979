/* test_model_folder.c — a model folder is one unit (model/model_folder.h): written whole or
 * not at all, whatever kills the run; a run owns only what it created (no link followed, no
 * user's file deleted, one run at a time); --resume continues the folder's newest run; a
 * signal before the first iteration leaves the folder as it was; no output replaces an input. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

typedef struct {
    char *dir, *corpus, model[1024];
} fixture;

static void run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
}

/* The tiny corpus and a model of it (K = 2) in DIR/m. */
static fixture trained(void)
{
    fixture f = {test_tmpdir(), NULL, ""};
    f.corpus = test_tiny_corpus(f.dir);
    snprintf(f.model, sizeof f.model, "%s/m", f.dir);
    char args[4096];
    snprintf(args, sizeof args, "train '%s' -K 2 -n 3 -q --device cpu -o '%s'", f.corpus, f.model);
    run_ok(args);
    return f;
}

static void fixture_free(fixture *f)
{
    test_rmdir(f->dir);
    free(f->dir);
    free(f->corpus);
}

static void shell_ok(const char *cmd)
{
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s: %s", cmd, out);
    free(out);
}

/* A copy of folder a at b. */
static void copy_folder(const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", a, b);
    shell_ok(cmd);
}

/* Folders a and b hold the same files, byte for byte. */
static void assert_same_folder(const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' 2>&1", a, b);
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s and %s differ: %s", a, b, out);
    free(out);
}

/* The file at path holds text (and was neither removed nor changed). */
static void assert_text(const char *path, const char *text)
{
    char *have = test_read_file(path);
    cr_assert(have && strcmp(have, text) == 0, "%s: %s", path, have ? have : "gone");
    free(have);
}

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- writing into an existing folder ---- */

Test(model_folder, a_folder_holding_a_model_is_replaced_only_with_force)
{
    fixture f = trained();
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 -q --device cpu -o '%s'", f.corpus, f.model);
    cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "holds a model: use --force to replace it or --resume"), "%s", out);
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
    free(out);
    cr_assert_eq(test_conf_number(f.model, "topics"), 2, "the model was touched");
    strcat(args, " --force");
    run_ok(args);
    cr_assert_eq(test_conf_number(f.model, "topics"), 3);
    /* Its own resume needs no --force. */
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", f.model);
    run_ok(args);
    cr_assert_eq(test_conf_number(f.model, "iterations"), 2);
    fixture_free(&f);
}

/* -o . (or any folder) holding files that are not a model's: never written, even with --force. */
Test(model_folder, a_folder_of_other_files_is_never_written)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), cmd[4096];
    char *vocab = test_write_file(dir, "vocab.txt", "my words\n"), *log = test_write_file(dir, "log.csv", "my log\n");
    for (int force = 0; force < 2; force++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && \"$LDAGPU_BIN\" train tiny.ldac -K 2 -n 1 -q --device cpu -o . %s 2>&1",
                 dir, force ? "--force" : "");
        int status;
        char *out = test_shell(cmd, &status);
        cr_assert_eq(status, 2, "%s: %s", cmd, out);
        cr_assert(strstr(out, "-o . is not empty and holds no ldagpu model"), "%s", out);
        free(out);
    }
    assert_text(vocab, "my words\n");
    assert_text(log, "my log\n");
    free(vocab);
    free(log);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* What the user put in a model folder stays through a rewrite: files and folders. */
Test(model_folder, what_is_not_the_models_is_carried_over)
{
    fixture f = trained();
    char path[2048], args[4096];
    free(test_write_file(f.model, "notes.txt", "mine\n"));
    snprintf(path, sizeof path, "%s/exports", f.model);
    cr_assert_eq(mkdir(path, 0777), 0);
    free(test_write_file(path, "keys.txt", "exported\n"));
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 -q --device cpu -o '%s' --force", f.corpus, f.model);
    run_ok(args);
    snprintf(path, sizeof path, "%s/notes.txt", f.model);
    assert_text(path, "mine\n");
    snprintf(path, sizeof path, "%s/exports/keys.txt", f.model);
    assert_text(path, "exported\n");
    cr_assert_eq(test_count_entries(f.dir, "ldagpu-", NULL), 0, "a folder was left beside the model");
    fixture_free(&f);
}

/* ---- a run owns only what it created ---- */

Test(model_folder, a_checkpoint_link_is_not_followed)
{
    fixture f = trained();
    char victim[1100], link[1100], args[4096];
    snprintf(victim, sizeof victim, "%s/victim", f.dir);
    cr_assert_eq(mkdir(victim, 0777), 0);
    char *keep = test_write_file(victim, "model.conf", "keep me\n");
    snprintf(link, sizeof link, "%s/checkpoint", f.model);
    cr_assert_eq(symlink(victim, link), 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 2 --checkpoint-every 1 -q --device cpu -o '%s' --force",
             f.corpus, f.model);
    test_expect_failure(args, 2, "checkpoint is a symbolic link");
    assert_text(keep, "keep me\n"); /* the link's target was not emptied */
    free(keep);
    fixture_free(&f);
}

Test(model_folder, a_users_checkpoint_folder_is_not_emptied)
{
    fixture f = trained();
    char folder[1100], args[4096];
    snprintf(folder, sizeof folder, "%s/checkpoint", f.model);
    cr_assert_eq(mkdir(folder, 0777), 0);
    char *notes = test_write_file(folder, "notes.txt", "mine\n");
    snprintf(args, sizeof args, "train '%s' -K 2 -n 2 --checkpoint-every 1 -q --device cpu -o '%s' --force",
             f.corpus, f.model);
    test_expect_failure(args, 2, "checkpoint is not an ldagpu checkpoint");
    cr_assert(exists(notes), "the user's folder named checkpoint was emptied");
    free(notes);
    fixture_free(&f);
}

Test(model_folder, a_linked_model_file_keeps_its_target)
{
    fixture f = trained();
    char target[1100], link[1100], args[4096];
    snprintf(target, sizeof target, "%s/phi-elsewhere.npy", f.dir);
    snprintf(link, sizeof link, "%s/phi.npy", f.model);
    cr_assert_eq(rename(link, target), 0);
    cr_assert_eq(symlink(target, link), 0);
    char before[1100];
    snprintf(before, sizeof before, "%s/phi-before.npy", f.dir);
    copy_folder(target, before);
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", f.model);
    test_expect_failure(args, 2, "phi.npy is a symbolic link");
    cr_assert(test_same_bytes(target, before), "the link's target was replaced");
    fixture_free(&f);
}

/* ---- one unit ---- */

/* A φ of another model of the same shape: every reader refuses the folder. */
Test(model_folder, a_mixed_folder_is_refused_by_every_reader)
{
    fixture f = trained();
    char other[1100], args[4096];
    snprintf(other, sizeof other, "%s/other", f.dir);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 3 -s 7 -q --device cpu -o '%s'", f.corpus, other);
    run_ok(args);
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/phi.npy", other);
    snprintf(to, sizeof to, "%s/phi.npy", f.model);
    cr_assert(!test_same_bytes(from, to), "the two models should differ");
    copy_folder(from, to);
    const char *const readers[] = {"topics '%s'", "infer '%s' '%s' -n 1 --device cpu -o -",
                                   "eval '%s' '%s' --device cpu", "export '%s' --output-topic-keys '%s.keys'",
                                   "report '%s' -o '%s.html'", "train --resume '%s' -n 1 --device cpu -q"};
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, readers[i], f.model, strstr(readers[i], "infer") || strstr(readers[i], "eval")
                                                           ? f.corpus
                                                           : f.model);
        test_expect_failure(cmd, 2, "phi.npy is not the file");
    }
    fixture_free(&f);
}

/* The pause switch holds the run before the swap (and before each step after it): killed
 * there, the folder holds the old model, complete, and the next run tidies what was left. */
Test(model_folder, a_kill_before_the_swap_leaves_the_old_model)
{
    fixture f = trained();
    char backup[1100], args[4096], log[1100], staged[1200];
    snprintf(backup, sizeof backup, "%s/backup", f.dir);
    copy_folder(f.model, backup);
    snprintf(log, sizeof log, "%s/run.log", f.dir);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -q --device cpu -o '%s' --force", f.corpus, f.model);
    setenv("LDAGPU_RENAME_PAUSE_MS", "30000", 1);
    pid_t pid = test_spawn_ldagpu(args, log);
    unsetenv("LDAGPU_RENAME_PAUSE_MS");
    snprintf(staged, sizeof staged, "%s/.m.ldagpu-new-%ld/manifest.txt", f.dir, (long)pid);
    test_wait_for_file(staged, pid, log, 60);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(test_wait_ldagpu(pid), 128 + SIGKILL);
    assert_same_folder(backup, f.model);
    snprintf(args, sizeof args, "topics '%s'", f.model);
    run_ok(args);
    /* The next run into it removes the killed run's folder. */
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", f.model);
    run_ok(args);
    cr_assert_eq(test_count_entries(f.dir, "ldagpu-", NULL), 0, "the killed run's folder is still there");
    fixture_free(&f);
}

Test(model_folder, a_kill_after_the_swap_leaves_the_new_model)
{
    fixture f = trained();
    char args[4096], log[1100], exports[1100];
    snprintf(exports, sizeof exports, "%s/exports", f.model);
    cr_assert_eq(mkdir(exports, 0777), 0);
    free(test_write_file(exports, "keys.txt", "exported\n"));
    snprintf(log, sizeof log, "%s/run.log", f.dir);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -q --device cpu -o '%s' --force", f.corpus, f.model);
    setenv("LDAGPU_RENAME_PAUSE_MS", "1500", 1);
    pid_t pid = test_spawn_ldagpu(args, log);
    unsetenv("LDAGPU_RENAME_PAUSE_MS");
    /* The swap done: the new model.conf in place, the folder of exports not yet moved back. */
    for (int i = 0; i < 600 && test_conf_number(f.model, "topics") != 3; i++)
        sleep_ms(50);
    cr_assert_eq(test_conf_number(f.model, "topics"), 3, "the new model never came");
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(test_wait_ldagpu(pid), 128 + SIGKILL);
    snprintf(args, sizeof args, "topics '%s'", f.model);
    run_ok(args);
    cr_assert(!exists(exports), "killed before the exports were moved back: the test's window was missed");
    /* The next run into the folder brings them back and removes the old model. */
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", f.model);
    run_ok(args);
    char keys[1200];
    snprintf(keys, sizeof keys, "%s/keys.txt", exports);
    cr_assert(exists(keys), "the user's folder was lost");
    cr_assert_eq(test_count_entries(f.dir, "ldagpu-", NULL), 0, "the old folder is still there");
    fixture_free(&f);
}

/* A folder without a model gets its files one by one, model.conf last (no swap: it may be a
 * shell's current folder): killed before model.conf arrives, it holds no model, as before;
 * the next run needs --force to replace what was written, and leaves nothing of it. */
Test(model_folder, a_kill_while_a_new_folder_fills_leaves_no_model)
{
    fixture f = trained();
    char args[4096], log[1100], fresh[1100], held[1200];
    snprintf(fresh, sizeof fresh, "%s/fresh", f.dir);
    snprintf(log, sizeof log, "%s/run.log", f.dir);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 2 -q --device cpu -o '%s' --holdout 0.1", f.corpus, fresh);
    setenv("LDAGPU_RENAME_PAUSE_MS", "300", 1); /* model.conf comes two pauses after the last other file */
    pid_t pid = test_spawn_ldagpu(args, log);
    unsetenv("LDAGPU_RENAME_PAUSE_MS");
    snprintf(held, sizeof held, "%s/heldout.txt", fresh);
    test_wait_for_file(held, pid, log, 60);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    test_wait_ldagpu(pid);
    snprintf(args, sizeof args, "topics '%s'", fresh);
    test_expect_failure(args, 2, "model.conf");
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 -q --device cpu -o '%s'", f.corpus, fresh);
    test_expect_failure(args, 2, "holds an unfinished model");
    strcat(args, " --force");
    run_ok(args);
    cr_assert(!exists(held), "a file of the unfinished model was left: %s", held);
    snprintf(args, sizeof args, "topics '%s'", fresh);
    run_ok(args);
    fixture_free(&f);
}

/* -o . in an empty folder: the shell's current folder is the one that gets the model. */
Test(model_folder, the_current_folder_stays_the_model_folder)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir '%s/out' && cd '%s/out' && \"$LDAGPU_BIN\" train ../tiny.ldac -K 2 -n 1 -q "
             "--device cpu -o . && test -f model.conf && echo here 2>&1", dir, dir);
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert(status == 0 && strstr(out, "here"), "%s", out);
    free(out);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* ---- --resume: the folder's newest run ---- */

Test(model_folder, resume_continues_the_newer_run_not_the_older_model)
{
    fixture f = trained(); /* K = 2, 3 iterations */
    char args[4096], log[1100], ckpt[1200];
    snprintf(log, sizeof log, "%s/run.log", f.dir);
    snprintf(args, sizeof args,
             "train '%s' -K 3 -n 1000000 -e 0 --checkpoint-every 1 -j 1 --device cpu -o '%s' --force", f.corpus,
             f.model);
    setenv("LDAGPU_RENAME_PAUSE_MS", "200", 1); /* few iterations a second: killed before the old model's 3 */
    pid_t pid = test_spawn_ldagpu(args, log);
    unsetenv("LDAGPU_RENAME_PAUSE_MS");
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint/model.conf", f.model);
    test_wait_for_file(ckpt, pid, log, 60);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    test_wait_ldagpu(pid);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", f.model);
    cr_assert_lt(test_conf_number(ckpt, "iterations"), 3, "the test's window was missed");
    cr_assert_eq(test_conf_number(f.model, "topics"), 2, "the older model is still the folder's");
    snprintf(args, sizeof args, "train --resume '%s' -n 1 --device cpu", f.model);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "/checkpoint at iteration"), "the run's checkpoint was not the one resumed: %s", out);
    free(out);
    cr_assert_eq(test_conf_number(f.model, "topics"), 3, "resumed as the older model");
    fixture_free(&f);
}

/* The same in a folder of an ldagpu before run ids (tests/data/model-v1: K = 3, 6 iterations,
 * a checkpoint at 4). */
Test(model_folder, resume_continues_the_newer_run_in_an_older_folder)
{
    char *dir = test_tmpdir(), model[1100], args[4096], log[1100], ckpt[1200];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(args, sizeof args, "%s/tests/data/model-v1", test_root());
    copy_folder(args, model);
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(args, sizeof args,
             "train '%s/tests/data/v1-corpus.txt' -K 4 -n 1000000 -e 0 --checkpoint-every 1 -j 1 --device cpu -o '%s' "
             "--force", test_root(), model);
    setenv("LDAGPU_RENAME_PAUSE_MS", "200", 1); /* few iterations a second: killed before the old model's 6 */
    pid_t pid = test_spawn_ldagpu(args, log);
    unsetenv("LDAGPU_RENAME_PAUSE_MS");
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", model);
    for (int i = 0; i < 1200 && test_conf_number(ckpt, "topics") != 4; i++)
        sleep_ms(50); /* until the new run's first checkpoint replaces the old one */
    cr_assert_eq(kill(pid, SIGKILL), 0);
    test_wait_ldagpu(pid);
    cr_assert_eq(test_conf_number(ckpt, "topics"), 4, "the new run wrote no checkpoint");
    cr_assert_lt(test_conf_number(ckpt, "iterations"), 6, "the test's window was missed");
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", model);
    run_ok(args);
    cr_assert_eq(test_conf_number(model, "topics"), 4, "resumed as the older model");
    test_rmdir(dir);
    free(dir);
}

/* ---- signals before the first iteration ---- */

/* A corpus read from a named pipe: the signal comes while the read waits for more. */
static void signal_during_the_read(const char *model, const char *dir, int sig)
{
    char fifo[1100], args[4096], log[1100];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, "train '%s' --format text -K 3 -n 2 --device cpu -o '%s' --force", fifo, model);
    pid_t pid = test_spawn_ldagpu(args, log);
    int fd = -1; /* opened once ldagpu has opened its end: bounded, should it never do so */
    for (int i = 0; i < 600 && fd < 0; i++) {
        if ((fd = open(fifo, O_WRONLY | O_NONBLOCK)) < 0) {
            int status;
            cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "ldagpu ended before reading: %s", test_read_file(log));
            sleep_ms(50);
        }
    }
    cr_assert(fd >= 0, "ldagpu never opened %s", fifo);
    cr_assert_eq(fcntl(fd, F_SETFL, 0), 0);
    static const char text[] = "apple banana cherry grape lemon\nengine piston rotor valve wheel\n";
    for (int i = 0; i < 20; i++)
        cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    sleep_ms(200);
    cr_assert_eq(kill(pid, sig), 0);
    sleep_ms(200);
    for (int i = 0; i < 20; i++) /* the read goes on, unless it stopped at the signal */
        if (write(fd, text, sizeof text - 1) < 0)
            break;
    close(fd);
    int status = test_wait_ldagpu(pid);
    char *out = test_read_file(log);
    cr_assert_eq(status, 128 + sig, "exit status %d: %s", status, out);
    cr_assert(strstr(out, "before the first iteration"), "%s", out);
    free(out);
}

Test(model_folder, a_signal_during_the_read_leaves_the_folder_as_it_was)
{
    signal(SIGPIPE, SIG_IGN); /* the pipe's reader may be gone */
    fixture f = trained();
    char backup[1100], fresh[1100];
    snprintf(backup, sizeof backup, "%s/backup", f.dir);
    copy_folder(f.model, backup);
    signal_during_the_read(f.model, f.dir, SIGTERM);
    assert_same_folder(backup, f.model);
    /* A folder that was not there is not there after. */
    snprintf(fresh, sizeof fresh, "%s/fresh/model", f.dir);
    signal_during_the_read(fresh, f.dir, SIGINT);
    snprintf(fresh, sizeof fresh, "%s/fresh", f.dir);
    cr_assert(!exists(fresh), "%s was left behind", fresh);
    fixture_free(&f);
}

/* ---- the lock, and smaller items ---- */

Test(model_folder, a_second_run_into_the_folder_fails_at_once)
{
    fixture f = trained();
    char args[4096], log[1100];
    snprintf(log, sizeof log, "%s/run.log", f.dir);
    snprintf(args, sizeof args, "train --resume '%s' -n 1000000 -e 0 -j 1 --device cpu", f.model);
    pid_t pid = test_spawn_ldagpu(args, log);
    char *out = NULL;
    for (int i = 0; i < 600 && !(out && strstr(out, "resuming")); i++) {
        free(out);
        sleep_ms(50);
        out = test_read_file(log);
    }
    cr_assert(out && strstr(out, "resuming"), "the first run did not start: %s", out ? out : "");
    free(out);
    snprintf(args, sizeof args, "train '%s' -K 3 -n 1 --device cpu -o '%s' --force", f.corpus, f.model);
    int rc = test_run_ldagpu_within(args, 20, &out);
    cr_assert_eq(rc, 2, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "m is being written by another ldagpu run"), "%s", out);
    free(out);
    kill(pid, SIGKILL);
    test_wait_ldagpu(pid);
    fixture_free(&f);
}

Test(model_folder, an_empty_output_name_is_refused)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o ''", c);
    test_expect_failure(args, 2, "-o: an empty name is not a folder");
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* ulimit -f: the write fails (EFBIG) and says so; the model already there stays whole. */
Test(model_folder, a_file_size_limit_is_reported_and_the_model_kept)
{
    fixture f = trained();
    char backup[1100], cmd[4096], *big = NULL;
    cr_assert(asprintf(&big, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    snprintf(backup, sizeof backup, "%s/backup", f.dir);
    copy_folder(f.model, backup);
    snprintf(cmd, sizeof cmd, "ulimit -f 256 && exec \"$LDAGPU_BIN\" train '%s' -K 3 -n 1 -q --device cpu -o '%s' "
             "--force 2>&1", big, f.model);
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 1, "exit %d: %s", status, out);
    cr_assert(strstr(out, "File too large"), "%s", out);
    free(out);
    assert_same_folder(backup, f.model);
    cr_assert_eq(test_count_entries(f.dir, "ldagpu-", NULL), 0, "the new folder was left");
    free(big);
    fixture_free(&f);
}

/* ---- outputs never replace inputs ---- */

Test(model_folder, an_output_never_replaces_an_input)
{
    fixture f = trained();
    char backup[1100], corpus_copy[1100], args[4096];
    snprintf(backup, sizeof backup, "%s/backup", f.dir);
    copy_folder(f.model, backup);
    snprintf(corpus_copy, sizeof corpus_copy, "%s/corpus-before", f.dir);
    copy_folder(f.corpus, corpus_copy);
    snprintf(args, sizeof args, "infer '%s' '%s' -n 1 --device cpu -o '%s'", f.model, f.corpus, f.corpus);
    test_expect_failure(args, 2, "it is the corpus, which this command reads");
    cr_assert(test_same_bytes(f.corpus, corpus_copy), "the corpus was replaced");
    snprintf(args, sizeof args, "report '%s' -o '%s/model.conf'", f.model, f.model);
    test_expect_failure(args, 2, "it is a file of the model folder");
    snprintf(args, sizeof args, "export '%s' --output-topic-keys '%s/phi.npy'", f.model, f.model);
    test_expect_failure(args, 2, "it is a file of the model folder");
    snprintf(args, sizeof args, "infer '%s' '%s' -n 1 --device cpu -o '%s/vocab.txt'", f.model, f.corpus, f.model);
    test_expect_failure(args, 2, "it is a file of the model folder");
    assert_same_folder(backup, f.model);
    fixture_free(&f);
}

/* ---- the kill test, a few rounds (scripts/kill-test.sh: 200 by default) ---- */

Test(model_folder, killed_at_random_moments_the_folder_is_never_mixed)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "KILL_TEST_ROUNDS=12 sh '%s/scripts/kill-test.sh' 2>&1", test_root());
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert(strstr(out, "kill-test: 12 rounds"), "%s", out);
    free(out);
}
