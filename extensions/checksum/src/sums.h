/* The sums of one workspace file: where the path leads, and what reading it gives. */
#ifndef CHECKSUM_SUMS_H
#define CHECKSUM_SUMS_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

/* Which sums a call asked for (bits). */
enum {
    WANT_SHA256 = 1,
    WANT_CRC32 = 2,
    WANT_COUNTS = 4,
    WANT_ALL = WANT_SHA256 | WANT_CRC32 | WANT_COUNTS,
};

typedef struct {
    char sha256[65];
    uint32_t crc32;
    uint64_t bytes;
    uint64_t lines; /* newline characters, as `wc -l` counts them */
    uint64_t words; /* runs of non-space bytes, as `wc -w` counts them in the C locale */
} sums_t;

/* Why a file has no sums. */
typedef enum {
    SUMS_OK,
    SUMS_FAILED,  /* `error` says why */
    SUMS_ABORTED, /* the user aborted the call while the file was being read */
} sums_status_t;

/* Joins `path` to the workspace `cwd` (unless it is absolute) and removes `.`, `..` and
 * repeated slashes. Returns false, with the reason in `error`, when the path is empty, holds
 * a NUL or leads outside the workspace: the host would refuse it anyway, and this way the
 * model is told why in words. */
bool sums_resolve(const char *cwd, const char *path, size_t path_len, buf_t *resolved, buf_t *error);

/* Reads the file at the resolved absolute path and computes the sums `want` names. */
sums_status_t sums_of_file(const char *path, int want, sums_t *sums, buf_t *error);

#endif
