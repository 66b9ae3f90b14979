/* matrix_file.h — the model folder's arrays (phi, θ in its forms, topic_tokens, z) on disk.
 *
 * They are written in NumPy's own format, version 1.0 (NAME.npy: numpy.load reads them with
 * no offset to know): the 6 bytes "\x93NUMPY", the bytes 1 and 0, a uint16 header length,
 * then a Python dict literal {'descr': '<f4' or '<u4', 'fortran_order': False, 'shape': (rows,
 * cols) or (rows,)} padded with spaces and a newline so the data starts at a multiple of 64
 * bytes, then rows × cols little-endian values, row-major. uint64 ('<u8') is for offsets that
 * may pass 2^32 (a sparse θ's row pointers) and exists only as .npy.
 *
 * Folders written by ldagpu before 0.2 hold NAME.bin instead, ldagpu's own format 1 (read,
 * never written): bytes 0..7 "LDAGPUMX", uint32 version (1), uint32 element type
 * (1 = float32, 2 = uint32), uint64 rows, uint64 columns, 32 reserved bytes, then the values.
 * Reading tells the two apart by their first bytes, and looks for NAME.npy first. */
#ifndef LDA_MATRIX_FILE_H
#define LDA_MATRIX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef enum { LDA_MATRIX_F32 = 1, LDA_MATRIX_U32 = 2, LDA_MATRIX_U64 = 3 } lda_matrix_type;

/* Bytes of one element: 4, or 8 for LDA_MATRIX_U64. */
size_t lda_matrix_elem_size(lda_matrix_type type);

/* Writes path as .npy, atomically (atomic_file.h). cols 0: a vector of rows values (shape
 * (rows,)); otherwise a rows × cols matrix. */
int lda_matrix_write(const char *path, lda_matrix_type type, uint64_t rows, uint64_t cols, const void *data,
                     lda_error *err);
/* Reads a whole .npy or ldagpu .bin file; *data is malloc'ed. The element type must match;
 * rows and cols are returned (a vector has cols 1). A float32 matrix holding a NaN or an
 * infinity is refused. */
int lda_matrix_read(const char *path, lda_matrix_type type, uint64_t *rows, uint64_t *cols, void **data,
                    lda_error *err);

/* dir/NAME.npy written (lda_matrix_write), then a dir/NAME.bin of an older ldagpu removed so
 * that the folder holds one copy. */
int lda_matrix_save(const char *dir, const char *name, lda_matrix_type type, uint64_t rows, uint64_t cols,
                    const void *data, lda_error *err);
/* Reads dir/NAME.npy, or dir/NAME.bin where there is no .npy. The path read (or, when
 * neither exists, the .npy expected) is returned in *path (malloc'ed) for messages. */
int lda_matrix_load(const char *dir, const char *name, lda_matrix_type type, uint64_t *rows, uint64_t *cols,
                    void **data, char **path, lda_error *err);
/* lda_matrix_load of an array whose size model.conf implies (rows × cols; a vector has cols
 * 1): another size is refused. With path not NULL, *path gets the file read (malloc'ed, also
 * on failure, or NULL) for the checks of its values. */
int lda_matrix_load_sized(const char *dir, const char *name, lda_matrix_type type, uint64_t rows, uint64_t cols,
                          void **data, char **path, lda_error *err);

#endif
