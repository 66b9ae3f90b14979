/* checksum.c — see checksum.h. */
#include "model/checksum.h"

#include <string.h>

#define FNV_PRIME 0x100000001b3ull

uint64_t lda_checksum_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t lda_checksum_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return lda_checksum_bytes(h, b, sizeof b);
}

/* Word-sized FNV-1a over 32-bit values, little-endian bytes in one step each: the same
 * function on any host, four times fewer multiplications than bytewise. */
uint64_t lda_u32_checksum(const uint32_t *v, size_t n)
{
    uint64_t h = lda_checksum_u64(LDA_CHECKSUM_INIT, n);
    for (size_t i = 0; i < n; i++) {
        h ^= v[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t lda_corpus_checksum(const corpus *c)
{
    uint64_t h = LDA_CHECKSUM_INIT;
    h = lda_checksum_u64(h, c->num_input_docs);
    h = lda_checksum_u64(h, c->num_docs);
    for (size_t d = 0; d < c->num_docs; d++) {
        h = lda_checksum_u64(h, c->input_index[d]);
        h = lda_checksum_u64(h, c->doc_offsets[d + 1] - c->doc_offsets[d]);
    }
    h = lda_checksum_u64(h, lda_u32_checksum(c->words, c->num_tokens));
    h = lda_checksum_u64(h, c->vocab_size);
    for (uint32_t w = 0; w < c->vocab_size && c->vocab; w++)
        h = lda_checksum_bytes(h, c->vocab[w], strlen(c->vocab[w]) + 1);
    return h;
}
