/* matrix_file.c — see matrix_file.h. Host byte order is assumed little-endian (x86-64 and
 * the GPU hosts we support); the header's magic makes a mismatch detectable. */
#include "model/matrix_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomic_file.h"

static const char magic[8] = {'L', 'D', 'A', 'G', 'P', 'U', 'M', 'X'};

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t type;
    uint64_t rows;
    uint64_t cols;
    uint8_t reserved[32];
} matrix_header;

_Static_assert(sizeof(matrix_header) == 64, "matrix header is 64 bytes");

int lda_matrix_write(const char *path, lda_matrix_type type, uint64_t rows, uint64_t cols, const void *data,
                     lda_error *err)
{
    matrix_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, sizeof magic);
    h.version = LDA_MATRIX_VERSION;
    h.type = type;
    h.rows = rows;
    h.cols = cols;
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    size_t n = (size_t)(rows * cols);
    if (fwrite(&h, sizeof h, 1, af.f) != 1 || (n && fwrite(data, 4, n, af.f) != n)) {
        lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

/* Whether a regular file holds n values after its header (anything else is read to its end). */
static int fits_in_file(FILE *f, uint64_t n)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        return 1;
    return (uint64_t)sb.st_size >= sizeof(matrix_header) && n <= ((uint64_t)sb.st_size - sizeof(matrix_header)) / 4;
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
    matrix_header h;
    int ok = fread(&h, sizeof h, 1, f) == 1;
    if (!ok || memcmp(h.magic, magic, sizeof magic) != 0) {
        lda_error_input(err, "%s: not an ldagpu matrix file (bad header)", path);
        ok = 0;
    } else if (h.version != LDA_MATRIX_VERSION) {
        lda_error_input(err, "%s: matrix format version %u, this ldagpu reads version %u", path, h.version,
                        LDA_MATRIX_VERSION);
        ok = 0;
    } else if (h.type != (uint32_t)type) {
        lda_error_input(err, "%s: element type %u, expected %u", path, h.type, (unsigned)type);
        ok = 0;
    } else if (h.cols && h.rows > SIZE_MAX / 4 / h.cols) {
        lda_error_input(err, "%s: impossible size %llu x %llu", path, (unsigned long long)h.rows,
                        (unsigned long long)h.cols);
        ok = 0;
    } else if (!fits_in_file(f, h.rows * h.cols)) {
        /* Before allocating what a 64-byte header may claim. */
        lda_error_input(err, "%s: truncated (expected %llu values)", path, (unsigned long long)(h.rows * h.cols));
        ok = 0;
    } else {
        size_t n = (size_t)(h.rows * h.cols);
        if (!(*data = lda_malloc_array(n, 4, path, err)))
            ok = 0;
        else if (n && fread(*data, 4, n, f) != n) {
            lda_error_input(err, "%s: truncated (expected %zu values)", path, n);
            ok = 0;
        }
    }
    fclose(f);
    if (ok && type == LDA_MATRIX_F32 && check_finite(path, *data, h.rows, h.cols, err))
        ok = 0;
    if (!ok) {
        free(*data);
        *data = NULL;
        return -1;
    }
    *rows = h.rows;
    *cols = h.cols;
    return 0;
}
