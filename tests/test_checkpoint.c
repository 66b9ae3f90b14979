/* test_checkpoint.c — checkpoints replace each other atomically, and --resume takes the
 * newest valid state of a model folder (library level). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "model/checkpoint.h"
#include "model/checksum.h"
#include "model/matrix_file.h"

/* A state's settings with z all equal to `topic`, at `iterations`. */
static void fake_state(lda_model *m, uint32_t iterations, uint32_t topic, uint32_t *z)
{
    memset(m, 0, sizeof *m);
    lda_settings_default(&m->settings);
    m->num_topics = m->settings.params.num_topics = 4;
    m->vocab_size = 10;
    m->num_docs = 3;
    m->num_tokens = 6;
    m->settings.params.alpha = 0.5;
    m->iterations = iterations;
    m->corpus_path = (char *)"/nowhere/corpus.txt";
    m->settings.corpus.format = CORPUS_FORMAT_TEXT;
    m->settings.corpus.min_word_len = 3;
    m->settings.corpus.min_df = 2;
    m->settings.corpus.max_df = 0.5;
    m->settings.holdout = 0.25;
    m->settings.holdout_iterations = 7;
    m->corpus_checksum = 0x1234;
    for (int i = 0; i < 6; i++)
        z[i] = topic;
    m->z = z;
    m->z_checksum = lda_u32_checksum(z, 6);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

Test(checkpoint, replaces_the_previous_one_and_resume_takes_the_newest)
{
    char *dir = test_tmpdir();
    lda_error err = {0};
    lda_train_log log;
    lda_train_log_init(&log, NULL, 0, 0);
    lda_log_row row = {.iteration = 3, .evaluated = 1, .heldout_evaluated = 1, .loglik_heldout = -7.25};
    cr_assert_eq(lda_train_log_add(&log, &row, &err), 0);
    size_t held[] = {0, 2};
    uint32_t z1[6], z2[6];
    lda_model m1, m2;
    fake_state(&m1, 3, 1, z1);
    fake_state(&m2, 5, 2, z2);
    cr_assert_eq(lda_checkpoint_write(dir, &m1, &log, held, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(lda_checkpoint_write(dir, &m2, &log, held, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(entries(dir), 1, "only the checkpoint folder, no leftovers");

    lda_resume_state st;
    cr_assert_eq(lda_resume_load(dir, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.m.iterations, 5);
    cr_assert_eq(st.m.z[0], 2);
    cr_assert_eq(st.m.num_topics, 4);
    cr_assert_eq(st.m.settings.holdout, 0.25);
    cr_assert_eq(st.m.settings.holdout_iterations, 7);
    cr_assert_eq(st.m.corpus_checksum, 0x1234);
    cr_assert_str_eq(st.m.corpus_path, "/nowhere/corpus.txt");
    cr_assert_eq(st.log.count, 1);
    cr_assert_eq(st.log.rows[0].iteration, 3);
    cr_assert(st.log.rows[0].heldout_evaluated);
    cr_assert_eq(st.log.rows[0].loglik_heldout, -7.25);
    cr_assert(strstr(st.dir, "/checkpoint"), "%s", st.dir);
    lda_resume_free(&st);
    char path[2048];
    snprintf(path, sizeof path, "%s/checkpoint/heldout.txt", dir);
    char *text = test_read_file(path);
    cr_assert_str_eq(text, "0\n2\n");
    free(text);

    /* The folder's own state at a later iteration wins; with a z that does not match its
     * model.conf (a write cut short), the checkpoint is taken instead. */
    uint32_t z3[6];
    lda_model m3;
    fake_state(&m3, 8, 3, z3);
    snprintf(path, sizeof path, "%s/z.npy", dir);
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_U32, 6, 0, z3, &err), 0);
    snprintf(path, sizeof path, "%s/model.conf", dir);
    cr_assert_eq(lda_model_write_conf(&m3, path, &err), 0);
    cr_assert_eq(lda_resume_load(dir, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.m.iterations, 8);
    cr_assert_str_eq(st.dir, dir);
    lda_resume_free(&st);
    z3[0] = 0;
    snprintf(path, sizeof path, "%s/z.npy", dir);
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_U32, 6, 0, z3, &err), 0);
    cr_assert_eq(lda_resume_load(dir, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.m.iterations, 5, "a mismatched z must not be resumed");
    lda_resume_free(&st);

    /* What a checkpoint write cut short by a kill left is removed when it is ldagpu's own (its
     * process gone); a folder of that name holding anything else is the user's and stays. */
    char ours[1024], users[1024];
    snprintf(ours, sizeof ours, "%s/checkpoint.tmp-%ld", dir, (long)test_gone_pid());
    snprintf(users, sizeof users, "%s/checkpoint.tmp-%ld", dir, (long)test_gone_pid());
    cr_assert_eq(mkdir(ours, 0777), 0);
    cr_assert_eq(mkdir(users, 0777), 0);
    free(test_write_file(ours, "z.npy", "half a z"));
    free(test_write_file(users, "notes.txt", "mine\n"));
    cr_assert_eq(lda_checkpoint_tidy(dir, &err), 0, "%s", err.msg);
    cr_assert_eq(access(ours, F_OK), -1, "the leftover was kept");
    snprintf(path, sizeof path, "%s/notes.txt", users);
    cr_assert_eq(access(path, F_OK), 0, "a folder of the user's was emptied");
    snprintf(path, sizeof path, "%s/checkpoint", dir);
    cr_assert_eq(access(path, F_OK), 0, "the checkpoint itself is not a leftover");
    lda_train_log_free(&log);
    test_rmdir(dir);
    free(dir);
}
