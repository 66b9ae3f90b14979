/* fuzz_input.c — see fuzz_input.h. */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/memory.h"

void fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size)
{
    f->fd = memfd_create("fuzz-input", 0);
    if (f->fd < 0 || (size && write(f->fd, data, size) != (ssize_t)size) || lseek(f->fd, 0, SEEK_SET) != 0) {
        perror("fuzz input");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

void fuzz_file_close(fuzz_file *f)
{
    close(f->fd);
}

void fuzz_setup(void)
{
    setenv(LDA_MEMORY_LIMIT_ENV, "64M", 1);
}

void fuzz_check_refusal(const lda_error *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n') ||
        (err->status != LDA_EXIT_BAD_INPUT && err->status != LDA_EXIT_FAILURE))
        __builtin_trap();
}

void fuzz_check_read(corpus *c, const lda_error *err)
{
    if (!c) {
        fuzz_check_refusal(err);
        return;
    }
    size_t unknown = 0;
    for (size_t d = 0; c->input_unknown && d < c->num_input_docs; d++)
        unknown += c->input_unknown[d];
    if (c->num_tokens == 0 || c->doc_offsets[c->num_docs] != c->num_tokens ||
        c->num_docs + c->num_empty_docs != c->num_input_docs || (c->input_unknown && unknown != c->num_unknown_tokens))
        __builtin_trap();
    for (size_t i = 0; i < c->num_tokens; i++)
        if (c->words[i] >= c->vocab_size)
            __builtin_trap();
    corpus_free(c);
}
