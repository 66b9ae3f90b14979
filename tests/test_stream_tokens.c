/* test_stream_tokens.c — train's --stream-tokens on the CPU: the option's values, and the runs
 * that cannot stream refused with one line before any input is read (backend/stream_plan.h,
 * lda_stream_refusal_params). The streamed run itself is tested on a GPU (test_gpu_stream.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "helpers.h"

/* A corpus that does not exist: a refusal must come before the corpus is read. */
#define NO_CORPUS "/nonexistent/corpus.txt"

Test(stream_tokens, a_value_other_than_auto_on_off_is_refused)
{
    test_expect_failure("train " NO_CORPUS " -K 8 --stream-tokens sometimes", 2, "auto|on|off");
}

Test(stream_tokens, on_is_refused_where_the_run_cannot_stream)
{
    const struct {
        const char *args, *says;
    } cases[] = {
        {"--device cpu", "--stream-tokens on: tokens are streamed through a GPU, and this run trains on the CPU"},
        {"--model uncollapsed", "--stream-tokens on: only --model collapsed --sampler sparse streams its tokens"},
        {"--model collapsed --sampler butterfly", "only --model collapsed --sampler sparse"},
        {"--model theta-collapsed --sampler sparse", "only --model collapsed --sampler sparse"},
        {"--model collapsed -K 70000", "--stream-tokens on: tokens are streamed at K <= 65535 only"},
        {"--model collapsed --refresh 2", "--stream-tokens on: tokens are streamed with --refresh 1 only"},
        {"--model collapsed --holdout 0.1", "--stream-tokens on: held-out scoring (--holdout)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[1024];
        snprintf(args, sizeof args, "train " NO_CORPUS " -K 8 %s --stream-tokens on", cases[i].args);
        test_expect_failure(args, 2, cases[i].says);
    }
}

/* auto and off train on the CPU as before; on, where the run has no GPU, is refused. */
Test(stream_tokens, auto_and_off_train_on_the_cpu_on_is_refused_there)
{
    char *dir = test_tmpdir(), *c = test_tiny_corpus(dir), args[4096], *out = NULL;
    const char *modes[] = {"auto", "off"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "train '%s' -K 4 -n 2 --model collapsed --sampler sparse --device cpu "
                 "--stream-tokens %s -q -o '%s/m%zu'", c, modes[i], dir, i);
        const int rc = test_run_ldagpu(args, &out);
        cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
        cr_assert(!strstr(out, "streamed"), "%s", out);
        free(out);
    }
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0) { /* --device auto found the CPU */
        snprintf(args, sizeof args, "train '%s' -K 4 -n 2 --model collapsed --stream-tokens on -o '%s/m'", c, dir);
        const int rc = test_run_ldagpu(args, &out);
        cr_assert_eq(rc, 2, "ldagpu %s: exit %d: %s", args, rc, out);
        cr_assert(strstr(out, "ldagpu train: --stream-tokens on: tokens are streamed through a GPU, and this run "
                              "trains on the CPU\n"), "%s", out);
        free(out);
    }
    test_rmdir(dir);
    free(dir);
    free(c);
}
