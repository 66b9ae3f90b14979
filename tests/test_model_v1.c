/* test_model_v1.c — model folders written by ldagpu before 0.2 (phi.bin, theta.bin,
 * topic_tokens.bin, z.bin: tests/data/model-v1, trained by that version on
 * tests/data/v1-corpus.txt, K = 3, 6 iterations, seed 3, --holdout 0.1, a checkpoint at 4)
 * are still read by topics, infer, eval and --resume, and a resumed run goes on exactly as
 * one run would have. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/model.h"

static void run_ok(const char *args, char **out)
{
    char *o = NULL;
    int rc = test_run_ldagpu(args, &o);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, o);
    if (out)
        *out = o;
    else
        free(o);
}

Test(model_v1, topics_infer_and_eval_read_bin_folders)
{
    char args[4096], *out = NULL, path[2048];
    const char *root = test_root();
    snprintf(args, sizeof args, "topics '%s/tests/data/model-v1' --top 5", root);
    run_ok(args, &out);
    snprintf(path, sizeof path, "%s/tests/data/model-v1.topics.txt", root);
    char *expected = test_read_file(path);
    cr_assert(expected);
    cr_assert_str_eq(out, expected, "the topics of the old folder, as its own ldagpu printed them");
    free(out);
    free(expected);
    snprintf(args, sizeof args, "infer '%s/tests/data/model-v1' '%s/tests/data/v1-corpus.txt' -n 5 --device cpu",
             root, root);
    run_ok(args, &out);
    cr_assert(strstr(out, "document\ttopic0\ttopic1\ttopic2\n0\t") && strstr(out, "\n40\t"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "eval '%s/tests/data/model-v1' '%s/tests/data/v1-corpus.txt' --device cpu", root,
             root);
    run_ok(args, &out);
    cr_assert(strstr(out, "loglik_per_token"), "%s", out);
    free(out);
}

Test(model_v1, resume_of_a_bin_folder_equals_one_run_and_leaves_npy_only)
{
    char *dir = test_tmpdir(), args[4096], path[2048], other[2048];
    const char *root = test_root();
    snprintf(args, sizeof args, "cp -r '%s/tests/data/model-v1' '%s/old'", root, dir);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "train --resume '%s/old' '%s/tests/data/v1-corpus.txt' -n 4 -q --device cpu", dir,
             root);
    run_ok(args, NULL);
    snprintf(args, sizeof args,
             "train '%s/tests/data/v1-corpus.txt' -K 3 -n 10 -s 3 --holdout 0.1 -e 2 -q --device cpu -o '%s/one'",
             root, dir);
    run_ok(args, NULL);
    static const char *const arrays[] = {"phi", "theta", "topic_tokens", "z"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/old/%s.npy", dir, arrays[i]);
        snprintf(other, sizeof other, "%s/one/%s.npy", dir, arrays[i]);
        cr_assert(test_same_bytes(path, other), "%s differs from one run's", path);
        snprintf(path, sizeof path, "%s/old/%s.bin", dir, arrays[i]);
        char *stale = test_read_file(path);
        cr_assert_null(stale, "%s: the .bin must be replaced by the .npy, not kept beside it", path);
    }
    test_rmdir(dir);
    free(dir);
}

/* A folder from before --optimize-mode learned at every interval: it reads so, and a resumed
 * run of it goes on that way. */
Test(model_v1, folders_before_the_optimize_mode_learned_at_every_interval)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/data/model-v1", test_root());
    lda_model m;
    lda_error err = {0};
    cr_assert_eq(lda_model_read_conf(&m, dir, &err), 0, "%s", err.msg);
    cr_assert_eq(m.settings.params.optimize_mode, LDA_OPTIMIZE_EVERY);
    lda_model_free(&m);
}
