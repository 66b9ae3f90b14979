/* fuzz_binary.c — the binary corpus reader (corpus/corpus_binary.h). A random file almost never
 * has the right checksum, and would only ever test that check; so unless byte 0 says otherwise
 * (bit 1), the file's last 4 bytes are set to the CRC-32 of the rest before it is read, and the
 * fuzzer reaches the checks of the header and contents behind it. Byte 0 bit 0: read it in a
 * model's fixed vocabulary. The rest is the file. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_input.h"

#include "corpus/corpus_read.h"

static char *fixed_words[] = {"w0", "w1", "alpha", "beta"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready++)
        fuzz_setup();
    if (size < 1)
        return 0;
    const uint8_t mode = data[0];
    const size_t n = size - 1;
    uint8_t *file = malloc(n ? n : 1);
    if (!file)
        abort();
    memcpy(file, data + 1, n);
    if (!(mode & 2) && n >= 4) {
        uint32_t crc = (uint32_t)crc32_z(0, file, n - 4);
        memcpy(file + n - 4, &crc, 4);
    }
    fuzz_file f;
    fuzz_file_open(&f, file, n);
    corpus_options opt;
    corpus_options_default(&opt);
    opt.format = CORPUS_FORMAT_BINARY;
    if (mode & 1) {
        opt.fixed_vocab = fixed_words;
        opt.fixed_vocab_size = 4;
    }
    lda_error err = {0};
    fuzz_check_read(corpus_read(f.path, &opt, &err), &err);
    fuzz_file_close(&f);
    free(file);
    return 0;
}
