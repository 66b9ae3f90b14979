/* atomic_file.c — see atomic_file.h. */
#include "util/atomic_file.h"

#include <errno.h>
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

int lda_atomic_open(lda_atomic_file *af, const char *path, lda_error *err)
{
    memset(af, 0, sizeof *af);
    size_t n = strlen(path) + 32;
    af->path = strdup(path);
    af->tmp_path = malloc(n);
    if (!af->path || !af->tmp_path) {
        lda_error_fail(err, "out of memory");
        lda_atomic_abort(af);
        return -1;
    }
    snprintf(af->tmp_path, n, "%s.tmp-%ld", path, (long)getpid());
    if (!(af->f = fopen(af->tmp_path, "wb"))) {
        lda_error_fail(err, "cannot write %s: %s", af->tmp_path, strerror(errno));
        lda_atomic_abort(af);
        return -1;
    }
    return 0;
}

int lda_atomic_commit(lda_atomic_file *af, lda_error *err)
{
    int failed = fflush(af->f) != 0 || ferror(af->f) || fsync(fileno(af->f)) != 0;
    int saved_errno = errno;
    failed |= fclose(af->f) != 0;
    af->f = NULL;
    if (failed) {
        lda_error_fail(err, "cannot write %s: %s", af->path, strerror(saved_errno ? saved_errno : errno));
    } else if (rename(af->tmp_path, af->path) != 0) {
        lda_error_fail(err, "cannot rename %s to %s: %s", af->tmp_path, af->path, strerror(errno));
        failed = 1;
    }
    if (failed)
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
        unlink(af->tmp_path);
    }
    free(af->path);
    free(af->tmp_path);
    memset(af, 0, sizeof *af);
}
