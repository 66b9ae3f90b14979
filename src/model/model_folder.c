/* model_folder.c — see model_folder.h. */
#include "model/model_folder.h"

#include <dirent.h>
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
#include "model/checksum.h"
#include "model/doc_topics.h"
#include "model/manifest.h"
#include "model/model.h"
#include "model/model_output.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"

#define SIBLING_NEW "new"
#define SIBLING_OLD "old"

/* ---- small pieces ---- */

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

uint64_t lda_run_id(const lda_settings *s, uint64_t corpus_checksum)
{
    uint64_t h = lda_checksum_u64(LDA_CHECKSUM_INIT, corpus_checksum);
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        if (row->may_change)
            continue;
        char buf[1024];
        const char *v = lda_setting_format(row, s, buf, sizeof buf);
        h = lda_checksum_bytes(h, row->key, strlen(row->key) + 1);
        h = v ? lda_checksum_bytes(h, v, strlen(v) + 1) : lda_checksum_u64(h, 0);
    }
    return h ? h : 1;
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

#define STAGING_MARK ".ldagpu-staging"

/* A file of ldagpu's in a folder it made itself: a model file, or one of its atomic writes cut
 * short ("phi.npy.tmp-PID", atomic_file.h). */
static int written_by_ldagpu(const char *name)
{
    if (lda_model_file_name(name) || strcmp(name, STAGING_MARK) == 0)
        return 1;
    const char *tmp = strstr(name, ".tmp-");
    if (!tmp || strspn(tmp + 5, "0123456789") != strlen(tmp + 5) || !tmp[5])
        return 0;
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(tmp - name), name);
    return lda_model_file_name(base);
}

static char *dup_or_fail(const char *s, lda_error *err)
{
    char *d = strdup(s);
    if (!d)
        lda_error_fail(err, "out of memory");
    return d;
}

static void sync_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* dir opened as a folder without following a link (NULL with errno when it is one). */
static DIR *open_folder(const char *path)
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
    DIR *d = open_folder(path);
    if (!d)
        return 0;
    int ours = 1;
    for (struct dirent *e; ours && (e = readdir(d));) {
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ours = fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
               written_by_ldagpu(e->d_name);
    }
    closedir(d);
    return ours;
}

int lda_state_folder_remove(const char *path, lda_error *err)
{
    DIR *d = open_folder(path);
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
            !written_by_ldagpu(e->d_name))
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

static char *sibling_path(const lda_model_folder *f, const char *kind, long pid, lda_error *err)
{
    char prefix[256], name[300];
    sibling_prefix(f->name, prefix, sizeof prefix);
    snprintf(name, sizeof name, "%s%s-%ld", prefix, kind, pid);
    return lda_path_join(f->parent, name, err);
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
static int tidy_into(const char *from, const char *model, lda_error *err)
{
    DIR *d = open_folder(from);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        lda_error_fail(err, "cannot open folder %s: %s", from, strerror(errno));
        return -1;
    }
    struct stat mark;
    const int staging = fstatat(dirfd(d), STAGING_MARK, &mark, AT_SYMLINK_NOFOLLOW) == 0;
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
        if (S_ISREG(sb.st_mode) && (lda_model_file_name(n) || (staging && written_by_ldagpu(n)))) {
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

/* What killed runs left beside MODEL: their folders, tidied into it. */
static int tidy_siblings(const lda_model_folder *f, lda_error *err)
{
    char prefix[256];
    sibling_prefix(f->name, prefix, sizeof prefix);
    DIR *d = opendir(f->parent);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        long pid = sibling_pid(e->d_name, prefix, SIBLING_NEW);
        if (!pid)
            pid = sibling_pid(e->d_name, prefix, SIBLING_OLD);
        if (!lda_process_gone(pid))
            continue;
        char *path = lda_path_join(f->parent, e->d_name, err);
        rc = path ? tidy_into(path, f->path, err) : -1;
        free(path);
    }
    closedir(d);
    return rc;
}

/* MODEL is absent: a run killed between the two renames of a swap without RENAME_EXCHANGE
 * left the old model aside; it goes back. */
static void restore_aside(const char *parent, const char *name)
{
    char prefix[256];
    sibling_prefix(name, prefix, sizeof prefix);
    DIR *d = opendir(parent);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!lda_process_gone(sibling_pid(e->d_name, prefix, SIBLING_OLD)))
            continue;
        char from[8192], to[8192];
        snprintf(from, sizeof from, "%s/%s", parent, e->d_name);
        snprintf(to, sizeof to, "%s/%s", parent, name);
        if (rename(from, to) == 0)
            break;
    }
    closedir(d);
}

/* ---- opening: the rules of -o ---- */

/* parent/name of path, text only ("a/b/" -> "a", "b"; "b" -> ".", "b"). */
static int split_text(const char *path, char **parent, char **name, lda_error *err)
{
    char *p = dup_or_fail(path, err);
    if (!p)
        return -1;
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        p[--len] = '\0';
    char *slash = strrchr(p, '/');
    *name = dup_or_fail(slash ? slash + 1 : p, err);
    if (slash == p)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    *parent = slash ? p : dup_or_fail(".", err);
    if (!slash)
        free(p);
    if (!*name || !*parent) {
        free(*name);
        free(*parent);
        return -1;
    }
    return 0;
}

/* What a folder holds, for the rules. */
typedef struct {
    int entries;     /* anything at all */
    int model;       /* a model.conf that reads as an ldagpu model's */
    int checkpoint;  /* a checkpoint folder (or what is left of one) */
    int unfinished;  /* a model's files without model.conf: a write cut short (move_in) */
    char other[256]; /* the first entry that is none of these */
} folder_contents;

static int survey(const char *path, folder_contents *c, lda_error *err)
{
    memset(c, 0, sizeof *c);
    DIR *d = opendir(path);
    if (!d) {
        lda_error_fail(err, "cannot open folder %s: %s", path, strerror(errno));
        return -1;
    }
    int conf = 0, files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        c->entries++;
        if (strcmp(e->d_name, "model.conf") == 0)
            conf = fstatat(dirfd(d), e->d_name, &sb, 0) == 0 && S_ISREG(sb.st_mode); /* no FIFO is read */
        else if (lda_checkpoint_entry(e->d_name))
            c->checkpoint = 1;
        else if (lda_model_file_name(e->d_name))
            files++;
        else if (!c->other[0])
            snprintf(c->other, sizeof c->other, "%s", e->d_name);
    }
    closedir(d);
    if (conf) {
        lda_model m;
        lda_error ignored;
        c->model = lda_model_read_conf(&m, path, &ignored) == 0;
        if (c->model)
            lda_model_free(&m);
        else if (!c->other[0])
            snprintf(c->other, sizeof c->other, "a model.conf that is not an ldagpu model's");
    }
    c->unfinished = !conf && files > 0;
    return 0;
}

/* A model about to be replaced: none of its files a link, its checkpoints ldagpu's own. */
static int check_replaceable(const char *path, const char *shown, lda_error *err)
{
    DIR *d = opendir(path);
    if (!d) {
        lda_error_fail(err, "cannot open folder %s: %s", shown, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        struct stat sb;
        const int model_file = lda_model_file_name(e->d_name), checkpoint = lda_checkpoint_entry(e->d_name);
        if ((!model_file && !checkpoint) || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISLNK(sb.st_mode)) {
            lda_error_input(err, "%s/%s is a symbolic link: a run replaces a model's files itself and never a "
                            "link's target; remove the link or write elsewhere", shown, e->d_name);
            rc = -1;
        } else if (checkpoint) {
            char *sub = lda_path_join(path, e->d_name, err);
            if (!sub)
                rc = -1;
            else if (!lda_state_folder_is_ours(sub)) {
                lda_error_input(err, "%s/%s is not an ldagpu checkpoint (it holds other files), and a run writes "
                                "its checkpoint there; move it or write elsewhere", shown, e->d_name);
                rc = -1;
            }
            free(sub);
        }
    }
    closedir(d);
    return rc;
}

/* Whether the state resumed lies in the folder (it, or its checkpoint). */
static int resumes_here(const char *path, const char *resumed)
{
    char *r = resumed ? realpath(resumed, NULL) : NULL;
    size_t n = strlen(path);
    int here = r && strncmp(r, path, n) == 0 && (r[n] == '\0' || r[n] == '/');
    free(r);
    return here;
}

static int apply_rules(lda_model_folder *f, int force, const char *resumed, lda_error *err)
{
    folder_contents c;
    if (survey(f->path, &c, err))
        return -1;
    if (!c.entries)
        return 0;
    if (c.other[0] && !c.model) {
        lda_error_input(err, "-o %s is not empty and holds no ldagpu model (%s%s): a run writes a new or empty "
                        "folder, or replaces a model with --force", f->shown, c.other,
                        c.entries > 1 ? ", ..." : "");
        return -1;
    }
    if (!force && !resumes_here(f->path, resumed)) {
        lda_error_input(err, "-o %s holds %s: use --force to replace it or --resume %s to continue it", f->shown,
                        c.model        ? "a model"
                        : c.unfinished ? "an unfinished model (a run stopped while writing it)"
                                       : "a run's checkpoint",
                        f->shown);
        return -1;
    }
    return check_replaceable(f->path, f->shown, err);
}

/* Creates path (and missing parents); *top gets the highest folder created, to remove them
 * again if the run leaves them empty. */
static int create_folder(const char *path, char **top, lda_error *err)
{
    char *p = dup_or_fail(path, err);
    if (!p)
        return -1;
    for (;;) { /* the highest missing ancestor */
        char *parent, *name;
        if (split_text(p, &parent, &name, err)) {
            free(p);
            return -1;
        }
        free(name);
        struct stat sb;
        if (strcmp(parent, p) == 0 || lstat(parent, &sb) == 0 || errno != ENOENT) {
            free(parent);
            break;
        }
        free(p);
        p = parent;
    }
    if (lda_make_dirs(path, err)) {
        free(p);
        return -1;
    }
    *top = realpath(p, NULL);
    free(p);
    return 0;
}

int lda_model_folder_open(lda_model_folder *f, const char *dir, int force, const char *resumed, lda_error *err)
{
    memset(f, 0, sizeof *f);
    f->lock_fd = -1;
    if (!*dir) {
        lda_error_input(err, "-o: an empty name is not a folder");
        return -1;
    }
    if (lda_model_check_output(dir, err) || !(f->shown = dup_or_fail(dir, err)))
        goto fail;
    struct stat sb;
    if (lstat(dir, &sb) != 0) {
        char *parent, *name, *real_parent;
        if (split_text(dir, &parent, &name, err))
            goto fail;
        if ((real_parent = realpath(parent, NULL)))
            restore_aside(real_parent, name);
        free(real_parent);
        free(parent);
        free(name);
        if (lstat(dir, &sb) != 0) {
            if (create_folder(dir, &f->created_top, err))
                goto fail;
            f->created = 1;
        }
    }
    if (!(f->path = realpath(dir, NULL))) {
        lda_error_fail(err, "cannot find folder %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (strcmp(f->path, "/") == 0) {
        lda_error_input(err, "-o %s: the root folder cannot be a model folder", dir);
        goto fail;
    }
    if (split_text(f->path, &f->parent, &f->name, err))
        goto fail;
    /* The new model is made beside the old one: the parent must take a new folder. */
    if (access(f->parent, W_OK | X_OK) != 0) {
        lda_error_fail(err, "cannot write the model folder %s: its parent %s: %s (a model is written in a new "
                       "folder beside the old one, then swapped in)", dir, f->parent, strerror(errno));
        goto fail;
    }
    /* Killed runs' leftovers first (only ldagpu's own), so that they do not count as content. */
    if (lda_dir_lock(f->path, dir, &f->lock_fd, err) || tidy_siblings(f, err) || lda_checkpoint_tidy(f->path, err) ||
        apply_rules(f, force, resumed, err))
        goto fail;
    return 0;
fail:
    lda_model_folder_close(f);
    return -1;
}

void lda_model_folder_close(lda_model_folder *f)
{
    lda_dir_unlock(&f->lock_fd);
    if (f->created && f->path && f->created_top) { /* left empty: removed, up to what was made for it */
        char *p = strdup(f->path);
        size_t top = strlen(f->created_top);
        while (p && strlen(p) >= top && rmdir(p) == 0) {
            char *slash = strrchr(p, '/');
            if (!slash || slash == p)
                break;
            *slash = '\0';
        }
        free(p);
    }
    free(f->created_top);
    free(f->shown);
    free(f->path);
    free(f->parent);
    free(f->name);
    memset(f, 0, sizeof *f);
    f->lock_fd = -1;
}

/* ---- replacing: a new folder, one swap ---- */

/* The files and links MODEL holds that are not the old model's (a report put there, ...) as
 * hard links in the new folder, so they are in MODEL at every moment. Folders, and what cannot
 * be linked, are moved after the swap (tidy_into). */
static int link_extras(const char *model, const char *staging, lda_error *err)
{
    DIR *d = open_folder(model), *s = d ? open_folder(staging) : NULL;
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
    char *from = lda_path_join(old, LDA_CHECKPOINT_DIR, err), *to = from ? lda_path_join(f->path, LDA_CHECKPOINT_DIR, err) : NULL;
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
    rc = tidy_into(old, f->path, err);
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
        *old = dup_or_fail(staging, err);
        return *old ? 0 : -1;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
        lda_error_fail(err, "cannot put the new model in place of %s: %s", f->shown, strerror(errno));
        return -1;
    }
    /* No exchange on this file system: the old one aside, then the new one in. */
    if (!(*old = sibling_path(f, SIBLING_OLD, (long)getpid(), err)))
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
    char *mark = lda_path_join(staging, STAGING_MARK, err);
    int fd = -1, rc = -1;
    if (!mark)
        return -1;
    if (mkdir(staging, 0700) != 0) {
        lda_error_fail(err, "cannot create folder %s: %s", staging, strerror(errno));
    } else if ((fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        lda_error_fail(err, "cannot create %s: %s", mark, strerror(errno));
    } else {
        close(fd);
        if (!fill(staging, ctx, err) && !lda_manifest_write(staging, err) && !lda_dir_lock(staging, staging, lock, err) &&
            !(swap && link_extras(f->path, staging, err))) {
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
        sync_folder(staging);
    free(mark);
    return rc;
}

/* A write that failed before the swap: the new folder goes, and the message names the
 * model's file rather than the new folder's ("cannot write m/z.npy: File too large"). */
static void discard(const lda_model_folder *f, const char *staging, lda_error *err)
{
    lda_error ignored;
    tidy_into(staging, f->path, &ignored);
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
    const int rc = lda_state_folder_is_ours(ckpt) && checkpoint_run(ckpt) != run_id ? lda_state_folder_remove(ckpt, err)
                                                                                    : 0;
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
    DIR *model = open_folder(f->path), *d = model ? open_folder(staging) : NULL;
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
    char *staging = sibling_path(f, SIBLING_NEW, (long)getpid(), err), *old = NULL;
    int lock = -1, rc = -1;
    struct stat sb, cwd, before;
    if (!staging)
        return -1;
    if (lstat(staging, &sb) == 0 && tidy_into(staging, f->path, err)) { /* an earlier attempt of this process */
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
        sync_folder(f->parent);
        sync_folder(f->path);
        /* The model is in place; what is left moves the user's things back and removes the old. */
        rc = swap ? finish_old(f, old, run_id, err) : drop_other_checkpoint(f, run_id, err);
        f->replaced_cwd = inside;
    }
    lda_dir_unlock(&lock);
    free(staging);
    free(old);
    return rc;
}

/* ---- readers ---- */

int lda_model_folder_protect(const char *dir, lda_error *err)
{
    char what[1200];
    snprintf(what, sizeof what, "a file of the model folder %s", dir);
    const char *const *lists[] = {lda_model_files, lda_doc_topics_all_files};
    for (int l = 0; l < 2; l++)
        for (const char *const *name = lists[l]; *name; name++) {
            char *path = lda_path_join(dir, *name, err);
            if (!path || lda_atomic_protect(path, what, err)) {
                free(path);
                return -1;
            }
            free(path);
        }
    return 0;
}
