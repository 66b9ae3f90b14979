/* fuzz_matrix.c — the .npy and .bin matrix files (header, sizes, values); byte 0 picks the
 * type expected (float32, uint32, or uint64: a sparse θ's row pointers). */
#include "fuzz_input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/matrix_file.h"

/* Where the values begin in the file: after a .npy header of the length it states (which need
 * not be padded to 64 bytes), else after the .bin format's fixed 64 bytes. */
static size_t values_offset(const uint8_t *file, size_t size)
{
    if (size >= 12 && file[0] == 0x93 && memcmp(file + 1, "NUMPY", 5) == 0) {
        if (file[6] == 1)
            return 10 + (size_t)(file[8] | file[9] << 8);
        return 12 + (size_t)((uint32_t)file[8] | (uint32_t)file[9] << 8 | (uint32_t)file[10] << 16 |
                             (uint32_t)file[11] << 24);
    }
    return 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready++)
        fuzz_setup();
    if (size < 1)
        return 0;
    static const lda_matrix_type types[3] = {LDA_MATRIX_U32, LDA_MATRIX_F32, LDA_MATRIX_U64};
    const lda_matrix_type type = types[data[0] % 3];
    fuzz_file f;
    fuzz_file_open(&f, data + 1, size - 1);
    uint64_t rows, cols;
    void *values = NULL;
    lda_error err = {0};
    if (lda_matrix_read(f.path, type, &rows, &cols, &values, &err) == 0) {
        if (values_offset(data + 1, size - 1) + rows * cols * lda_matrix_elem_size(type) > size - 1)
            __builtin_trap(); /* more values than the file holds */
        for (uint64_t i = 0; type == LDA_MATRIX_F32 && i < rows * cols; i++)
            if (!isfinite(((float *)values)[i]))
                __builtin_trap();
    }
    free(values);
    fuzz_file_close(&f);
    return 0;
}
