/* gen_output.c — see gen_output.h. */
#include "synth/gen_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NNZ_WIDTH = 20, CHUNK = 1 << 13 }; /* CHUNK: offsets a write, on the stack */

char *gen_uci_vocab_path(const char *path, lda_error *err)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const size_t len = strlen(base);
    if (strncmp(base, "docword.", 8) != 0 || len <= 12 || strcmp(base + len - 4, ".txt") != 0) {
        lda_error_input(err, "-o %s: a UCI corpus is named docword.NAME.txt (its vocabulary is then "
                        "vocab.NAME.txt beside it); a name ending in .ldab gives the binary form", path);
        return NULL;
    }
    char *vocab = NULL;
    if (asprintf(&vocab, "%.*svocab.%s", (int)(base - path), path, base + 8) < 0) {
        lda_error_fail(err, "out of memory");
        return NULL;
    }
    return vocab;
}

/* Digits of the largest word id: every name has that many. */
static int name_width(uint32_t vocab_size)
{
    int width = 1;
    for (uint32_t v = vocab_size > 0 ? vocab_size - 1 : 0; v >= 10; v /= 10)
        width++;
    return width;
}

static int write_failed(const char *path, lda_error *err)
{
    lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

/* The binary form's offsets (from the lengths) and input indexes (every document is kept). */
static int put_offsets(gen_output *o, uint64_t num_docs, const uint32_t *lengths, lda_error *err)
{
    uint64_t chunk[CHUNK], at = 0;
    size_t n = 0;
    chunk[n++] = 0;
    for (uint64_t d = 0; d < num_docs; d++) {
        if (n == CHUNK) {
            if (corpus_binary_put(&o->binary, chunk, n * sizeof *chunk, err))
                return -1;
            n = 0;
        }
        chunk[n++] = at += lengths[d];
    }
    if (corpus_binary_put(&o->binary, chunk, n * sizeof *chunk, err))
        return -1;
    for (uint64_t d = 0; d < num_docs; d += n) {
        n = num_docs - d < CHUNK ? (size_t)(num_docs - d) : CHUNK;
        for (size_t i = 0; i < n; i++)
            chunk[i] = d + i;
        if (corpus_binary_put(&o->binary, chunk, n * sizeof *chunk, err))
            return -1;
    }
    return 0;
}

int gen_output_open(gen_output *o, const char *path, corpus_format format, uint64_t num_docs,
                    const uint32_t *lengths, uint32_t vocab_size, lda_error *err)
{
    memset(o, 0, sizeof *o);
    o->format = format;
    o->path = path;
    o->vocab_size = vocab_size;
    if (format == CORPUS_FORMAT_UCI && !(o->vocab_path = gen_uci_vocab_path(path, err)))
        return -1;
    if (lda_atomic_open(&o->af, path, err))
        return -1;
    if (format == CORPUS_FORMAT_UCI) {
        int n = fprintf(o->af.f, "%llu\n%u\n", (unsigned long long)num_docs, vocab_size);
        o->nnz_at = n;
        if (n < 0 || fprintf(o->af.f, "%*s\n", NNZ_WIDTH, "") < 0)
            return write_failed(path, err);
        return 0;
    }
    uint64_t tokens = 0;
    for (uint64_t d = 0; d < num_docs; d++)
        tokens += lengths[d];
    const corpus_binary_shape shape = {num_docs, num_docs, tokens, vocab_size,
                                       (uint64_t)vocab_size * (uint64_t)(name_width(vocab_size) + 2),
                                       CORPUS_FORMAT_BINARY, 0, 0};
    return corpus_binary_begin(&o->binary, o->af.f, path, &shape, NULL, err) ||
                   put_offsets(o, num_docs, lengths, err)
               ? -1
               : 0;
}

int gen_output_write(gen_output *o, const void *bytes, size_t n, uint64_t nnz, lda_error *err)
{
    o->nnz += nnz;
    if (o->format == CORPUS_FORMAT_BINARY)
        return corpus_binary_put(&o->binary, bytes, n, err);
    return n && fwrite(bytes, 1, n, o->af.f) != n ? write_failed(o->path, err) : 0;
}

/* vocab.NAME.txt, one name a line. */
static int write_vocab_file(const gen_output *o, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, o->vocab_path, err))
        return -1;
    const int width = name_width(o->vocab_size);
    for (uint32_t w = 0; w < o->vocab_size; w++)
        fprintf(af.f, "w%0*u\n", width, w);
    if (ferror(af.f)) {
        write_failed(o->vocab_path, err);
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

int gen_output_close(gen_output *o, lda_error *err)
{
    FILE *f = o->af.f;
    if (o->format == CORPUS_FORMAT_UCI) {
        if (fseek(f, o->nnz_at, SEEK_SET) != 0) {
            lda_error_fail(err, "cannot write %s: %s (a UCI corpus's NNZ is written last, over its third line, "
                           "so it must go to a regular file)", o->path, strerror(errno));
            return -1;
        }
        if (fprintf(f, "%*llu", NNZ_WIDTH, (unsigned long long)o->nnz) != NNZ_WIDTH)
            return write_failed(o->path, err);
    } else {
        const int width = name_width(o->vocab_size);
        char name[16];
        for (uint32_t w = 0; w < o->vocab_size; w++) {
            int n = snprintf(name, sizeof name, "w%0*u", width, w);
            if (corpus_binary_put(&o->binary, name, (size_t)n + 1, err))
                return -1;
        }
        if (corpus_binary_end(&o->binary, err))
            return -1;
    }
    int rc = lda_atomic_commit(&o->af, err);
    o->af.f = NULL;
    if (rc == 0 && o->format == CORPUS_FORMAT_UCI)
        rc = write_vocab_file(o, err);
    free(o->vocab_path);
    o->vocab_path = NULL;
    return rc;
}

void gen_output_abort(gen_output *o)
{
    lda_atomic_abort(&o->af);
    free(o->vocab_path);
    o->vocab_path = NULL;
}
