/* CRC-32 as zip, gzip and PNG compute it (IEEE 802.3, reflected, polynomial 0xEDB88320). */
#ifndef CHECKSUM_CRC32_H
#define CHECKSUM_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Starts a CRC: pass the result to crc32_update, then to crc32_final. */
#define CRC32_INIT 0xFFFFFFFFu

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len);
static inline uint32_t crc32_final(uint32_t crc) { return crc ^ 0xFFFFFFFFu; }

#endif
