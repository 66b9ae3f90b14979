/* fuzz_log_csv.c — a model's log.csv, as --resume reads it back. */
#include "fuzz_input.h"

#include "model/train_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    fuzz_file_open(&f, data, size);
    lda_train_log log;
    lda_train_log_init(&log, NULL, 0, 0);
    lda_error err = {0};
    lda_train_log_read_csv(&log, f.path, &err);
    lda_train_log_free(&log);
    fuzz_file_close(&f);
    return 0;
}
