/* SHA-256 (FIPS 180-4), fed in pieces so a file is hashed as it is read. */
#ifndef CHECKSUM_SHA256_H
#define CHECKSUM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;   /* bytes fed so far */
    uint8_t block[64]; /* the block being filled */
    size_t used;       /* bytes of `block` filled */
} sha256_t;

void sha256_init(sha256_t *h);
void sha256_update(sha256_t *h, const uint8_t *data, size_t len);
/* Writes the digest as 64 lowercase hex digits and a NUL into `hex`. */
void sha256_hex(sha256_t *h, char hex[65]);

#endif
