/* test_bounded_input.c — input that is endless, bigger than it looks, or a stream (util/input.h,
 * util/gzlines.h): an endless line and a gzip bomb refused with their limits; a pipe, a FIFO
 * and /dev/stdin read once (detection from the head the reader then continues); a FIFO nobody
 * writes to stopped by the first SIGTERM; no cache written for a stream; a device named in
 * model.conf refused at once. Every wait is bounded, so a hang fails rather than blocks. The
 * one-line refusals (not text, declared sizes, configuration files) are rows of test_malformed.c. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "helpers.h"

/* Runs `sh -c script` with BIN set to the ldagpu binary and D to dir, killed after 20 s; its
 * status (137 when killed) and stdout+stderr in *out. */
static int shell_within(const char *dir, const char *script, char **out)
{
    const char *bin = getenv("LDAGPU_BIN");
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "BIN='%s' D='%s' timeout -s KILL 20 sh -c '%s' 2>&1", bin ? bin : "./ldagpu", dir,
                       script) > 0);
    int status;
    *out = test_shell(cmd, &status);
    free(cmd);
    return status;
}

/* shell_within, asserted to end with status and to say needle. */
static void expect_shell(const char *dir, const char *script, int status, const char *needle)
{
    char *out;
    int rc = shell_within(dir, script, &out);
    cr_assert_eq(rc, status, "exit %d (expected %d): %s", rc, status, out);
    cr_assert(strstr(out, needle), "'%s' not in: %s", needle, out);
    free(out);
}

/* A raw-text corpus of two clear topics, 40 lines: DIR/c.txt. */
static void write_text_corpus(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/c.txt", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    for (int d = 0; d < 40; d++)
        fputs(d % 2 ? "engine piston rotor valve engine wheel\n" : "apple banana cherry grape apple mango\n", f);
    fclose(f);
}

Test(bounded, endless_line_is_refused_with_its_limit)
{
    char *dir = test_tmpdir();
    /* A line of 100 MB (endless as far as the limit goes; a finite one, so that a reader without the
     * limit grows to 128 MiB, not until memory runs out) */
    expect_shell(dir, "yes abcdefghij | tr -d \"\\n\" | head -c 100000000 | LDAGPU_MEMORY_LIMIT=64M \"$BIN\" train "
                      "/dev/stdin -K 2 -n 1 --device cpu -o \"$D/out\"", 2,
                 "/dev/stdin:1: a line longer than 16 MiB, the longest ldagpu reads (a quarter of the 64 MiB of memory "
                 "available)");
    test_rmdir(dir);
    free(dir);
}

Test(bounded, gzip_bomb_is_refused_with_its_limit)
{
    /* 32 MiB of blank lines in a few kilobytes; a budget of 1 MiB lets a gzip file inflate to 16 MiB. */
    char *dir = test_tmpdir(), path[4096], args[8192], *out;
    snprintf(path, sizeof path, "%s/bomb.txt.gz", dir);
    gzFile g = gzopen(path, "wb9");
    cr_assert(g);
    static char lines[1 << 16];
    memset(lines, '\n', sizeof lines);
    for (int i = 0; i < 512; i++)
        cr_assert_eq(gzwrite(g, lines, sizeof lines), (int)sizeof lines);
    gzclose(g);
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "1M", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/out'", path, dir);
    int rc = test_run_ldagpu_within(args, 20, &out);
    cr_assert_eq(rc, 2, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "bomb.txt.gz:") && strstr(out, ": inflates to more than 16 MiB, the most ldagpu reads from "
                                                         "one gzip file (16 times the 1 MiB of memory available)"),
              "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

Test(bounded, pipes_and_fifos_are_read_once)
{
    char *dir = test_tmpdir();
    char *ldac = test_tiny_corpus(dir);
    write_text_corpus(dir);
    /* LDA-C through a pipe: detected from the head, read on from it */
    expect_shell(dir, "cat \"$D/tiny.ldac\" | \"$BIN\" train /dev/stdin --vocab \"$D/tiny.vocab\" -K 2 -n 1 --device cpu "
                      "-o \"$D/m1\"", 0, "read /dev/stdin (ldac): 64 documents");
    /* raw text through a FIFO whose writer starts after ldagpu */
    expect_shell(dir, "mkfifo \"$D/fifo\" || exit 9; { sleep 0.2; timeout 10 dd if=\"$D/c.txt\" of=\"$D/fifo\" "
                      "status=none; } > /dev/null 2>&1 & \"$BIN\" train \"$D/fifo\" --min-df 1 --max-df 1 -K 2 -n 1 "
                      "--device cpu -o \"$D/m2\"", 0, "fifo (text): 40 documents");
    /* format from a pipe: no cache key (a stream has no size or time), the corpus all the same */
    expect_shell(dir, "cat \"$D/c.txt\" | \"$BIN\" format /dev/stdin --min-df 1 --max-df 1 -o \"$D/c.ldab\"", 0,
                 "40 documents");
    free(ldac);
    test_rmdir(dir);
    free(dir);
}

/* A model of named documents reads new ones in its format when none is given: from a pipe too,
 * looked at once (the format from the head the reader then continues). */
Test(bounded, a_named_model_reads_new_documents_from_a_pipe)
{
    char *dir = test_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s/c.tsv", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    for (int d = 0; d < 40; d++)
        fprintf(f, "doc%02d\t%s", d, d % 2 ? "engine piston rotor valve engine wheel\n" : "apple banana cherry grape\n");
    fclose(f);
    expect_shell(dir, "\"$BIN\" train \"$D/c.tsv\" --format named --min-df 1 --max-df 1 -K 2 -n 1 -q --device cpu "
                      "-o \"$D/m\"", 0, "");
    expect_shell(dir, "printf \"new-a\\tapple banana\\nnew-b\\tengine rotor\\n\" | \"$BIN\" infer \"$D/m\" /dev/stdin "
                      "--device cpu", 0, "\n1\tnew-b\t");
    test_rmdir(dir);
    free(dir);
}

Test(bounded, no_cache_is_written_for_a_stream)
{
    char *dir = test_tmpdir();
    write_text_corpus(dir);
    expect_shell(dir, "cat \"$D/c.txt\" | \"$BIN\" train /dev/stdin --cache auto --min-df 1 --max-df 1 -K 2 -n 1 "
                      "--device cpu -o \"$D/m\"", 0, "cache /dev/stdin.cache.ldab not used: the corpus is not a regular file");
    struct stat sb;
    cr_assert_neq(stat("/dev/stdin.cache.ldab", &sb), 0, "/dev/stdin.cache.ldab was written");
    test_rmdir(dir);
    free(dir);
}

Test(bounded, a_fifo_nobody_writes_to_stops_at_the_first_sigterm)
{
    char *dir = test_tmpdir(), fifo[4096], log[4096], args[8192];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/out'", fifo, dir);
    pid_t pid = test_spawn_ldagpu(args, log);
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 25; i++) /* half a second: it is waiting by then */
        nanosleep(&pause, NULL);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int status = -1, ended = 0;
    for (int i = 0; i < 250 && !ended; i++) { /* 5 s at most */
        ended = waitpid(pid, &status, WNOHANG) == pid;
        if (!ended)
            nanosleep(&pause, NULL);
    }
    if (!ended) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    char *out = test_read_file(log);
    cr_assert(ended, "still waiting for the FIFO 5 s after SIGTERM: %s", out);
    /* train's answer to a signal before the first iteration: nothing written, 128 + SIGTERM */
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM, "status %d: %s", status, out);
    cr_assert(strstr(out, "stopped by SIGTERM before the first iteration"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

/* Replaces the line starting with `key = ` in DIR/m/model.conf by `key = value` (or adds it), and
 * removes the folder's manifest.txt, which would refuse the edited file first (model/manifest.h):
 * the folder as an older ldagpu wrote it. */
static void set_conf(const char *dir, const char *key, const char *value)
{
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "f='%s/m/model.conf'; grep -v '^%s = ' \"$f\" > \"$f.new\"; echo '%s = %s' >> \"$f.new\"; "
             "mv \"$f.new\" \"$f\" && rm -f '%s/m/manifest.txt'", dir, key, key, value, dir);
    free(test_shell(cmd, &status));
    cr_assert_eq(status, 0);
}

Test(bounded, a_device_named_in_model_conf_is_refused_at_once)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[8192], *out;
    snprintf(args, sizeof args, "train '%s' -K 2 -n 2 -q --device cpu -o '%s/m'", tiny, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    set_conf(dir, "corpus", "/dev/zero");
    static const char *const commands[] = {"topics '%s/m' --coherence", "train --resume '%s/m' -n 1 --device cpu"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, commands[i], dir);
        int rc = test_run_ldagpu_within(args, 10, &out);
        cr_assert_eq(rc, 2, "ldagpu %s: exit %d: %s", args, rc, out);
        cr_assert(strstr(out, "/dev/zero: not a regular file (a device); model.conf names it as the training corpus"),
                  "ldagpu %s: %s", args, out);
        free(out);
    }
    snprintf(args, sizeof args, "report '%s/m' -o '%s/r.html'", dir, dir); /* the page without the corpus */
    int rc = test_run_ldagpu_within(args, 10, &out);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "/dev/zero: not a regular file"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s", tiny);
    set_conf(dir, "corpus", args);
    set_conf(dir, "vocab_file", "/dev/urandom");
    snprintf(args, sizeof args, "topics '%s/m' --coherence", dir);
    rc = test_run_ldagpu_within(args, 10, &out);
    cr_assert_eq(rc, 2, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "/dev/urandom: not a regular file (a device); model.conf names it as the vocabulary file"),
              "%s", out);
    free(out);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}

Test(bounded, a_terminal_as_stdin_is_refused_at_once)
{
    int status;
    free(test_shell("command -v script", &status));
    if (status != 0)
        cr_skip_test("no script(1) to give ldagpu a terminal");
    char *dir = test_tmpdir();
    /* script(1) runs it on a pseudo-terminal: stdin is a terminal nobody types into */
    expect_shell(dir, "script -qec \"\\\"$BIN\\\" train /dev/stdin -o \\\"$D/out\\\"\" /dev/null < /dev/null", 2,
                 "/dev/stdin is a terminal: give a file, or pipe the input in");
    test_rmdir(dir);
    free(dir);
}
