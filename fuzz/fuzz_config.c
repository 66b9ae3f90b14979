/* fuzz_config.c — "key = value" files, with a callback that keeps every value it is handed
 * and reads them all once the file is read: a value that did not outlive its line (the
 * use-after-free of -c FILE, issue 16) is caught by AddressSanitizer. */
#include "fuzz_input.h"

#include <string.h>

#include "util/config_file.h"

typedef struct {
    const char *values[64];
    size_t count;
} kept;

static int keep_value(void *ctx, const char *key, const char *value, const char *path, size_t line, lda_error *err)
{
    (void)path;
    (void)line;
    (void)err;
    kept *k = ctx;
    if (k->count < 64)
        k->values[k->count++] = value;
    return key[0] == '!'; /* a callback may stop the reading */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    fuzz_file_open(&f, data, size);
    kept k = {.count = 0};
    lda_config_values values = {0};
    lda_error err = {0};
    lda_config_read(f.path, keep_value, &k, &values, &err);
    size_t total = 0;
    for (size_t i = 0; i < k.count; i++)
        total += strlen(k.values[i]);
    if (total > size)
        __builtin_trap();
    if (strchr(err.msg, '\n'))
        __builtin_trap(); /* an error is one line */
    lda_config_values_free(&values);
    fuzz_file_close(&f);
    return 0;
}
