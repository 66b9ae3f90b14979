/* fuzz_input.c — see fuzz_input.h. */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
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
