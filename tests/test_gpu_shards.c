/* test_gpu_shards.c — a CUDA run split over shards (backend_sharded.c with the CUDA backend's
 * steps, backend_cuda_shard.cu) trains the model one GPU trains, byte for byte: on one GPU
 * through the test switch LDAGPU_SHARDS (every shard on the one device, counts summed by peer
 * copies), and with --gpus 2 on two GPUs (NCCL). The device all-reduce sums exactly. The CPU's
 * shards are tested in test_shards.c. Every test skips without the GPUs it needs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/rng.h"
#include "helpers.h"

#ifdef LDA_HAVE_CUDA
#include "backend/cuda_testing.h"

static int gpus_here(void)
{
    char why[256];
    return lda_cuda_device_count(why, sizeof why);
}

static void require_gpus(int n)
{
    if (gpus_here() < n)
        cr_skip_test("fewer than %d GPU%s here (%d)", n, n == 1 ? "" : "s", gpus_here());
}

/* The device all-reduce of `ranks` arrays of random integers (their sums wrap modulo 2^32)
 * gives every rank the host's sum. */
static void allreduce_sums_exactly(uint32_t ranks, const int *devices, int expect_nccl)
{
    enum { COUNT = 100003 };
    uint32_t *in[4], *out[4], *sum = calloc(COUNT, sizeof *sum);
    for (uint32_t g = 0; g < ranks; g++) {
        in[g] = malloc(COUNT * sizeof **in);
        out[g] = malloc(COUNT * sizeof **out);
        for (size_t i = 0; i < COUNT; i++) {
            in[g][i] = lda_rng_once(11, LDA_RNG_TEST, g, i);
            sum[i] += in[g][i];
        }
    }
    lda_error err = {0};
    int used_nccl = -1;
    cr_assert_eq(lda_cuda_allreduce(ranks, devices, (const uint32_t *const *)in, out, COUNT, &used_nccl, &err), 0,
                 "%s", err.msg);
    if (expect_nccl >= 0)
        cr_assert_eq(used_nccl, expect_nccl, "NCCL used: %d, expected %d", used_nccl, expect_nccl);
    for (uint32_t g = 0; g < ranks; g++) {
        cr_assert_arr_eq(out[g], sum, COUNT * sizeof *sum, "rank %u's sum differs", g);
        free(in[g]);
        free(out[g]);
    }
    free(sum);
}

Test(gpu_shards, allreduce_on_one_device)
{
    require_gpus(1);
    const int one[1] = {0}, shared[3] = {0, 0, 0};
    allreduce_sums_exactly(1, one, -1);    /* NCCL with one rank where it is built in */
    allreduce_sums_exactly(3, shared, 0);  /* one device thrice: NCCL refuses that, peer copies */
}

Test(gpu_shards, allreduce_on_two_devices)
{
    require_gpus(2);
    const int two[2] = {0, 1};
    allreduce_sums_exactly(2, two, -1);
}

/* 1, 2 and 3 shards, each a CUDA backend on the one GPU: the same model files and log figures,
 * held-out score included. Pieces of 40 tokens make documents that straddle the shards. A split
 * run's log says `says` where given (else the runs are quiet). */
static void shards_on_one_gpu_saying(const char *options, const char *says)
{
    require_gpus(1);
    char *dir = test_tmpdir(), *c = NULL, args[8192], *out = NULL;
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    for (uint32_t n = 1; n <= 3; n++) {
        snprintf(args, sizeof args,
                 "train '%s' -n 4 -e 2 -s 7 %s --piece-length 40 --optimize-interval 2 --optimize-mode every --optimize-burn-in 1 "
                 "--holdout 0.05 --device cuda %s -o '%s/m%u'",
                 c, options, says ? "" : "-q", dir, n);
        char shards[16];
        snprintf(shards, sizeof shards, "%u", n);
        cr_assert_eq(setenv("LDAGPU_SHARDS", shards, 1), 0);
        int rc = test_run_ldagpu(args, &out);
        unsetenv("LDAGPU_SHARDS");
        cr_assert_eq(rc, 0, "LDAGPU_SHARDS=%u ldagpu %s: exit %d: %s", n, args, rc, out);
        if (n > 1 && says)
            cr_assert(strstr(out, says), "LDAGPU_SHARDS=%u: the log does not say %s: %s", n, says, out);
        free(out);
    }
    test_assert_runs_same_model(dir, "m", 1, 3);
    test_rmdir(dir);
    free(dir);
    free(c);
}

static void shards_on_one_gpu(const char *options)
{
    shards_on_one_gpu_saying(options, NULL);
}

Test(gpu_shards, one_gpu_uncollapsed, .timeout = 120) { shards_on_one_gpu("-K 32 --model uncollapsed --refresh 2"); }
Test(gpu_shards, one_gpu_mean_for_mode, .timeout = 120) { shards_on_one_gpu("-K 32 --model mean-for-mode"); }
Test(gpu_shards, one_gpu_theta_collapsed, .timeout = 120)
{
    shards_on_one_gpu("-K 32 --model theta-collapsed --sampler butterfly --refresh 2");
}
Test(gpu_shards, one_gpu_collapsed, .timeout = 120) { shards_on_one_gpu("-K 32 --model collapsed --sampler butterfly --refresh 3"); }
Test(gpu_shards, one_gpu_phi_mean_double, .timeout = 120)
{
    shards_on_one_gpu("-K 32 --model phi-mean --precision double");
}
Test(gpu_shards, one_gpu_sparse, .timeout = 120)
{
    shards_on_one_gpu("-K 100 --model collapsed --sampler sparse --refresh 2");
}
/* The shards hold the whole layout's warps longest first, so each shard's own layout would
 * choose its own compilation of the sparse draw by the share of its long lists (zplan.h): the
 * first the long lists', the last the short lists'. The whole layout's choice is given to every
 * shard (params.sparse_long_lists), so three shards train one shard's model. The corpus: log-normal
 * lengths, a fifth of its tokens or more in documents whose lists may reach K = 1024 topics. */
Test(gpu_shards, one_gpu_sparse_long_lists, .timeout = 180)
{
    require_gpus(1);
    char *dir = test_tmpdir(), args[8192], *out = NULL;
    snprintf(args, sizeof args,
             "generate -o '%s/long.ldab' --docs 600 --mean-length 300 --lengths lognormal --length-sigma 1.2 "
             "--vocab-size 3000 -K 50 -s 3",
             dir);
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
    for (uint32_t n = 1; n <= 3; n++) {
        snprintf(args, sizeof args,
                 "train '%s/long.ldab' -K 1024 -n 3 -e 3 -s 7 --model collapsed --sampler sparse --device cuda "
                 "-o '%s/m%u'",
                 dir, dir, n);
        char shards[16];
        snprintf(shards, sizeof shards, "%u", n);
        cr_assert_eq(setenv("LDAGPU_SHARDS", shards, 1), 0);
        rc = test_run_ldagpu(args, &out);
        unsetenv("LDAGPU_SHARDS");
        cr_assert_eq(rc, 0, "LDAGPU_SHARDS=%u ldagpu %s: exit %d: %s", n, args, rc, out);
        if (n == 1)
            cr_assert(strstr(out, "(long lists"), "the whole layout did not take the long lists' form: %s", out);
        free(out);
    }
    test_assert_runs_same_model(dir, "m", 1, 3);
    test_rmdir(dir);
    free(dir);
}

/* K = 2048: the evaluation's one-warp-a-token kernel, and the split kernel. */
Test(gpu_shards, one_gpu_large_k, .timeout = 120) { shards_on_one_gpu("-K 2048 --model uncollapsed"); }

/* --gpus 2 .. most trains the model one GPU trains, byte for byte; its log says `says` where given. */
static void gpus_equal_one_saying(const char *model, const char *says, int most)
{
    require_gpus(most);
    char *dir = test_tmpdir(), *c = NULL, args[8192], *out = NULL;
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    for (int gpus = 1; gpus <= most; gpus++) {
        snprintf(args, sizeof args,
                 "train '%s' -K 32 -n 4 -e 2 -s 7 %s --piece-length 40 --refresh 2 --optimize-interval 2 --optimize-mode every "
                 "--optimize-burn-in 1 --holdout 0.05 --gpus %d -o '%s/g%d'",
                 c, model, gpus, dir, gpus);
        int rc = test_run_ldagpu(args, &out);
        cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
        char shards[32];
        snprintf(shards, sizeof shards, "%d shards (", gpus);
        if (gpus > 1)
            cr_assert(strstr(out, shards) && strstr(out, "summed by NCCL") && (!says || strstr(out, says)),
                      "--gpus %d: not split over NCCL%s%s: %s", gpus, says ? " " : "", says ? says : "", out);
        free(out);
    }
    test_assert_runs_same_model(dir, "g", 1, (unsigned)most);
    test_rmdir(dir);
    free(dir);
    free(c);
}

static void two_gpus_equal_one(const char *model)
{
    gpus_equal_one_saying(model, NULL, 2);
}

/* LDAGPU_SHARD_SPLIT=memory: 2 and 3 shards on the one GPU, and --gpus 2, 3, 4 where there are as many, split
 * by the CUDA backend's sizing of each shard (backend/shards.h), train the model one GPU trains,
 * byte for byte. */
static void split_by_memory_equals_one_gpu(const char *model)
{
    static const char *const says = "ldagpu: shards split by memory";
    char options[256];
    snprintf(options, sizeof options, "-K 32 --refresh 2 %s", model);
    cr_assert_eq(setenv("LDAGPU_SHARD_SPLIT", "memory", 1), 0);
    shards_on_one_gpu_saying(options, says);
    if (gpus_here() >= 2) /* -K 32 --refresh 2 its own */
        gpus_equal_one_saying(model, says, gpus_here() < 4 ? gpus_here() : 4);
    unsetenv("LDAGPU_SHARD_SPLIT");
}

Test(gpu_shards, split_by_memory_uncollapsed, .timeout = 240) { split_by_memory_equals_one_gpu("--model uncollapsed"); }
Test(gpu_shards, split_by_memory_collapsed_sparse, .timeout = 240)
{
    split_by_memory_equals_one_gpu("--model collapsed --sampler sparse");
}

Test(gpu_shards, two_gpus_equal_one_uncollapsed) { two_gpus_equal_one("--model uncollapsed"); }
Test(gpu_shards, two_gpus_equal_one_mean_for_mode) { two_gpus_equal_one("--model mean-for-mode"); }
Test(gpu_shards, two_gpus_equal_one_theta_collapsed) { two_gpus_equal_one("--model theta-collapsed --sampler butterfly"); }
Test(gpu_shards, two_gpus_equal_one_collapsed) { two_gpus_equal_one("--model collapsed --sampler butterfly"); }
Test(gpu_shards, two_gpus_equal_one_sparse) { two_gpus_equal_one("--model collapsed --sampler sparse"); }

/* mpirun -np 2 trains the model one GPU trains, byte for byte: on one GPU the two processes share
 * it (counts summed through host copies and MPI), on two each has its own (NCCL over MPI). */
static void processes_equal_one_gpu(const char *model)
{
    require_gpus(1);
    char *dir = test_tmpdir(), *c = NULL, args[8192], *out = NULL;
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    const char *common = "-K 32 -n 4 -e 2 -s 7 --piece-length 40 --refresh 2 --optimize-interval 2 --optimize-mode every "
                         "--optimize-burn-in 1 --holdout 0.05 --device cuda";
    snprintf(args, sizeof args, "train '%s' %s %s -q -o '%s/g1'", c, common, model, dir);
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
    snprintf(args, sizeof args, "train '%s' %s %s -o '%s/g2'", c, common, model, dir);
    out = test_mpirun_ldagpu(2, args);
    cr_assert(strstr(out, "2 MPI processes ("), "not split over processes: %s", out);
    cr_assert(strstr(out, gpus_here() >= 2 ? "summed by NCCL" : "summed by MPI (host copies)"), "%s", out);
    free(out);
    test_assert_runs_same_model(dir, "g", 1, 2);
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(gpu_shards, mpirun_equals_one_gpu_uncollapsed, .timeout = 120)
{
    processes_equal_one_gpu("--model uncollapsed");
}
Test(gpu_shards, mpirun_equals_one_gpu_collapsed_sparse, .timeout = 120)
{
    processes_equal_one_gpu("--model collapsed --sampler sparse");
}

/* More GPUs than the machine has: one line, exit 2, before anything is read. */
Test(gpu_shards, more_gpus_than_there_are)
{
    require_gpus(1);
    char *dir = test_tmpdir(), *c = NULL, args[8192], expect[128];
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    const int n = gpus_here() + 1;
    snprintf(args, sizeof args, "train '%s' -K 8 -n 1 --gpus %d -o '%s/m'", c, n, dir);
    snprintf(expect, sizeof expect, "--gpus %d: this machine has %d CUDA device", n, gpus_here());
    test_expect_failure(args, 2, expect);
    test_rmdir(dir);
    free(dir);
    free(c);
}

#else

Test(gpu_shards, skipped_without_cuda)
{
    cr_skip_test("built without CUDA (make CUDA=0, or no nvcc): GPU tests not compiled");
}

#endif
