/* test_gpu_stream.c — the collapsed sparse draw's z pass a chunk of warps at a time
 * (cuda/stream_pass.cu; backend/stream_plan.h) trains the model of the pass over the whole
 * layout, byte for byte: chunks forced small (LDAGPU_STREAM_CHUNK_WARPS) so that many cut
 * documents have pieces in several chunks. The arithmetic is tested on the CPU in
 * test_stream_plan.c; every test here skips without a GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda_testing.h"
#include "backend/stream_plan.h"
#include "helpers.h"

#ifdef LDA_HAVE_CUDA

static void require_gpu(void)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) < 1)
        cr_skip_test("no GPU here: %s", why);
}

/* Log-normal lengths (σ 1.2, mean 300): with pieces of 64 tokens a fifth of the documents are
 * cut, into up to a hundred pieces, and the layout sorts the pieces among the other documents'
 * slots, so that chunks of a few warps split most cut documents. */
static char *long_documents_of(const char *dir, unsigned vocab)
{
    char args[4096], *out = NULL, *path = NULL;
    cr_assert(asprintf(&path, "%s/long.ldab", dir) > 0);
    snprintf(args, sizeof args,
             "generate -o '%s' --docs 600 --mean-length 300 --lengths lognormal --length-sigma 1.2 "
             "--vocab-size %u -K 50 -s 3",
             path, vocab);
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
    return path;
}

static char *long_documents(const char *dir)
{
    return long_documents_of(dir, 3000);
}

/* Trains `corpus_path` with `options` into dir/NAME, LDAGPU_STREAM_CHUNK_WARPS=warps (0: unset);
 * the log into *log. */
static void train(const char *corpus_path, const char *options, const char *dir, const char *name, unsigned warps,
                  char **log)
{
    char args[8192], value[32];
    snprintf(args, sizeof args,
             "train '%s' -n 5 -e 5 -s 7 --model collapsed --sampler sparse --piece-length 64 "
             "--optimize-interval 2 --optimize-burn-in 1 --device cuda %s -o '%s/%s'",
             corpus_path, options, dir, name);
    snprintf(value, sizeof value, "%u", warps);
    if (warps)
        cr_assert_eq(setenv(LDA_STREAM_CHUNK_WARPS_ENV, value, 1), 0);
    const int rc = test_run_ldagpu(args, log);
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
    cr_assert_eq(rc, 0, "%s=%u ldagpu %s: exit %d: %s", LDA_STREAM_CHUNK_WARPS_ENV, warps, args, rc, *log);
}

/* `options` trained over the whole layout in device memory, then with --stream-tokens `mode` in
 * chunks of each of warps[] warps (0: as many as the room gives): each log says `says`, and every
 * run trains the whole layout's z, φ, θ, model files and log figures, byte for byte. */
static void same_model_in_chunks_of(unsigned vocab, const char *options, const char *mode, const unsigned *warps,
                                    unsigned n, const char *says, const char *whole_says)
{
    require_gpu();
    char *dir = test_tmpdir(), *path = long_documents_of(dir, vocab), *log = NULL, opts[1024];
    snprintf(opts, sizeof opts, "%s --stream-tokens off", options);
    train(path, opts, dir, "m1", 0, &log);
    cr_assert(strstr(log, whole_says), "the whole layout's log does not say %s: %s", whole_says, log);
    free(log);
    snprintf(opts, sizeof opts, "%s --stream-tokens %s", options, mode);
    for (unsigned i = 0; i < n; i++) {
        char name[8];
        snprintf(name, sizeof name, "m%u", i + 2);
        train(path, opts, dir, name, warps[i], &log);
        cr_assert(strstr(log, says), "chunks of %u warps: the log does not say %s: %s", warps[i], says, log);
        free(log);
    }
    test_assert_runs_same_model(dir, "m", 1, n + 1);
    test_rmdir(dir);
    free(dir);
    free(path);
}

static void same_model_in_chunks(const char *options, const char *mode, const unsigned *warps, unsigned n,
                                 const char *says)
{
    same_model_in_chunks_of(3000, options, mode, warps, n, says, "GiB free (streaming off)");
}

/* Chunks of 3 and of 7 warps in device memory (the chunked pass over the device's own arrays). */
static void chunks_equal_whole(const char *options)
{
    const unsigned warps[] = {3, 7};
    same_model_in_chunks(options, "off", warps, 2, "chunks (forced size): ");
}

Test(stream_gpu, chunks_in_device_memory_equal_whole_k1024, .timeout = 240) { chunks_equal_whole("-K 1024"); }

/* K = 4096: the draw reads the word lists (zplan.h), built once a pass before the chunks. */
Test(stream_gpu, chunks_in_device_memory_equal_whole_k4096, .timeout = 240) { chunks_equal_whole("-K 4096"); }

/* The tokens streamed from host memory through three buffers, in chunks of 3 and 7 warps and as
 * the free memory gives them (one chunk here): θ fetched chunk by chunk, the log-likelihoods'
 * and the histograms' walks over the chunks. */
static void streamed_equals_in_memory(const char *options)
{
    const unsigned warps[] = {3, 7, 0};
    same_model_in_chunks(options, "on", warps, 3, "tokens streamed from host memory in ");
}

Test(stream_gpu, streamed_equals_in_memory_k1024, .timeout = 240) { streamed_equals_in_memory("-K 1024"); }
Test(stream_gpu, streamed_equals_in_memory_k4096, .timeout = 240) { streamed_equals_in_memory("-K 4096"); }

/* A corpus large beside V × K (180,000 tokens of 200 words at K = 1024): in device memory the
 * plan writes φ's mean an iteration (backend/zplan.h, LDA_ZPLAN_PHI_WRITTEN_SHARE); streamed, the
 * draw forms it from the counts, as streaming needs; the same model byte for byte. */
Test(stream_gpu, streamed_with_phi_from_the_counts_equals_phi_written, .timeout = 240)
{
    const unsigned warps[] = {3, 0};
    same_model_in_chunks_of(200, "-K 1024", "on", warps, 2, "tokens streamed from host memory in ",
                            "φ's mean written an iteration");
}

/* A checkpoint's z (the host's copy) resumed streamed: 3 + 2 iterations train the 5 of one run. */
Test(stream_gpu, streamed_resumes_to_the_same_model, .timeout = 240)
{
    require_gpu();
    char *dir = test_tmpdir(), *path = long_documents(dir), *log = NULL, args[8192];
    train(path, "-K 1024 --stream-tokens on", dir, "m1", 4, &log);
    free(log);
    snprintf(args, sizeof args,
             "train '%s' -n 3 -e 5 -s 7 -K 1024 --model collapsed --sampler sparse --piece-length 64 "
             "--optimize-interval 2 --optimize-burn-in 1 --device cuda --stream-tokens on -q -o '%s/m2'",
             path, dir);
    cr_assert_eq(setenv(LDA_STREAM_CHUNK_WARPS_ENV, "4", 1), 0);
    int rc = test_run_ldagpu(args, &log);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, log);
    free(log);
    snprintf(args, sizeof args, "train --resume '%s/m2' -n 2 -q", dir);
    rc = test_run_ldagpu(args, &log);
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, log);
    free(log);
    static const char *const files[] = {"phi.npy", "z.npy", "theta.npy"};
    for (size_t i = 0; i < 3; i++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/m1/%s", dir, files[i]);
        snprintf(b, sizeof b, "%s/m2/%s", dir, files[i]);
        cr_assert(test_same_bytes(a, b), "%s differs between 5 iterations and 3 + 2 resumed", files[i]);
    }
    test_rmdir(dir);
    free(dir);
    free(path);
}

/* A streamed run with --holdout is refused with one line: its scoring reads tokens on the GPU. */
Test(stream_gpu, streamed_holdout_is_refused)
{
    require_gpu();
    char *dir = test_tmpdir(), *c = NULL, args[4096];
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    snprintf(args, sizeof args,
             "train '%s' -K 16 -n 1 --model collapsed --sampler sparse --stream-tokens on --holdout 0.1 "
             "--device cuda -o '%s/m'", c, dir);
    test_expect_failure(args, 2, "--stream-tokens on: held-out scoring (--holdout)");
    test_rmdir(dir);
    free(dir);
    free(c);
}

/* A run refused once its input is read: exit 2, its one line of error after the read's. */
static void refused(const char *args, const char *says)
{
    char *out = NULL;
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 2, "ldagpu %s: exit %d: %s", args, rc, out);
    const char *line = strstr(out, "ldagpu train: ");
    cr_assert(line && strstr(line, says) && strchr(line, '\n') == line + strlen(line) - 1, "%s", out);
    free(out);
}

/* A run that cannot go in chunks is refused with one line naming the switch. */
Test(stream_gpu, chunks_refused_for_other_samplers)
{
    require_gpu();
    char *dir = test_tmpdir(), *c = NULL, args[4096];
    cr_assert(asprintf(&c, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    snprintf(args, sizeof args, "train '%s' -K 16 -n 1 --model uncollapsed --device cuda -o '%s/m'", c, dir);
    cr_assert_eq(setenv(LDA_STREAM_CHUNK_WARPS_ENV, "4", 1), 0);
    refused(args, LDA_STREAM_CHUNK_WARPS_ENV ": only --model collapsed --sampler sparse streams its tokens\n");
    snprintf(args, sizeof args,
             "train '%s' -K 16 -n 1 --model collapsed --sampler sparse --refresh 2 --device cuda -o '%s/m'", c, dir);
    refused(args, LDA_STREAM_CHUNK_WARPS_ENV ": tokens are streamed with --refresh 1 only\n");
    cr_assert_eq(setenv(LDA_STREAM_CHUNK_WARPS_ENV, "4x", 1), 0);
    snprintf(args, sizeof args, "train '%s' -K 16 -n 1 --model collapsed --sampler sparse --device cuda -o '%s/m'",
             c, dir);
    refused(args, "is not a positive whole number of warps\n");
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
    test_rmdir(dir);
    free(dir);
    free(c);
}

/* A topic past 2^32 - 1 tokens stops the run (cuda/topic_totals.cu): a collapsed sparse backend,
 * its pass over the whole layout, in chunks of 3 warps in device memory, or streamed in them
 * (warps 0: unset; mode: --stream-tokens), starts and iterates with the check passing; then topic
 * 3 is given 2^32 tokens more than it holds (lda_cuda_test_overfill_topic), and the next iteration
 * fails, a run failure naming the topic and its 64-bit total. */
static void overfilled_topic_stops(unsigned warps, lda_stream_mode mode)
{
    require_gpu();
    corpus *c = test_planted_corpus(8, 40, 400, 20, 300, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 64, &err);
    cr_assert(L, "%s", err.msg);
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 16);
    p.device = LDA_DEVICE_CUDA;
    p.piece_length = 64;
    p.stream_tokens = mode;
    char value[32];
    snprintf(value, sizeof value, "%u", warps);
    if (warps)
        cr_assert_eq(setenv(LDA_STREAM_CHUNK_WARPS_ENV, value, 1), 0);
    lda_backend *b = lda_backend_create(L, &p, &err);
    unsetenv(LDA_STREAM_CHUNK_WARPS_ENV);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 2; it++)
        cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "iteration %u: %s", it, err.msg);
    cr_assert_eq(lda_cuda_test_overfill_topic(b, 3, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->iterate(b, 3, NULL, &err), -1, "a topic past 2^32 - 1 tokens went unnoticed");
    cr_assert_eq(err.status, LDA_EXIT_FAILURE, "%s", err.msg);
    uint32_t n_k[16];
    lda_error fetched = {0};
    cr_assert_eq(b->ops->fetch_counts(b, NULL, NULL, n_k, &fetched), 0, "%s", fetched.msg);
    char says[128];
    snprintf(says, sizeof says, "topic 3 holds %llu tokens; a topic's count is 32-bit (at most 4294967295)",
             (1ull << 32) + n_k[3]);
    cr_assert(strcmp(err.msg, says) == 0, "'%s', not '%s'", err.msg, says);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
}

Test(stream_gpu, a_topic_past_2_to_the_32_stops_the_run_in_device_memory, .timeout = 120)
{
    overfilled_topic_stops(0, LDA_STREAM_OFF);
}

Test(stream_gpu, a_topic_past_2_to_the_32_stops_the_run_in_chunks, .timeout = 120)
{
    overfilled_topic_stops(3, LDA_STREAM_OFF);
}

Test(stream_gpu, a_topic_past_2_to_the_32_stops_the_streamed_run, .timeout = 120)
{
    overfilled_topic_stops(3, LDA_STREAM_ON);
}

#else

Test(stream_gpu, skipped_without_cuda)
{
    cr_skip_test("built without CUDA (make CUDA=0, or no nvcc): GPU tests not compiled");
}

#endif
