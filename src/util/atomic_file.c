/* atomic_file.c — see atomic_file.h. */
#include "util/atomic_file.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *lda_path_join(const char *dir, const char *name, lda_error *err)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = lda_malloc(n, "path", err);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int lda_make_dirs(const char *path, lda_error *err)
{
    char *copy = strdup(path);
    if (!copy) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    for (char *p = copy + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
                lda_error_fail(err, "cannot create folder %s: %s", copy, strerror(errno));
                free(copy);
                return -1;
            }
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    struct stat sb;
    int is_dir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(copy);
    if (!is_dir) {
        lda_error_fail(err, "%s exists and is not a folder", path);
        return -1;
    }
    return 0;
}

/* ---- the inputs of this process, which no output may replace ---- */

typedef struct {
    dev_t dev;
    ino_t ino;
    char *what;
} input_file;

static struct {
    pthread_mutex_t lock;
    int on;
    input_file *files;
    size_t count, cap;
} inputs = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0};

void lda_atomic_guard_inputs(void)
{
    inputs.on = 1;
}

int lda_atomic_protect(const char *path, const char *what, lda_error *err)
{
    struct stat sb;
    if (!inputs.on || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0; /* nothing there (yet), or a stream that no rename can replace */
    pthread_mutex_lock(&inputs.lock);
    int rc = 0;
    for (size_t i = 0; i < inputs.count; i++)
        if (inputs.files[i].dev == sb.st_dev && inputs.files[i].ino == sb.st_ino)
            goto out;
    if (inputs.count == inputs.cap) {
        size_t cap = inputs.cap ? 2 * inputs.cap : 16;
        input_file *files = realloc(inputs.files, cap * sizeof *files);
        if (!files) {
            lda_error_fail(err, "out of memory");
            rc = -1;
            goto out;
        }
        inputs.files = files;
        inputs.cap = cap;
    }
    input_file *f = &inputs.files[inputs.count];
    if (!(f->what = strdup(what))) {
        lda_error_fail(err, "out of memory");
        rc = -1;
        goto out;
    }
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
    inputs.count++;
out:
    pthread_mutex_unlock(&inputs.lock);
    return rc;
}

/* Refuses target (the file an output would replace) when it is one of the inputs; shown is
 * the name the user gave. */
static int refuse_input(const char *target, const char *shown, lda_error *err)
{
    struct stat sb;
    if (stat(target, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    pthread_mutex_lock(&inputs.lock);
    int rc = 0;
    for (size_t i = 0; i < inputs.count && rc == 0; i++)
        if (inputs.files[i].dev == sb.st_dev && inputs.files[i].ino == sb.st_ino) {
            lda_error_input(err, "cannot write %s: it is %s, which this command reads; write the output elsewhere",
                            shown, inputs.files[i].what);
            rc = -1;
        }
    pthread_mutex_unlock(&inputs.lock);
    return rc;
}

#define TMP_SUFFIX ".tmp-"

/* Where data for path must go: af->path (a symbolic link's target), and whether it is a
 * special file to write in place. */
static int choose_target(lda_atomic_file *af, const char *path, int *direct, lda_error *err)
{
    struct stat sb;
    int exists = lstat(path, &sb) == 0;
    if (!exists && errno != ENOENT) {
        lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (exists && S_ISLNK(sb.st_mode)) {
        if (!(af->path = realpath(path, NULL)) || stat(af->path, &sb) != 0) {
            if (errno == ENOENT)
                lda_error_fail(err, "cannot write %s: a symbolic link to a missing file", path);
            else
                lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
    } else if (!(af->path = strdup(path))) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    if (exists && S_ISDIR(sb.st_mode)) {
        lda_error_fail(err, "cannot write %s: it is a folder", path);
        return -1;
    }
    *direct = exists && !S_ISREG(sb.st_mode);
    return 0;
}

int lda_atomic_open(lda_atomic_file *af, const char *path, lda_error *err)
{
    memset(af, 0, sizeof *af);
    int direct;
    if (choose_target(af, path, &direct, err) || refuse_input(af->path, path, err)) {
        lda_atomic_abort(af);
        return -1;
    }
    if (direct) {
        if (!(af->f = fopen(af->path, "wb"))) {
            lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
            lda_atomic_abort(af);
            return -1;
        }
        return 0;
    }
    size_t n = strlen(af->path) + 32;
    if (!(af->tmp_path = malloc(n))) {
        lda_error_fail(err, "out of memory");
        lda_atomic_abort(af);
        return -1;
    }
    snprintf(af->tmp_path, n, "%s" TMP_SUFFIX "%ld", af->path, (long)getpid());
    if (!(af->f = fopen(af->tmp_path, "wb"))) { /* named as the user gave it: the temporary name is ours */
        lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
        lda_atomic_abort(af);
        return -1;
    }
    return 0;
}

int lda_atomic_commit(lda_atomic_file *af, lda_error *err)
{
    /* A device or a pipe cannot be synced (EINVAL) and has nothing to rename. */
    int failed = fflush(af->f) != 0 || ferror(af->f) || (af->tmp_path && fsync(fileno(af->f)) != 0);
    int saved_errno = errno;
    failed |= fclose(af->f) != 0;
    af->f = NULL;
    if (failed) {
        lda_error_fail(err, "cannot write %s: %s", af->path, strerror(saved_errno ? saved_errno : errno));
    } else if (af->tmp_path && refuse_input(af->path, af->path, err)) { /* read since the open */
        failed = 1;
    } else if (af->tmp_path && rename(af->tmp_path, af->path) != 0) {
        lda_error_fail(err, "cannot rename %s to %s: %s", af->tmp_path, af->path, strerror(errno));
        failed = 1;
    }
    if (failed && af->tmp_path)
        unlink(af->tmp_path);
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    return failed ? -1 : 0;
}

void lda_atomic_abort(lda_atomic_file *af)
{
    if (af->f) {
        fclose(af->f);
        if (af->tmp_path)
            unlink(af->tmp_path);
    }
    free(af->path);
    free(af->tmp_path);
    memset(af, 0, sizeof *af);
}
