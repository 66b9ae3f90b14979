/* fuzz_manifest.c — a model folder's manifest.txt (model/manifest.h), checked against a folder
 * holding the two files the seeds list (phi.npy, vocab.txt): names with slashes, sizes and
 * CRCs out of range, lines too long, files missing. */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/manifest.h"

static char folder[64];

static void write_file(const char *name, const void *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort(); /* the machine's fault, not the input's */
}

/* The folder goes when the fuzzer ends (an input that crashes it leaves the folder behind). */
static void remove_folder(void)
{
    static const char *const names[] = {"phi.npy", "vocab.txt", LDA_MANIFEST_NAME};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        unlink(path);
    }
    rmdir(folder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!folder[0]) {
        snprintf(folder, sizeof folder, "/tmp/ldagpu-fuzz-manifest-XXXXXX");
        if (!mkdtemp(folder))
            abort();
        atexit(remove_folder);
        write_file("phi.npy", "phi\n", 4);
        write_file("vocab.txt", "a\nb\n", 4);
    }
    write_file(LDA_MANIFEST_NAME, data, size);
    lda_error err = {0};
    if (lda_manifest_verify(folder, NULL, &err))
        fuzz_check_refusal(&err);
    return 0;
}
