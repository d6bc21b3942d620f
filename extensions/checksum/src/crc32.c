/* CRC-32, table-driven one byte at a time: the table is built on first use rather than
 * written out, so the source stays readable. */
#include "crc32.h"

#include <stdbool.h>

static uint32_t table[256];
static bool table_ready;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        }
        table[n] = c;
    }
    table_ready = true;
}

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len) {
    if (!table_ready) {
        build_table();
    }
    for (size_t i = 0; i < len; i++) {
        crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}
