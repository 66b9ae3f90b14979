/* checkpoint.c — see checkpoint.h. */
#include "model/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/folder_tidy.h"
#include "model/manifest.h"
#include "model/matrix_file.h"
#include "model/model_check.h"
#include "model/model_folder.h"
#include "model/model_stopwords.h"
#include "util/atomic_file.h"

#define CHECKPOINT_NAME LDA_CHECKPOINT_DIR
#define CHECKPOINT_OLD "checkpoint.old"
#define CHECKPOINT_TMP_PREFIX "checkpoint.tmp-"

static int write_heldout(const char *path, const size_t *heldout, size_t n, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    for (size_t i = 0; i < n; i++)
        fprintf(af.f, "%zu\n", heldout[i]);
    return lda_atomic_commit(&af, err);
}

int lda_state_write_extras(const char *dir, const lda_model *m, const lda_train_log *log, const size_t *heldout,
                           size_t num_heldout, lda_error *err)
{
    char *csv = lda_path_join(dir, "log.csv", err), *held = csv ? lda_path_join(dir, "heldout.txt", err) : NULL;
    int rc = -1;
    if (!held)
        goto out;
    if (lda_train_log_write_csv(log, csv, err))
        goto out;
    if (m->settings.holdout > 0) {
        if (write_heldout(held, heldout, num_heldout, err))
            goto out;
    } else if (unlink(held) != 0 && errno != ENOENT) {
        lda_error_fail(err, "cannot remove %s: %s", held, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    free(csv);
    free(held);
    return rc;
}

int lda_checkpoint_entry(const char *name)
{
    return strcmp(name, CHECKPOINT_NAME) == 0 || strcmp(name, CHECKPOINT_OLD) == 0 ||
           strncmp(name, CHECKPOINT_TMP_PREFIX, strlen(CHECKPOINT_TMP_PREFIX)) == 0;
}

/* A checkpoint folder that may be replaced or removed: none, or ldagpu's own. */
static int check_ours(const char *path, lda_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT)
            return 0;
        lda_error_fail(err, "cannot use %s: %s", path, strerror(errno));
        return -1;
    }
    if (lda_state_folder_is_ours(path))
        return 0;
    lda_error_input(err, "%s is not an ldagpu checkpoint (%s), and a run writes its checkpoint there; move it or "
                    "write elsewhere", path, S_ISLNK(sb.st_mode) ? "a symbolic link" : "it holds other files");
    return -1;
}

/* Removes a checkpoint folder that is ldagpu's own (a missing one is fine). */
static int remove_folder(const char *path, lda_error *err)
{
    return check_ours(path, err) || lda_state_folder_remove(path, err);
}

static void sync_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int lda_checkpoint_tidy(const char *model_dir, lda_error *err)
{
    DIR *d = opendir(model_dir);
    if (!d)
        return 0; /* nothing there yet */
    int rc = 0;
    const size_t n = strlen(CHECKPOINT_TMP_PREFIX);
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        const char *digits = e->d_name + n;
        if (strncmp(e->d_name, CHECKPOINT_TMP_PREFIX, n) != 0 || !*digits ||
            strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
            continue;
        const long pid = strtol(digits, NULL, 10);
        if (pid != (long)getpid() && !lda_process_gone(pid))
            continue; /* a live run's write in progress */
        char *path = lda_path_join(model_dir, e->d_name, err);
        rc = !path ? -1 : lda_state_folder_is_ours(path) ? lda_state_folder_remove(path, err) : 0;
        free(path);
    }
    closedir(d);
    return rc;
}

/* Puts the complete folder tmp in the place of final, atomically where the file system
 * allows; the previous final is removed. */
static int replace_folder(const char *tmp, const char *final, const char *old, lda_error *err)
{
    struct stat sb;
    if (check_ours(final, err))
        return -1;
    lda_model_folder_pause();
    if (lstat(final, &sb) != 0) {
        if (rename(tmp, final) != 0) {
            lda_error_fail(err, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE) == 0)
        return remove_folder(tmp, err); /* tmp now holds the previous checkpoint */
    /* No atomic exchange here: move the old one aside (lda_resume_load looks there too). */
    if (remove_folder(old, err))
        return -1;
    if (rename(final, old) != 0 || (lda_model_folder_pause(), rename(tmp, final)) != 0) {
        lda_error_fail(err, "cannot replace %s: %s", final, strerror(errno));
        return -1;
    }
    return remove_folder(old, err);
}

int lda_checkpoint_write(const char *model_dir, const lda_model *m, const lda_train_log *log,
                         const size_t *heldout, size_t num_heldout, lda_error *err)
{
    char tmp_name[64];
    snprintf(tmp_name, sizeof tmp_name, CHECKPOINT_TMP_PREFIX "%ld", (long)getpid());
    char *tmp = lda_path_join(model_dir, tmp_name, err);
    char *final = tmp ? lda_path_join(model_dir, CHECKPOINT_NAME, err) : NULL;
    char *old = final ? lda_path_join(model_dir, CHECKPOINT_OLD, err) : NULL;
    char *conf = old ? lda_path_join(tmp, "model.conf", err) : NULL;
    int rc = -1;
    if (!conf)
        goto out;
    if (remove_folder(tmp, err) || lda_make_dirs(tmp, err) ||
        lda_state_write_extras(tmp, m, log, heldout, num_heldout, err) ||
        lda_matrix_save(tmp, "z", LDA_MATRIX_U32, m->num_tokens, 0, m->z, err) || lda_model_write_priors(m, tmp, err) ||
        lda_model_write_stopwords(m, tmp, err) || lda_model_write_conf(m, conf, err) || lda_manifest_write(tmp, err))
        goto out;
    sync_folder(tmp);
    if (replace_folder(tmp, final, old, err))
        goto out;
    sync_folder(model_dir);
    rc = 0;
out:
    if (rc && tmp) {
        lda_error saved = *err;
        remove_folder(tmp, err);
        *err = saved;
    }
    free(tmp);
    free(final);
    free(old);
    free(conf);
    return rc;
}

int lda_model_read_finished(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err)
{
    if (lda_model_read(m, dir, with_theta, with_z, err) == 0)
        return 0;
    char *conf = lda_path_join(dir, "model.conf", err), *ckpt = conf ? lda_path_join(dir, CHECKPOINT_NAME, err) : NULL;
    lda_model state;
    lda_error ignored;
    if (ckpt && access(conf, F_OK) != 0 && errno == ENOENT && lda_model_read_conf(&state, ckpt, &ignored) == 0) {
        lda_error_input(err, "%s holds no finished model, only a checkpoint at iteration %u (a run stopped before "
                        "it wrote its model): finish it with 'ldagpu train --resume %s -n N' (N more iterations; "
                        "0 writes the model as it is)", dir, state.iterations, dir);
        lda_model_free(&state);
    }
    free(conf);
    free(ckpt);
    return -1;
}

/* ---- finding a state again ---- */

void lda_resume_free(lda_resume_state *st)
{
    lda_model_free(&st->m);
    free(st->dir);
    lda_train_log_free(&st->log);
    memset(st, 0, sizeof *st);
}

/* Loads the state in dir; fails (err filled) when it is incomplete or inconsistent. */
static int load_state(const char *dir, lda_resume_state *st, lda_error *err)
{
    memset(st, 0, sizeof *st);
    char *zpath = NULL, *csv = NULL;
    uint64_t rows, cols;
    int rc = -1;
    if (lda_model_read_conf(&st->m, dir, err))
        return -1;
    if (lda_model_folder_protect(dir, err))
        goto out;
    if (!(st->dir = strdup(dir))) {
        lda_error_fail(err, "out of memory");
        goto out;
    }
    if (!(csv = lda_path_join(dir, "log.csv", err)) ||
        lda_matrix_load(dir, "z", LDA_MATRIX_U32, &rows, &cols, (void **)&st->m.z, &zpath, err) ||
        lda_model_read_priors(&st->m, dir, err))
        goto out;
    if (rows != st->m.num_tokens || cols != 1) {
        lda_error_input(err, "%s: %llu x %llu values, model.conf says %llu tokens", zpath, (unsigned long long)rows,
                        (unsigned long long)cols, (unsigned long long)st->m.num_tokens);
        goto out;
    }
    if (lda_model_check_z(&st->m, zpath, err))
        goto out;
    lda_train_log_init(&st->log, NULL, 0, 0);
    if ((access(csv, F_OK) == 0 && lda_train_log_read_csv(&st->log, csv, err)) || lda_manifest_verify(dir, NULL, err))
        goto out;
    rc = 0;
out:
    free(zpath);
    free(csv);
    if (rc)
        lda_resume_free(st);
    return rc;
}

int lda_resume_load(const char *model_dir, lda_resume_state *st, lda_error *err)
{
    enum { MODEL, CHECKPOINT, OLD, STATES };
    const char *names[STATES] = {NULL, CHECKPOINT_NAME, CHECKPOINT_OLD};
    lda_resume_state cand[STATES];
    int valid[STATES] = {0};
    lda_error first_err = {0};
    memset(st, 0, sizeof *st);
    for (int i = 0; i < STATES; i++) {
        char *dir = names[i] ? lda_path_join(model_dir, names[i], err) : strdup(model_dir);
        if (!dir) {
            lda_error_fail(err, "out of memory");
            for (int j = 0; j < i; j++)
                if (valid[j])
                    lda_resume_free(&cand[j]);
            return -1;
        }
        lda_error e = {0};
        valid[i] = load_state(dir, &cand[i], &e) == 0;
        if (!valid[i] && i == MODEL)
            first_err = e;
        free(dir);
    }
    /* Each state's run (one recorded before run ids existed: made from its settings, as it
     * would have been), and the folder's current run: its checkpoint's, else the model's. */
    uint64_t runs[STATES] = {0};
    for (int i = 0; i < STATES; i++)
        if (valid[i])
            runs[i] = cand[i].m.run_id ? cand[i].m.run_id : lda_run_id(&cand[i].m.settings, cand[i].m.corpus_checksum);
    const uint64_t run = valid[CHECKPOINT] ? runs[CHECKPOINT] : valid[OLD] ? runs[OLD] : runs[MODEL];
    int best = -1;
    for (int i = 0; i < STATES; i++)
        if (valid[i] && runs[i] == run && (best < 0 || cand[i].m.iterations > cand[best].m.iterations))
            best = i;
    for (int i = 0; i < STATES; i++)
        if (valid[i] && i != best)
            lda_resume_free(&cand[i]);
    if (best < 0) {
        if (first_err.msg[0])
            *err = first_err;
        else
            lda_error_input(err, "%s: no resumable state found", model_dir);
        return -1;
    }
    *st = cand[best];
    return 0;
}
