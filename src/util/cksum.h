/* cksum.h — the CRC that POSIX `cksum` prints: CRC-32 (polynomial 0x04C11DB7, most significant
 * bit first) over the bytes and then the byte count, complemented. A model folder's manifest
 * (model/manifest.h) records each file's in this form, so `cksum FILE` checks it by hand. */
#ifndef LDA_CKSUM_H
#define LDA_CKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct {
    uint32_t crc;    /* over the bytes so far */
    uint64_t length; /* bytes so far */
} lda_cksum;

void lda_cksum_init(lda_cksum *c);
void lda_cksum_update(lda_cksum *c, const void *data, size_t n);
/* The value cksum prints (the length folded in); c is left as it was. */
uint32_t lda_cksum_value(const lda_cksum *c);

/* The cksum value and size of the open file fd, read from its start to its end. what names
 * the file in a failure's message. */
int lda_cksum_fd(int fd, const char *what, uint32_t *crc, uint64_t *size, lda_error *err);

#endif
