/* test_output_paths.c — what ldagpu writes never replaces what is not its own (a device, a
 * named pipe, a symbolic link), a model folder that cannot be written is refused before any
 * work, and files named like temporary ones are left alone. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

typedef struct {
    char *dir, *corpus, model[1024];
} trained;

/* A small model trained on the tiny corpus. */
static trained train_tiny(void)
{
    trained t = {test_tmpdir(), NULL, ""};
    t.corpus = test_tiny_corpus(t.dir);
    snprintf(t.model, sizeof t.model, "%s/m", t.dir);
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 2 -n 3 -q --device cpu -o '%s'", t.corpus, t.model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    return t;
}

static void trained_free(trained *t)
{
    test_rmdir(t->dir);
    free(t->dir);
    free(t->corpus);
}

static mode_t file_type(const char *path)
{
    struct stat sb;
    cr_assert_eq(lstat(path, &sb), 0, "%s is gone", path);
    return sb.st_mode & S_IFMT;
}

Test(output_paths, a_named_pipe_is_written_through_not_replaced)
{
    trained t = train_tiny();
    char fifo[1100], args[4096];
    snprintf(fifo, sizeof fifo, "%s/pipe", t.dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* Our end is open first, so ldagpu's open does not wait; θ of 64 documents fits the
     * pipe's buffer. */
    int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    cr_assert(fd >= 0);
    snprintf(args, sizeof args, "infer '%s' '%s' -n 2 -o '%s' --device cpu", t.model, t.corpus, fifo);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    cr_assert(n > 0, "nothing came through the pipe");
    buf[n] = '\0';
    cr_assert(strncmp(buf, "document\ttopic0\ttopic1\n0\t", 24) == 0, "%s", buf);
    cr_assert_eq(file_type(fifo), S_IFIFO, "the named pipe was replaced");
    trained_free(&t);
}

Test(output_paths, a_device_is_written_in_place_and_its_errors_reported)
{
    trained t = train_tiny();
    /* As root, a copy of /dev/full in our folder: a failure here must not cost the machine
     * its /dev/full. Otherwise /dev/full itself, which only root could replace. */
    char dev[1100], args[4096];
    snprintf(dev, sizeof dev, "%s/full", t.dir);
    if (geteuid() != 0 || mknod(dev, S_IFCHR | 0666, makedev(1, 7)) != 0)
        snprintf(dev, sizeof dev, "/dev/full");
    snprintf(args, sizeof args, "infer '%s' '%s' -n 2 -o '%s' --device cpu", t.model, t.corpus, dev);
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "No space left on device"), "%s", out);
    free(out);
    cr_assert_eq(file_type(dev), S_IFCHR, "the device %s was replaced", dev);
    trained_free(&t);
}

Test(output_paths, a_symbolic_link_is_followed_and_kept)
{
    trained t = train_tiny();
    char target[1100], link[1100], args[4096];
    snprintf(target, sizeof target, "%s/theta.tsv", t.dir);
    snprintf(link, sizeof link, "%s/link.tsv", t.dir);
    free(test_write_file(t.dir, "theta.tsv", "old\n"));
    cr_assert_eq(symlink("theta.tsv", link), 0);
    snprintf(args, sizeof args, "infer '%s' '%s' -n 2 -o '%s' --device cpu", t.model, t.corpus, link);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    cr_assert_eq(file_type(link), S_IFLNK, "the link was replaced by a file");
    char *text = test_read_file(target);
    cr_assert(text && strncmp(text, "document\t", 9) == 0, "the link's target was not written: %s", text);
    free(text);
    /* A link to nothing is refused rather than guessed at. */
    char dangling[1100];
    snprintf(dangling, sizeof dangling, "%s/dangling.tsv", t.dir);
    cr_assert_eq(symlink("no/such/file", dangling), 0);
    snprintf(args, sizeof args, "infer '%s' '%s' -n 2 -o '%s' --device cpu", t.model, t.corpus, dangling);
    test_expect_failure(args, 1, "a symbolic link to a missing file");
    cr_assert_eq(file_type(dangling), S_IFLNK);
    trained_free(&t);
}

/* One line, before the corpus is even read (which would print a line of its own). */
Test(output_paths, train_refuses_an_output_it_cannot_write_before_any_work)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    char *file = test_write_file(dir, "afile", "x\n");
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s'", c, file);
    test_expect_failure(args, 2, "it exists and is not a folder");
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/sub/model'", c, file);
    test_expect_failure(args, 1, "Not a directory");
    char model[1100];
    snprintf(model, sizeof model, "%s/m", dir);
    cr_assert_eq(mkdir(model, 0777), 0);
    snprintf(args, sizeof args, "%s/phi.npy", model);
    cr_assert_eq(mkdir(args, 0777), 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s'", c, model);
    test_expect_failure(args, 2, "phi.npy is a folder");
    if (geteuid() != 0) { /* root may write anywhere */
        char locked[1100];
        snprintf(locked, sizeof locked, "%s/locked", dir);
        cr_assert_eq(mkdir(locked, 0555), 0);
        snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", c, locked);
        test_expect_failure(args, 1, "Permission denied");
    }
    free(file);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* ldagpu writes no temporary file into a model folder (it writes a new folder beside it), so
 * a file there named like one ("NAME.tmp-PID", its process gone) is the user's: kept, and
 * carried into the new folder, as a file of a live process is. */
Test(output_paths, files_named_like_temporaries_are_the_users)
{
    trained t = train_tiny();
    char stray[1200], live[1200], args[4096];
    pid_t dead = test_gone_pid();
    snprintf(stray, sizeof stray, "%s/phi.npy.tmp-%ld", t.model, (long)dead);
    snprintf(live, sizeof live, "%s/z.npy.tmp-%ld", t.model, (long)getpid());
    FILE *f;
    cr_assert((f = fopen(stray, "w")) && fputs("mine\n", f) >= 0 && fclose(f) == 0);
    cr_assert((f = fopen(live, "w")) && fclose(f) == 0);
    snprintf(args, sizeof args, "train --resume '%s' -n 1 -q --device cpu", t.model);
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    char *text = test_read_file(stray);
    cr_assert(text && strcmp(text, "mine\n") == 0, "%s was removed or changed by a resumed run", stray);
    free(text);
    struct stat sb;
    cr_assert_eq(lstat(live, &sb), 0, "the file of a process still running was removed");
    trained_free(&t);
}
