/* checksum.h — 64-bit FNV-1a checksums: is this the corpus (or the z) a model was trained on?
 * Not cryptographic; they catch a changed or different file, not a forged one. */
#ifndef LDA_CHECKSUM_H
#define LDA_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "corpus/corpus.h"

#define LDA_CHECKSUM_INIT 0xcbf29ce484222325ull

uint64_t lda_checksum_bytes(uint64_t h, const void *data, size_t n);
uint64_t lda_checksum_u64(uint64_t h, uint64_t v);

/* The corpus as read: its document count, each kept document's input position, length and
 * word ids, and the vocabulary. Two reads of the same file with the same options agree. */
uint64_t lda_corpus_checksum(const corpus *c);

/* n 32-bit values (z.bin's contents). */
uint64_t lda_u32_checksum(const uint32_t *v, size_t n);

#endif
