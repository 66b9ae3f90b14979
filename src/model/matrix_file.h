/* matrix_file.h — ldagpu's binary matrix files (phi.bin, theta.bin, z.bin, ...).
 *
 * Format version 1, little-endian:
 *   bytes  0..7   magic "LDAGPUMX"
 *   bytes  8..11  uint32 format version (1)
 *   bytes 12..15  uint32 element type: 1 = float32, 2 = uint32
 *   bytes 16..23  uint64 rows
 *   bytes 24..31  uint64 columns
 *   bytes 32..63  reserved, zero
 *   then rows × columns elements, row-major.
 * In Python: numpy.fromfile(path, dtype='<f4', offset=64).reshape(rows, columns). */
#ifndef LDA_MATRIX_FILE_H
#define LDA_MATRIX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define LDA_MATRIX_VERSION 1u
typedef enum { LDA_MATRIX_F32 = 1, LDA_MATRIX_U32 = 2 } lda_matrix_type;

/* Writes atomically (atomic_file.h). */
int lda_matrix_write(const char *path, lda_matrix_type type, uint64_t rows, uint64_t cols, const void *data,
                     lda_error *err);
/* Reads a whole matrix; *data is malloc'ed. The type must match; rows/cols are returned.
 * A float32 matrix holding a NaN or an infinity is refused. */
int lda_matrix_read(const char *path, lda_matrix_type type, uint64_t *rows, uint64_t *cols, void **data,
                    lda_error *err);

#endif
