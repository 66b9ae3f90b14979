/* test_limits.c — what a file declares is checked before it is expanded: counts that would
 * wrap the 32-bit counters, a document longer than the layout holds, tokens beyond the memory
 * available, and a run (K) beyond it. Each case is refused at once, with one line; the
 * commands are killed after a few seconds, which is what they took before these checks
 * (minutes, and gigabytes). LDAGPU_MEMORY_LIMIT stands in for a small machine. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* Runs args (killed after 20 s) and asserts the status and one line containing needle. */
static void expect_refused(const char *args, int status, const char *needle)
{
    char *out = NULL;
    int rc = test_run_ldagpu_within(args, 20, &out);
    cr_assert_eq(rc, status, "ldagpu %s: exit %d (expected %d; 137: still running after 20 s), output: %s", args,
                 rc, status, out);
    cr_assert(strstr(out, needle), "ldagpu %s: '%s' not in: %s", args, needle, out);
    cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
    free(out);
}

/* The audit's 15-byte LDA-C line: 3·10^9 tokens of one word in one document. */
Test(limits, a_document_beyond_the_layouts_limit_is_refused_from_its_line)
{
    char *dir = test_tmpdir(), args[4096];
    char *c = test_write_file(dir, "big.ldac", "1 0:3000000000\n");
    free(test_write_file(dir, "big.vocab", "word\n"));
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", c, dir);
    expect_refused(args, 2, "big.ldac:1: a document of more than 134217727 tokens");
    /* UCI, a document's triples apart: found once they are sorted, still before expanding. */
    char *u = test_write_file(dir, "docword.apart.txt", "2\n2\n3\n1 1 100000000\n2 1 1\n1 2 100000000\n");
    free(test_write_file(dir, "vocab.apart.txt", "one\ntwo\n"));
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", u, dir);
    expect_refused(args, 2, "docword.apart.txt: document 1 has 200000000 tokens");
    free(u);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* 2^32 tokens or more in all: the counts would wrap. Told from the counts alone (a UCI file
 * lists them all before a token is expanded): no 2^32-token file needed. */
static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A binary corpus of one document of 2^32 + 1 tokens (a sparse file of 16 GiB, its size what its
 * header declares): tokens are counted in 64 bits on the host, so it passes the corpus's limits
 * and is refused only by the memory it would take (here a small machine's). */
Test(limits, a_corpus_past_2_to_the_32_tokens_meets_only_the_memory_check)
{
    char *dir = test_tmpdir(), path[1024], args[4096];
    const uint64_t tokens = (1ull << 32) + 1, docs = 1;
    unsigned char h[64] = "LDAGPUCB";
    put_le(h + 8, 1, 4);       /* version */
    put_le(h + 12, 64, 4);     /* header bytes */
    put_le(h + 16, docs, 8);   /* input documents */
    put_le(h + 24, docs, 8);   /* documents */
    put_le(h + 32, tokens, 8); /* tokens */
    put_le(h + 40, 1, 4);      /* words */
    put_le(h + 44, 4, 4);      /* made as binary */
    put_le(h + 48, 2, 8);      /* vocabulary bytes: "a" */
    put_le(h + 56, 0, 8);      /* note */
    unsigned char offsets[16] = {0}, index[8] = {0};
    put_le(offsets + 8, tokens, 8);
    snprintf(path, sizeof path, "%s/big.ldab", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(h, 1, sizeof h, f), sizeof h);
    cr_assert_eq(fwrite(offsets, 1, sizeof offsets, f), sizeof offsets);
    cr_assert_eq(fwrite(index, 1, sizeof index, f), sizeof index);
    cr_assert_eq(ftruncate(fileno(f), (off_t)(sizeof h + sizeof offsets + sizeof index + 4 * tokens + 2 + 4)), 0);
    fclose(f);
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "1G", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", path, dir);
    expect_refused(args, 1, "big.ldab: not enough memory: the corpus declares 4294967297 tokens");
    test_rmdir(dir);
    free(dir);
}

Test(limits, tokens_beyond_the_memory_available_are_refused_before_expanding)
{
    char *dir = test_tmpdir(), args[4096];
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "100M", 1), 0);
    char *c = test_write_file(dir, "mem.ldac", "1 0:30000000\n1 0:30000000\n");
    free(test_write_file(dir, "mem.vocab", "word\n"));
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", c, dir);
    expect_refused(args, 1, "mem.ldac:1: not enough memory: the corpus declares 30000000 tokens by this line, "
                            "114 MiB to hold them, and 100 MiB are available");
    char *u = test_write_file(dir, "docword.mem.txt", "2\n1\n2\n1 1 20000000\n2 1 20000000\n");
    free(test_write_file(dir, "vocab.mem.txt", "word\n"));
    snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s/m'", u, dir);
    expect_refused(args, 1, "docword.mem.txt: not enough memory: the corpus declares 40000000 tokens");
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "lots", 1), 0);
    expect_refused(args, 2, "LDAGPU_MEMORY_LIMIT: expected a number of bytes");
    free(u);
    free(c);
    test_rmdir(dir);
    free(dir);
}

/* K = 2^20 on the tiny corpus: 1.2 GiB of θ, φ, their counts and the saved model on the CPU (θ
 * saved from two chunks of rows, one fetched while the other is kept: theta_fetch.h). */
Test(limits, a_run_beyond_the_memory_available_is_refused_before_allocating)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096];
    cr_assert_eq(setenv("LDAGPU_MEMORY_LIMIT", "200M", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 1048576 -n 1 -e 0 --device cpu -o '%s/m'", c, dir);
    char *out = NULL;
    int rc = test_run_ldagpu_within(args, 60, &out);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "ldagpu train: not enough memory for this run: it needs 1.2 GiB (K=1048576, 64 "
                          "documents, V=12, training on the CPU), and 200 MiB are available"),
              "%s", out);
    free(out);
    free(c);
    test_rmdir(dir);
    free(dir);
}
