/* fuzz_input.h — what the libFuzzer targets share: the readers take file paths, so an input
 * is put in an anonymous in-memory file and read through /proc/self/fd/N. */
#ifndef LDA_FUZZ_INPUT_H
#define LDA_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "corpus/corpus.h"

typedef struct {
    int fd;
    char path[64];
} fuzz_file;

/* A file holding data[0..size); aborts when the system refuses (not the input's fault). */
void fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size);
void fuzz_file_close(fuzz_file *f);

/* What every reader promises of its result (corpus.h), or, for a failure, that it says why
 * with a documented status: traps (a crash the fuzzer reports) otherwise. Frees c. */
void fuzz_check_read(corpus *c, const lda_error *err);
/* A refusal says why, in one line, with a documented status: traps otherwise. */
void fuzz_check_refusal(const lda_error *err);

/* Once per process: a small memory budget (memory.h), so that an input declaring billions of
 * tokens is refused as it would be on a small machine, not expanded into the fuzzer's
 * memory limit. */
void fuzz_setup(void);

#endif
