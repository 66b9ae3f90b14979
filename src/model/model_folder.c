/* model_folder.c — see model_folder.h: the rules of a run's -o folder, its lock, its run id. */
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
#include "model/checksum.h"
#include "model/doc_topics.h"
#include "model/folder_tidy.h"
#include "model/model.h"
#include "model/model_output.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"

static char *dup_or_fail(const char *s, lda_error *err)
{
    char *d = strdup(s);
    if (!d)
        lda_error_fail(err, "out of memory");
    return d;
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
            lda_restore_aside(real_parent, name);
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
    if (lda_dir_lock(f->path, dir, &f->lock_fd, err) || lda_tidy_siblings(f->parent, f->name, f->path, err) ||
        lda_checkpoint_tidy(f->path, err) || apply_rules(f, force, resumed, err))
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
