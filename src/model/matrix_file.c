/* matrix_file.c — see matrix_file.h. Host byte order is assumed little-endian (x86-64 and
 * the GPU hosts we support); both headers say so ('<' in .npy), so a mismatch is detectable. */
#include "model/matrix_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"

/* ---- NumPy .npy ---- */

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
enum { NPY_ALIGN = 64, NPY_PREAMBLE = 10 }; /* magic, version, uint16 header length */

static const char *npy_descr(lda_matrix_type type)
{
    return type == LDA_MATRIX_F32 ? "<f4" : type == LDA_MATRIX_U64 ? "<u8" : "<u4";
}

size_t lda_matrix_elem_size(lda_matrix_type type) { return type == LDA_MATRIX_U64 ? 8 : 4; }

int lda_matrix_write(const char *path, lda_matrix_type type, uint64_t rows, uint64_t cols, const void *data,
                     lda_error *err)
{
    char header[256];
    int n = cols ? snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %llu), }",
                            npy_descr(type), (unsigned long long)rows, (unsigned long long)cols)
                 : snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
                            npy_descr(type), (unsigned long long)rows);
    size_t len = (size_t)n + 1; /* + the newline */
    len += (NPY_ALIGN - (NPY_PREAMBLE + len) % NPY_ALIGN) % NPY_ALIGN;
    memset(header + n, ' ', len - (size_t)n);
    header[len - 1] = '\n';
    unsigned char preamble[NPY_PREAMBLE];
    memcpy(preamble, npy_magic, sizeof npy_magic);
    preamble[6] = 1;
    preamble[7] = 0;
    preamble[8] = (unsigned char)(len & 0xff);
    preamble[9] = (unsigned char)(len >> 8);
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    size_t count = (size_t)(rows * (cols ? cols : 1));
    if (fwrite(preamble, sizeof preamble, 1, af.f) != 1 || fwrite(header, len, 1, af.f) != 1 ||
        (count && fwrite(data, lda_matrix_elem_size(type), count, af.f) != count)) {
        lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

/* The value of 'key' in a .npy header dict: a pointer just past "'key':" and its blanks. */
static const char *npy_value(const char *header, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(header, quoted);
    if (!p)
        return NULL;
    p += strlen(quoted);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

/* Parses the header dict (NUL-terminated); 0 or -1 with a reason in *why. */
static int npy_parse_header(const char *h, lda_matrix_type type, uint64_t *rows, uint64_t *cols, const char **why)
{
    const char *descr = npy_value(h, "descr"), *order = npy_value(h, "fortran_order"), *shape = npy_value(h, "shape");
    if (!descr || !order || !shape) {
        *why = "its header lacks descr, fortran_order or shape";
        return -1;
    }
    const char *want = npy_descr(type);
    if ((descr[0] != '\'' && descr[0] != '"') || strncmp(descr + 1, want, 3) != 0 || descr[4] != descr[0]) {
        *why = type == LDA_MATRIX_F32   ? "its elements are not little-endian float32 ('<f4')"
               : type == LDA_MATRIX_U64 ? "its elements are not little-endian uint64 ('<u8')"
                                        : "its elements are not little-endian uint32 ('<u4')";
        return -1;
    }
    if (strncmp(order, "False", 5) != 0) {
        *why = "it is in Fortran (column-major) order";
        return -1;
    }
    if (*shape++ != '(') {
        *why = "its shape is not a tuple";
        return -1;
    }
    uint64_t dims[2];
    int ndim = 0;
    for (;;) {
        while (*shape == ' ')
            shape++;
        if (*shape == ')')
            break;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(shape, &end, 10);
        if (end == shape || errno || ndim == 2) {
            *why = "its shape is not one or two sizes";
            return -1;
        }
        dims[ndim++] = v;
        shape = end;
        while (*shape == ' ')
            shape++;
        if (*shape == ',')
            shape++;
    }
    if (ndim == 0) {
        *why = "it holds a scalar, not a vector or matrix";
        return -1;
    }
    *rows = dims[0];
    *cols = ndim == 2 ? dims[1] : 1;
    return 0;
}

/* Reads the header after the magic; leaves f at the first value. */
static int npy_read_header(FILE *f, const char *path, lda_matrix_type type, uint64_t *rows, uint64_t *cols,
                           lda_error *err)
{
    unsigned char v[2], l[4];
    if (fread(v, 2, 1, f) != 1 || (v[0] != 1 && v[0] != 2 && v[0] != 3)) {
        lda_error_input(err, "%s: .npy format version %u.%u, ldagpu reads 1.0 to 3.0", path, v[0], v[1]);
        return -1;
    }
    size_t nl = v[0] == 1 ? 2 : 4, len = 0;
    if (fread(l, nl, 1, f) != 1) {
        lda_error_input(err, "%s: truncated .npy header", path);
        return -1;
    }
    for (size_t i = nl; i-- > 0;)
        len = len << 8 | l[i];
    if (len > 1 << 20) {
        lda_error_input(err, "%s: .npy header of %zu bytes is not plausible", path, len);
        return -1;
    }
    char *h = malloc(len + 1);
    if (!h) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    const char *why = NULL;
    if (fread(h, 1, len, f) != len)
        why = "its header is truncated";
    h[len] = 0;
    int rc = why ? -1 : npy_parse_header(h, type, rows, cols, &why);
    free(h);
    if (rc)
        lda_error_input(err, "%s: cannot read this .npy file: %s", path, why);
    return rc;
}

/* ---- ldagpu's own format 1 (.bin), read only ---- */

static const char bin_magic[8] = {'L', 'D', 'A', 'G', 'P', 'U', 'M', 'X'};

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t type;
    uint64_t rows;
    uint64_t cols;
    uint8_t reserved[32];
} bin_header;

_Static_assert(sizeof(bin_header) == 64, "matrix header is 64 bytes");

/* Reads the rest of the 64-byte header after its magic; leaves f at the first value. */
static int bin_read_header(FILE *f, const char *path, lda_matrix_type type, uint64_t *rows, uint64_t *cols,
                           lda_error *err)
{
    bin_header h;
    if (fread((char *)&h + sizeof bin_magic, sizeof h - sizeof bin_magic, 1, f) != 1) {
        lda_error_input(err, "%s: not an ldagpu matrix file (bad header)", path);
        return -1;
    }
    if (h.version != 1) {
        lda_error_input(err, "%s: matrix format version %u, this ldagpu reads version 1", path, h.version);
        return -1;
    }
    if (h.type != (uint32_t)type) {
        lda_error_input(err, "%s: element type %u, expected %u", path, h.type, (unsigned)type);
        return -1;
    }
    *rows = h.rows;
    *cols = h.cols;
    return 0;
}

/* Whether a regular file holds n values of `size` bytes after the header just read (anything
 * else is read to its end). */
static int fits_in_file(FILE *f, uint64_t n, size_t size)
{
    struct stat sb;
    const long at = ftell(f);
    if (at < 0 || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        return 1;
    return (uint64_t)sb.st_size >= (uint64_t)at && n <= ((uint64_t)sb.st_size - (uint64_t)at) / size;
}

/* A model of NaN or infinite values would print NaN topics and scores and exit 0: such a
 * file is refused where it is read. */
static int check_finite(const char *path, const float *v, uint64_t rows, uint64_t cols, lda_error *err)
{
    for (uint64_t i = 0; i < rows * cols; i++)
        if (!isfinite(v[i])) {
            lda_error_input(err, "%s: the value at row %llu, column %llu is not a finite number (%g)", path,
                            (unsigned long long)(i / cols), (unsigned long long)(i % cols), (double)v[i]);
            return -1;
        }
    return 0;
}

int lda_matrix_read(const char *path, lda_matrix_type type, uint64_t *rows, uint64_t *cols, void **data,
                    lda_error *err)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    char magic[8];
    uint64_t r = 0, c = 0;
    const size_t size = lda_matrix_elem_size(type);
    int ok = 0;
    if (fread(magic, sizeof npy_magic, 1, f) == 1 && memcmp(magic, npy_magic, sizeof npy_magic) == 0)
        ok = npy_read_header(f, path, type, &r, &c, err) == 0;
    else if (fread(magic + sizeof npy_magic, sizeof magic - sizeof npy_magic, 1, f) == 1 &&
             memcmp(magic, bin_magic, sizeof bin_magic) == 0)
        ok = bin_read_header(f, path, type, &r, &c, err) == 0;
    else
        lda_error_input(err, "%s: neither a .npy file nor an ldagpu matrix file (bad header)", path);
    if (ok && c && r > SIZE_MAX / size / c) {
        lda_error_input(err, "%s: impossible size %llu x %llu", path, (unsigned long long)r, (unsigned long long)c);
        ok = 0;
    } else if (ok && !fits_in_file(f, r * c, size)) {
        /* Before allocating what a header may claim. */
        lda_error_input(err, "%s: truncated (expected %llu values)", path, (unsigned long long)(r * c));
        ok = 0;
    }
    if (ok) {
        size_t n = (size_t)(r * c);
        if (!(*data = lda_malloc_array(n, size, path, err)))
            ok = 0;
        else if (n && fread(*data, size, n, f) != n) {
            lda_error_input(err, "%s: truncated (expected %zu values)", path, n);
            ok = 0;
        }
    }
    fclose(f);
    if (ok && type == LDA_MATRIX_F32 && check_finite(path, *data, r, c, err))
        ok = 0;
    if (!ok) {
        free(*data);
        *data = NULL;
        return -1;
    }
    *rows = r;
    *cols = c;
    return 0;
}

/* ---- names in a model folder ---- */

static char *named(const char *dir, const char *name, const char *ext, lda_error *err)
{
    char file[128];
    snprintf(file, sizeof file, "%s%s", name, ext);
    return lda_path_join(dir, file, err);
}

int lda_matrix_save(const char *dir, const char *name, lda_matrix_type type, uint64_t rows, uint64_t cols,
                    const void *data, lda_error *err)
{
    char *npy = named(dir, name, ".npy", err), *bin = npy ? named(dir, name, ".bin", err) : NULL;
    int rc = -1;
    if (!bin || lda_matrix_write(npy, type, rows, cols, data, err))
        goto out;
    if (unlink(bin) != 0 && errno != ENOENT) {
        lda_error_fail(err, "cannot remove %s: %s", bin, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    free(npy);
    free(bin);
    return rc;
}

int lda_matrix_load(const char *dir, const char *name, lda_matrix_type type, uint64_t *rows, uint64_t *cols,
                    void **data, char **path, lda_error *err)
{
    *data = NULL;
    char *npy = named(dir, name, ".npy", err);
    if (!npy)
        return -1;
    if (access(npy, F_OK) != 0) {
        char *bin = named(dir, name, ".bin", err);
        if (!bin) {
            free(npy);
            return -1;
        }
        if (access(bin, F_OK) == 0) {
            free(npy);
            npy = bin;
        } else {
            free(bin);
        }
    }
    *path = npy;
    return lda_matrix_read(npy, type, rows, cols, data, err);
}

int lda_matrix_load_sized(const char *dir, const char *name, lda_matrix_type type, uint64_t rows, uint64_t cols,
                          void **data, char **path_out, lda_error *err)
{
    char *path = NULL;
    uint64_t r, c;
    int rc = lda_matrix_load(dir, name, type, &r, &c, data, &path, err);
    if (rc == 0 && (r != rows || c != cols)) {
        lda_error_input(err, "%s: %llu x %llu values, model.conf implies %llu x %llu", path, (unsigned long long)r,
                        (unsigned long long)c, (unsigned long long)rows, (unsigned long long)cols);
        free(*data);
        *data = NULL;
        rc = -1;
    }
    if (path_out)
        *path_out = path;
    else
        free(path);
    return rc;
}
