/* model_output.c — see model_output.h. */
#include "model/model_output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "util/atomic_file.h"

/* The folder that would hold dir once created: its nearest existing ancestor (malloc'ed). */
static char *existing_ancestor(const char *dir, lda_error *err)
{
    char *p = malloc(strlen(dir) + 2); /* room for the "." of a name without a folder */
    if (!p) {
        lda_error_fail(err, "out of memory");
        return NULL;
    }
    strcpy(p, dir);
    for (;;) {
        struct stat sb;
        if (lstat(p, &sb) == 0 || errno != ENOENT)
            return p;
        char *slash = strrchr(p, '/');
        while (slash && slash > p && slash[-1] == '/')
            slash--;
        if (!slash) {
            strcpy(p, ".");
            return p;
        }
        slash[slash == p] = '\0'; /* "/a" -> "/" */
    }
}

static int check_writable_folder(const char *dir, const char *folder, lda_error *err)
{
    struct stat sb;
    if (stat(folder, &sb) != 0) {
        lda_error_fail(err, "cannot write the model folder %s: %s: %s", dir, folder, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        if (strcmp(dir, folder) == 0)
            lda_error_input(err, "-o %s: it exists and is not a folder", dir);
        else
            lda_error_input(err, "-o %s: cannot create the folder: %s is not a folder", dir, folder);
        return -1;
    }
    /* access() also says EROFS for a read-only file system, even to root. */
    if (access(folder, W_OK | X_OK) != 0) {
        lda_error_fail(err, "cannot write the model folder %s: %s: %s", dir, folder, strerror(errno));
        return -1;
    }
    return 0;
}

int lda_model_check_output(const char *dir, lda_error *err)
{
    if (!*dir) {
        lda_error_input(err, "-o: an empty name is not a folder");
        return -1;
    }
    char *folder = existing_ancestor(dir, err);
    if (!folder || check_writable_folder(dir, folder, err)) {
        free(folder);
        return -1;
    }
    int exists = strcmp(folder, dir) == 0;
    free(folder);
    const char *files[64];
    size_t n = 0;
    for (const char *const *f = lda_model_files; *f && n < sizeof files / sizeof files[0]; f++)
        files[n++] = *f;
    for (const char *const *f = lda_doc_topics_all_files; *f && n < sizeof files / sizeof files[0]; f++)
        files[n++] = *f; /* θ's, in any form: the one written, and the others removed */
    for (size_t i = 0; exists && i < n; i++) {
        char *path = lda_path_join(dir, files[i], err);
        struct stat sb;
        int is_dir = path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
        if (is_dir)
            lda_error_input(err, "-o %s: %s is a folder, where the model writes a file", dir, path);
        free(path);
        if (!path || is_dir)
            return -1;
    }
    return 0;
}
