/* fuzz_model_conf.c — a model folder's model.conf (lda_model_read_conf). */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"

static char dir[] = "/tmp/ldagpu-fuzz-XXXXXX";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char conf[64];
    if (!conf[0]) {
        if (!mkdtemp(dir))
            abort();
        snprintf(conf, sizeof conf, "%s/model.conf", dir);
    }
    unlink(conf); /* a new file: ext4 flushes one truncated and rewritten as it is closed (a run in 3 ms) */
    FILE *f = fopen(conf, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    lda_model m;
    lda_error err = {0};
    if (lda_model_read_conf(&m, dir, &err) == 0) {
        if (!m.num_topics || !m.vocab_size)
            __builtin_trap();
        lda_model_free(&m);
    } else if (strchr(err.msg, '\n')) {
        __builtin_trap();
    }
    return 0;
}
