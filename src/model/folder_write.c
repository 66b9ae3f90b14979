/* folder_write.c — see model_folder.h: a model written into a new folder, then put in place
 * (swapped in for an old model, or moved into a folder that holds none). */
#include "model/model_folder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/checkpoint.h"
#include "model/folder_tidy.h"
#include "model/manifest.h"
#include "model/model.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"

/* The files and links MODEL holds that are not the old model's (a report put there, ...) as
 * hard links in the new folder, so they are in MODEL at every moment. Folders, and what cannot
 * be linked, are moved after the swap (tidy_into). */
static int link_extras(const char *model, const char *staging, lda_error *err)
{
    DIR *d = lda_open_folder(model), *s = d ? lda_open_folder(staging) : NULL;
    if (!s) {
        lda_error_fail(err, "cannot open folder %s: %s", d ? staging : model, strerror(errno));
        if (d)
            closedir(d);
        return -1;
    }
    for (struct dirent *e; (e = readdir(d));) {
        struct stat sb;
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || lda_model_file_name(n) || lda_checkpoint_entry(n) ||
            fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(sb.st_mode))
            continue;
        lda_model_folder_pause();
        if (linkat(dirfd(d), n, dirfd(s), n, 0) != 0 && errno != EEXIST && errno != EPERM && errno != EMLINK &&
            errno != EXDEV && errno != ENOENT) {
            lda_error_fail(err, "cannot link %s/%s into %s: %s", model, n, staging, strerror(errno));
            closedir(s);
            closedir(d);
            return -1;
        }
    }
    closedir(s);
    closedir(d);
    return 0;
}

/* The run id a checkpoint records (0: none, or unreadable). */
static uint64_t checkpoint_run(const char *dir)
{
    lda_model m;
    lda_error ignored;
    if (lda_model_read_conf(&m, dir, &ignored))
        return 0;
    const uint64_t id = m.run_id;
    lda_model_free(&m);
    return id;
}

/* After the swap (old: the previous folder, now beside MODEL): the run's own checkpoint
 * back into MODEL, then the rest tidied (the user's folders moved back, the old model gone). */
static int finish_old(const lda_model_folder *f, const char *old, uint64_t run_id, lda_error *err)
{
    char *from = lda_path_join(old, LDA_CHECKPOINT_DIR, err);
    char *to = from ? lda_path_join(f->path, LDA_CHECKPOINT_DIR, err) : NULL;
    int rc = -1;
    if (!to)
        goto out;
    struct stat sb;
    if (run_id && lstat(to, &sb) != 0 && lda_state_folder_is_ours(from) && checkpoint_run(from) == run_id) {
        lda_model_folder_pause();
        if (rename(from, to) != 0) {
            lda_error_fail(err, "cannot move %s back into %s: %s", from, f->shown, strerror(errno));
            goto out;
        }
    }
    rc = lda_tidy_into(old, f->path, err);
out:
    free(from);
    free(to);
    return rc;
}

/* Puts staging in MODEL's place; *old gets where the previous folder went. */
static int swap_in(const lda_model_folder *f, const char *staging, char **old, lda_error *err)
{
    lda_model_folder_pause();
    if (renameat2(AT_FDCWD, staging, AT_FDCWD, f->path, RENAME_EXCHANGE) == 0) {
        if (!(*old = strdup(staging)))
            lda_error_fail(err, "out of memory");
        return *old ? 0 : -1;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
        lda_error_fail(err, "cannot put the new model in place of %s: %s", f->shown, strerror(errno));
        return -1;
    }
    /* No exchange on this file system: the old one aside, then the new one in. */
    if (!(*old = lda_sibling_path(f->parent, f->name, LDA_SIBLING_OLD, (long)getpid(), err)))
        return -1;
    if (rename(f->path, *old) != 0) {
        lda_error_fail(err, "cannot move %s aside: %s", f->shown, strerror(errno));
        free(*old);
        *old = NULL;
        return -1;
    }
    lda_model_folder_pause();
    if (rename(staging, f->path) != 0) {
        lda_error_fail(err, "cannot put the new model in place of %s: %s", f->shown, strerror(errno));
        if (rename(*old, f->path) == 0) { /* as it was */
            free(*old);
            *old = NULL;
        }
        return -1;
    }
    return 0;
}

/* The new folder filled: its mark, the model's files, the manifest, then (locked, so that no
 * other run starts in it once it is MODEL) the user's files linked in and the mark removed. */
static int stage(const lda_model_folder *f, const char *staging, lda_model_folder_fill fill, void *ctx, int swap,
                 int *lock, lda_error *err)
{
    char *mark = lda_path_join(staging, LDA_STAGING_MARK, err);
    int fd = -1, rc = -1;
    if (!mark)
        return -1;
    if (mkdir(staging, 0700) != 0) {
        lda_error_fail(err, "cannot create folder %s: %s", staging, strerror(errno));
    } else if ((fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        lda_error_fail(err, "cannot create %s: %s", mark, strerror(errno));
    } else {
        close(fd);
        if (!fill(staging, ctx, err) && !lda_manifest_write(staging, err) &&
            !lda_dir_lock(staging, staging, lock, err) && !(swap && link_extras(f->path, staging, err))) {
            if (unlink(mark) == 0)
                rc = 0;
            else
                lda_error_fail(err, "cannot remove %s: %s", mark, strerror(errno));
        }
    }
    struct stat sb;
    if (rc == 0 && stat(f->path, &sb) == 0) /* the folder keeps its permissions */
        chmod(staging, sb.st_mode & 07777);
    if (rc == 0)
        lda_sync_folder(staging);
    free(mark);
    return rc;
}

/* A write that failed before the swap: the new folder goes, and the message names the
 * model's file rather than the new folder's ("cannot write m/z.npy: File too large"). */
static void discard(const lda_model_folder *f, const char *staging, lda_error *err)
{
    lda_error ignored;
    lda_tidy_into(staging, f->path, &ignored);
    const lda_error was = *err;
    const char *at = strstr(was.msg, staging);
    const int before = at ? (int)(at - was.msg) : (int)strlen(was.msg);
    const char *after = at ? at + strlen(staging) : "";
    if (was.status == LDA_EXIT_BAD_INPUT)
        lda_error_input(err, "%.*s%s%s; the model was not written, %s is as it was", before, was.msg,
                        at ? f->shown : "", after, f->shown);
    else
        lda_error_fail(err, "%.*s%s%s; the model was not written, %s is as it was", before, was.msg,
                       at ? f->shown : "", after, f->shown);
}

/* 1 when dir holds a model.conf (a file): the model a write must replace as a whole. */
static int holds_model(const char *dir)
{
    char path[8192];
    struct stat sb;
    snprintf(path, sizeof path, "%s/model.conf", dir);
    return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Another run's checkpoint left in MODEL goes when a model is written (this run's stays). */
static int drop_other_checkpoint(const lda_model_folder *f, uint64_t run_id, lda_error *err)
{
    char *ckpt = lda_path_join(f->path, LDA_CHECKPOINT_DIR, err);
    if (!ckpt)
        return -1;
    const int other = lda_state_folder_is_ours(ckpt) && checkpoint_run(ckpt) != run_id;
    const int rc = other ? lda_state_folder_remove(ckpt, err) : 0;
    free(ckpt);
    return rc;
}

/* Removes from MODEL the files of a model that a move_in cut short left and the new one
 * does not have. */
static int remove_unfinished(DIR *model, const lda_model_folder *f, DIR *staging, lda_error *err)
{
    for (struct dirent *e; (e = readdir(model));) {
        struct stat sb, in_new;
        if (!lda_model_file_name(e->d_name) || fstatat(dirfd(model), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode) || fstatat(dirfd(staging), e->d_name, &in_new, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        if (unlinkat(dirfd(model), e->d_name, 0) != 0) {
            lda_error_fail(err, "cannot remove %s/%s: %s", f->shown, e->d_name, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* MODEL holds no model (a new or empty folder, or this run's checkpoint alone): there is no old
 * model to keep whole, and a swap would move a folder that may be a shell's current one (-o
 * .). The files move in one by one, model.conf last: until it comes the folder holds no model,
 * as before (readers say so). */
static int move_in(const lda_model_folder *f, const char *staging, lda_error *err)
{
    DIR *model = lda_open_folder(f->path), *d = model ? lda_open_folder(staging) : NULL;
    if (!d) {
        lda_error_fail(err, "cannot open folder %s: %s", model ? staging : f->shown, strerror(errno));
        if (model)
            closedir(model);
        return -1;
    }
    int rc = remove_unfinished(model, f, d, err);
    const char *const last[] = {NULL, LDA_MANIFEST_NAME, "model.conf"}; /* NULL: every other file */
    for (int pass = 0; pass < 3 && rc == 0; pass++) {
        rewinddir(d);
        for (struct dirent *e; rc == 0 && (e = readdir(d));) {
            const char *n = e->d_name;
            const int later = strcmp(n, LDA_MANIFEST_NAME) == 0 || strcmp(n, "model.conf") == 0;
            if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || (last[pass] ? strcmp(n, last[pass]) != 0 : later))
                continue;
            lda_model_folder_pause();
            if (renameat(dirfd(d), n, dirfd(model), n) != 0) {
                lda_error_fail(err, "cannot move %s/%s into %s: %s", staging, n, f->shown, strerror(errno));
                rc = -1;
            }
        }
    }
    closedir(d);
    closedir(model);
    if (rc == 0 && rmdir(staging) != 0) {
        lda_error_fail(err, "cannot remove folder %s: %s", staging, strerror(errno));
        rc = -1;
    }
    return rc;
}

int lda_model_folder_replace(lda_model_folder *f, lda_model_folder_fill fill, void *ctx, uint64_t run_id,
                             lda_error *err)
{
    char *staging = lda_sibling_path(f->parent, f->name, LDA_SIBLING_NEW, (long)getpid(), err), *old = NULL;
    int lock = -1, rc = -1;
    struct stat sb, cwd, before;
    if (!staging)
        return -1;
    if (lstat(staging, &sb) == 0 && lda_tidy_into(staging, f->path, err)) { /* an earlier attempt of this process */
        free(staging);
        return -1;
    }
    const int swap = holds_model(f->path);
    const int inside = swap && stat(".", &cwd) == 0 && stat(f->path, &before) == 0 && cwd.st_dev == before.st_dev &&
                       cwd.st_ino == before.st_ino;
    if (stage(f, staging, fill, ctx, swap, &lock, err) ||
        (swap ? swap_in(f, staging, &old, err) : move_in(f, staging, err))) {
        if (!old)
            discard(f, staging, err);
    } else {
        lda_sync_folder(f->parent);
        lda_sync_folder(f->path);
        /* The model is in place; what is left moves the user's things back and removes the old. */
        rc = swap ? finish_old(f, old, run_id, err) : drop_other_checkpoint(f, run_id, err);
        f->replaced_cwd = inside;
    }
    lda_dir_unlock(&lock);
    free(staging);
    free(old);
    return rc;
}
