/* folder_tidy.c — see folder_tidy.h. */
#include "model/folder_tidy.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/checkpoint.h"
#include "model/doc_topics.h"
#include "model/model.h"
#include "util/atomic_file.h"

void lda_model_folder_pause(void)
{
    const char *v = getenv("LDAGPU_RENAME_PAUSE_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0)
        return;
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int lda_process_gone(long pid)
{
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int lda_model_file_name(const char *name)
{
    for (const char *const *f = lda_model_files; *f; f++)
        if (strcmp(name, *f) == 0)
            return 1;
    for (const char *const *f = lda_doc_topics_all_files; *f; f++)
        if (strcmp(name, *f) == 0)
            return 1;
    return 0;
}

/* A file of ldagpu's in a folder it made itself: a model file, or one of its atomic writes cut
 * short ("phi.npy.tmp-PID", atomic_file.h). */
int lda_written_by_ldagpu(const char *name)
{
    if (lda_model_file_name(name) || strcmp(name, LDA_STAGING_MARK) == 0)
        return 1;
    const char *tmp = strstr(name, ".tmp-");
    if (!tmp || strspn(tmp + 5, "0123456789") != strlen(tmp + 5) || !tmp[5])
        return 0;
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(tmp - name), name);
    return lda_model_file_name(base);
}

void lda_sync_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

DIR *lda_open_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d)
        close(fd);
    return d;
}

/* ---- ldagpu's state folders (checkpoints) ---- */

int lda_state_folder_is_ours(const char *path)
{
    DIR *d = lda_open_folder(path);
    if (!d)
        return 0;
    int ours = 1;
    for (struct dirent *e; ours && (e = readdir(d));) {
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ours = fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
               lda_written_by_ldagpu(e->d_name);
    }
    closedir(d);
    return ours;
}

int lda_state_folder_remove(const char *path, lda_error *err)
{
    DIR *d = lda_open_folder(path);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        lda_error_fail(err, "cannot open folder %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            !lda_written_by_ldagpu(e->d_name))
            continue; /* not ours: it stays, and the folder with it */
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT) {
            lda_error_fail(err, "cannot remove %s/%s: %s", path, e->d_name, strerror(errno));
            rc = -1;
        }
    }
    closedir(d);
    if (rc == 0 && rmdir(path) != 0 && errno != ENOENT) {
        if (errno == ENOTEMPTY || errno == EEXIST)
            lda_error_fail(err, "cannot remove %s: it holds files ldagpu did not write", path);
        else
            lda_error_fail(err, "cannot remove folder %s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* ---- the folders beside MODEL: PARENT/.NAME.ldagpu-new-PID and -old-PID ---- */

/* ".NAME.ldagpu-": the start of MODEL's siblings' names (a long NAME shortened, with a hash of
 * the whole, so that the names stay within NAME_MAX and still belong to one folder). */
static void sibling_prefix(const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    if (len <= 200) {
        snprintf(out, size, ".%s.ldagpu-", name);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
    snprintf(out, size, ".%.180s~%016llx.ldagpu-", name, (unsigned long long)h);
}

char *lda_sibling_path(const char *parent, const char *name, const char *kind, long pid, lda_error *err)
{
    char prefix[256], sibling[300];
    sibling_prefix(name, prefix, sizeof prefix);
    snprintf(sibling, sizeof sibling, "%s%s-%ld", prefix, kind, pid);
    return lda_path_join(parent, sibling, err);
}

/* The pid of a sibling's name "PREFIX" KIND "-PID", or 0. */
static long sibling_pid(const char *entry, const char *prefix, const char *kind)
{
    size_t lp = strlen(prefix), lk = strlen(kind);
    if (strncmp(entry, prefix, lp) != 0 || strncmp(entry + lp, kind, lk) != 0 || entry[lp + lk] != '-')
        return 0;
    const char *digits = entry + lp + lk + 1;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
        return 0;
    return strtol(digits, NULL, 10);
}

/* Empties a folder beside MODEL (a run's new folder, or the old one after the swap) into
 * MODEL: model files and ldagpu's checkpoints are deleted, copies (hard links) of what MODEL
 * holds are dropped, anything else is moved into MODEL where the name is free; the folder is
 * removed when nothing is left. Nothing of the user's is deleted: the cut-short writes
 * ("NAME.tmp-PID") go only from a new folder, which its mark tells from an old one (the mark
 * is removed just before the swap, when no write is under way any more). */
int lda_tidy_into(const char *from, const char *model, lda_error *err)
{
    DIR *d = lda_open_folder(from);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        lda_error_fail(err, "cannot open folder %s: %s", from, strerror(errno));
        return -1;
    }
    struct stat mark;
    const int staging = fstatat(dirfd(d), LDA_STAGING_MARK, &mark, AT_SYMLINK_NOFOLLOW) == 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        const char *n = e->d_name;
        struct stat sb, in_model;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        char *src = lda_path_join(from, n, err), *dst = src ? lda_path_join(model, n, err) : NULL;
        if (!dst) {
            free(src);
            rc = -1;
            break;
        }
        const int model_has = lstat(dst, &in_model) == 0;
        if (S_ISREG(sb.st_mode) && (lda_model_file_name(n) || (staging && lda_written_by_ldagpu(n)))) {
            if (unlink(src) != 0 && errno != ENOENT) {
                lda_error_fail(err, "cannot remove %s: %s", src, strerror(errno));
                rc = -1;
            }
        } else if (S_ISDIR(sb.st_mode) && lda_checkpoint_entry(n) && lda_state_folder_is_ours(src)) {
            rc = lda_state_folder_remove(src, err);
        } else if (model_has && in_model.st_dev == sb.st_dev && in_model.st_ino == sb.st_ino) {
            if (!S_ISDIR(sb.st_mode) && unlink(src) != 0 && errno != ENOENT) {
                lda_error_fail(err, "cannot remove %s: %s", src, strerror(errno));
                rc = -1;
            }
        } else if (!model_has) {
            lda_model_folder_pause();
            if (rename(src, dst) != 0) {
                lda_error_fail(err, "cannot move %s back into %s: %s", src, model, strerror(errno));
                rc = -1;
            }
        }
        free(src);
        free(dst);
    }
    closedir(d);
    if (rc == 0 && rmdir(from) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST) {
        lda_error_fail(err, "cannot remove folder %s: %s", from, strerror(errno));
        rc = -1;
    }
    return rc;
}

int lda_tidy_siblings(const char *parent, const char *name, const char *model, lda_error *err)
{
    char prefix[256];
    sibling_prefix(name, prefix, sizeof prefix);
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        long pid = sibling_pid(e->d_name, prefix, LDA_SIBLING_NEW);
        if (!pid)
            pid = sibling_pid(e->d_name, prefix, LDA_SIBLING_OLD);
        if (!lda_process_gone(pid))
            continue;
        char *path = lda_path_join(parent, e->d_name, err);
        rc = path ? lda_tidy_into(path, model, err) : -1;
        free(path);
    }
    closedir(d);
    return rc;
}

void lda_restore_aside(const char *parent, const char *name)
{
    char prefix[256];
    sibling_prefix(name, prefix, sizeof prefix);
    DIR *d = opendir(parent);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!lda_process_gone(sibling_pid(e->d_name, prefix, LDA_SIBLING_OLD)))
            continue;
        char from[8192], to[8192];
        snprintf(from, sizeof from, "%s/%s", parent, e->d_name);
        snprintf(to, sizeof to, "%s/%s", parent, name);
        if (rename(from, to) == 0)
            break;
    }
    closedir(d);
}
