/* gen_output.h — the files of a synthetic corpus (ldagpu generate), written as its documents
 * are made, each atomically (util/atomic_file.h).
 *
 * UCI: docword.NAME.txt and vocab.NAME.txt beside it (the names the UCI reader looks for).
 * Its header's NNZ is known only at the end: its line is reserved as 20 spaces and written
 * over last, right-aligned ("D\nW\n        NNZ\n"), so the file must be a regular one.
 * Binary (corpus_binary.h): the offsets come first, from the lengths known beforehand, then
 * the word ids as they are made.
 * The words are named w0, w1, ... with the ids zero-padded to one width (w000123), so that
 * byte order is id order. */
#ifndef LDA_GEN_OUTPUT_H
#define LDA_GEN_OUTPUT_H

#include <stdint.h>

#include "corpus/corpus_binary.h"
#include "util/atomic_file.h"

typedef struct {
    corpus_format format; /* CORPUS_FORMAT_UCI or CORPUS_FORMAT_BINARY */
    const char *path;
    char *vocab_path;     /* UCI */
    uint32_t vocab_size;
    lda_atomic_file af;
    corpus_binary_writer binary;
    long nnz_at;          /* UCI: where the NNZ line starts */
    uint64_t nnz;
} gen_output;

/* The vocabulary file of a UCI corpus written at path (docword.NAME.txt -> vocab.NAME.txt),
 * malloc'ed; NULL with err (status 2) for a path of another form. */
char *gen_uci_vocab_path(const char *path, lda_error *err);

/* Opens the corpus file and writes what precedes the documents' contents. lengths[num_docs]:
 * every document's length (binary: its offsets). */
int gen_output_open(gen_output *o, const char *path, corpus_format format, uint64_t num_docs,
                    const uint32_t *lengths, uint32_t vocab_size, lda_error *err);
/* Appends documents' contents: UCI, text lines "doc word count" (holding nnz of them); binary,
 * word ids. */
int gen_output_write(gen_output *o, const void *bytes, size_t n, uint64_t nnz, lda_error *err);
/* Completes the corpus file (NNZ, checksum) and writes the vocabulary. */
int gen_output_close(gen_output *o, lda_error *err);
/* Removes what was not completed (after an error). */
void gen_output_abort(gen_output *o);

#endif
