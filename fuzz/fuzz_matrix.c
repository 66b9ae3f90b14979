/* fuzz_matrix.c — the .bin matrix files (header, sizes, values); byte 0 picks the type
 * expected. */
#include "fuzz_input.h"

#include <math.h>
#include <stdlib.h>

#include "model/matrix_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready++)
        fuzz_setup();
    if (size < 1)
        return 0;
    lda_matrix_type type = data[0] & 1 ? LDA_MATRIX_F32 : LDA_MATRIX_U32;
    fuzz_file f;
    fuzz_file_open(&f, data + 1, size - 1);
    uint64_t rows, cols;
    void *values = NULL;
    lda_error err = {0};
    if (lda_matrix_read(f.path, type, &rows, &cols, &values, &err) == 0) {
        if (64 + rows * cols * 4 > size - 1)
            __builtin_trap(); /* more values than the file holds */
        for (uint64_t i = 0; type == LDA_MATRIX_F32 && i < rows * cols; i++)
            if (!isfinite(((float *)values)[i]))
                __builtin_trap();
    }
    free(values);
    fuzz_file_close(&f);
    return 0;
}
