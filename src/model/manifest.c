/* manifest.c — see manifest.h. */
#include "model/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/cksum.h"

#define MANIFEST_HEADER "# ldagpu: the files of this folder as `cksum` prints them (CRC, bytes, name)"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's regular files but the manifest and hidden ones, sorted (malloc'ed). */
static int list_files(const char *dir, char ***names, size_t *count, lda_error *err)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        lda_error_fail(err, "cannot open folder %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        struct stat sb;
        if (e->d_name[0] == '.' || strcmp(e->d_name, LDA_MANIFEST_NAME) == 0 ||
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(*names, cap * sizeof *grown);
            if (!grown) {
                rc = -1;
                break;
            }
            *names = grown;
        }
        if (!((*names)[*count] = strdup(e->d_name)))
            rc = -1;
        else
            (*count)++;
    }
    closedir(d);
    if (rc)
        lda_error_fail(err, "out of memory");
    else
        qsort(*names, *count, sizeof **names, by_name);
    return rc;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* The cksum value and size of dir/name. */
static int file_cksum(const char *dir, const char *name, uint32_t *crc, uint64_t *size, int *missing,
                      lda_error *err)
{
    char *path = lda_path_join(dir, name, err);
    if (!path)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;
    *missing = fd < 0 && errno == ENOENT;
    if (fd < 0) {
        if (!*missing)
            lda_error_fail(err, "cannot read %s: %s", path, strerror(errno));
    } else {
        rc = lda_cksum_fd(fd, path, crc, size, err);
        close(fd);
    }
    free(path);
    return rc;
}

int lda_manifest_write(const char *dir, lda_error *err)
{
    char **names, *path = NULL;
    size_t count;
    if (list_files(dir, &names, &count, err))
        return -1;
    lda_atomic_file af = {0};
    int rc = -1;
    if (!(path = lda_path_join(dir, LDA_MANIFEST_NAME, err)) || lda_atomic_open(&af, path, err))
        goto out;
    fprintf(af.f, "%s\n", MANIFEST_HEADER);
    for (size_t i = 0; i < count; i++) {
        uint32_t crc;
        uint64_t size;
        int missing;
        if (file_cksum(dir, names[i], &crc, &size, &missing, err)) {
            if (missing)
                lda_error_fail(err, "%s/%s vanished while its folder was being written", dir, names[i]);
            goto out;
        }
        fprintf(af.f, "%" PRIu32 " %" PRIu64 " %s\n", crc, size, names[i]);
    }
    rc = lda_atomic_commit(&af, err);
out:
    if (rc && af.f)
        lda_atomic_abort(&af);
    free(path);
    free_names(names, count);
    return rc;
}

static int skipped(const char *name, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (strcmp(name, *skip) == 0)
            return 1;
    return 0;
}

/* One line "CRC SIZE NAME"; NAME a plain file name. */
static int parse_line(char *line, uint32_t *crc, uint64_t *size, char **name)
{
    char *end;
    errno = 0;
    unsigned long long c = strtoull(line, &end, 10);
    if (end == line || *end != ' ' || errno || c > UINT32_MAX)
        return -1;
    char *p = end + 1;
    unsigned long long s = strtoull(p, &end, 10);
    if (end == p || *end != ' ' || errno)
        return -1;
    *name = end + 1;
    (*name)[strcspn(*name, "\n")] = '\0';
    if (!**name || strchr(*name, '/') || strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
        return -1;
    *crc = (uint32_t)c;
    *size = s;
    return 0;
}

int lda_manifest_verify(const char *dir, const char *const *skip, lda_error *err)
{
    char *path = lda_path_join(dir, LDA_MANIFEST_NAME, err);
    if (!path)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        const int missing = errno == ENOENT;
        if (!missing)
            lda_error_fail(err, "cannot read %s: %s", path, strerror(errno));
        free(path);
        return missing ? 0 : -1;
    }
    char line[4096];
    size_t lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            lda_error_input(err, "%s:%zu: a line longer than %zu bytes", path, lineno, sizeof line - 1);
            rc = -1;
            break;
        }
        if (line[0] == '#')
            continue;
        uint32_t crc, have_crc;
        uint64_t size, have_size;
        char *name;
        int missing;
        if (parse_line(line, &crc, &size, &name)) {
            lda_error_input(err, "%s:%zu: expected 'CRC SIZE NAME'", path, lineno);
            rc = -1;
        } else if (skipped(name, skip)) {
            continue;
        } else if (file_cksum(dir, name, &have_crc, &have_size, &missing, err)) {
            if (missing)
                lda_error_input(err, "%s/%s is missing, which %s lists: the folder is not the model that was "
                                "written; write it again", dir, name, path);
            rc = -1;
        } else if (have_crc != crc || have_size != size) {
            lda_error_input(err, "%s/%s is not the file %s lists (%" PRIu64 " bytes, cksum %" PRIu32 "; listed: %"
                            PRIu64 " bytes, cksum %" PRIu32 "): the folder mixes files of different writes; "
                            "write the model again", dir, name, path, have_size, have_crc, size, crc);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        lda_error_fail(err, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    free(path);
    return rc;
}
