/* corpus_binary.h — ldagpu's binary corpus: a corpus struct (corpus.h) as it is in memory, so
 * that reading it is a few large reads instead of a parse.
 *
 * Layout (integers little-endian; every section starts at a multiple of 8 up to the words):
 *
 *   offset  bytes        what
 *   0       8            magic "LDAGPUCB"
 *   8       4            version: 1, or 2 for a corpus with document names (version 1 files
 *                        are written while there are none, so older readers still read them)
 *   12      4            header bytes H: 64 (version 1), 80 (version 2)
 *   16      8            input documents, empty ones included
 *   24      8            D: documents kept (each has tokens)
 *   32      8            N: tokens
 *   40      4            V: vocabulary size
 *   44      4            source format: the corpus_format the corpus was read from (binary:
 *                        made as such, e.g. by `ldagpu generate`)
 *   48      8            B: vocabulary bytes
 *   56      8            T: note bytes
 *   64      8            M: name bytes (version 2)
 *   72      8            L: label bytes (version 2)
 *   H       T, to 8      the note: text, e.g. the key of a cache (corpus_cache.h); zero-padded
 *           8 (D + 1)    document offsets: document d is tokens [off[d], off[d + 1])
 *           8 D          input index: where document d stood among the input documents
 *           4 N          word ids, each < V
 *           B            the vocabulary: V NUL-terminated, non-empty strings
 *           M            the names of every input document, NUL-terminated (M = 0: none)
 *           L            their labels, likewise (L = 0: none)
 *           4            CRC-32 (zlib's) of every byte before it
 *
 * A file is refused (status 2, naming the file) when its size is not what its header
 * declares, its checksum does not match, or its contents break what every corpus promises:
 * offsets from 0 rising strictly to N, documents within CORPUS_MAX_DOC_TOKENS, input indexes
 * rising and below the input count, word ids below V, exactly V words, names and labels one an
 * input document and each one a name or label may be (text_fields.h), labels only with names. */
#ifndef LDA_CORPUS_BINARY_H
#define LDA_CORPUS_BINARY_H

#include <stdint.h>
#include <stdio.h>

#include "corpus/corpus.h"

#define CORPUS_BINARY_MAGIC "LDAGPUCB"
#define CORPUS_BINARY_SUFFIX ".ldab" /* the binary corpus's name: generate and format write NAME.ldab */
#define CORPUS_BINARY_VERSION 2u /* the newest this ldagpu reads and writes */

/* What a binary corpus holds, known before its arrays are written. */
typedef struct {
    uint64_t num_input_docs, num_docs, num_tokens;
    uint32_t vocab_size;
    uint64_t vocab_bytes; /* the vocabulary's strings with their NULs */
    corpus_format source_format;
    uint64_t names_bytes, labels_bytes; /* the documents' names and labels with their NULs; 0: none */
} corpus_binary_shape;

/* Writes a binary corpus section by section, as its arrays are made: begin (header and note),
 * then exactly the bytes the shape declares, in the file's order (offsets as uint64, input
 * indexes as uint64, word ids, vocabulary strings with their NULs, names, labels), then end
 * (the checksum, after checking that count). */
typedef struct {
    FILE *f;
    const char *path; /* for messages */
    uint32_t crc;
    uint64_t written, expected;
} corpus_binary_writer;

int corpus_binary_begin(corpus_binary_writer *w, FILE *f, const char *path, const corpus_binary_shape *shape,
                        const char *note, lda_error *err);
int corpus_binary_put(corpus_binary_writer *w, const void *data, size_t n, lda_error *err);
int corpus_binary_end(corpus_binary_writer *w, lda_error *err);

/* A whole corpus to path, atomically (atomic_file.h). source_format: what it was read from;
 * note: NULL or text kept in the header. */
int corpus_binary_write(const char *path, const corpus *c, corpus_format source_format, const char *note,
                        lda_error *err);

/* 1 when path starts with the magic; 0 otherwise, or when it cannot be read (the reader then
 * says why). */
int corpus_binary_sniff(const char *path);

/* The note alone (malloc'ed; "" when none) and the source format, from the header: cheap, for
 * a cache deciding whether it is still valid. The rest of the file is not checked. */
int corpus_binary_read_note(const char *path, char **note, corpus_format *source_format, lda_error *err);

/* Reads and checks a whole binary corpus (size, checksum, contents); its format field is the
 * source format. NULL with err (status 2 for a malformed file). */
corpus *corpus_binary_read(const char *path, lda_error *err);

#endif
