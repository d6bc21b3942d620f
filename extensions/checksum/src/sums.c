/* Reading one file and computing its sums in a single pass, in fixed-size pieces: a file of
 * any size fits the component's memory, and a long read stops soon after the user aborts. */
#include "sums.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32.h"
#include "sha256.h"

/* Bytes read at a time. */
#define PIECE (64 * 1024)
/* Pieces between two looks at whether the call was aborted (16 MiB). */
#define PIECES_PER_ABORT_CHECK 256

/* Whether the user aborted the running call (the host's `aborted`, wired in checksum.c). */
bool checksum_aborted(void);

static bool is_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Appends the path segment `seg` (`len` bytes) to `out`, or removes the last segment for `..`. */
static void push_segment(buf_t *out, const char *seg, size_t len) {
    if (len == 0 || (len == 1 && seg[0] == '.')) {
        return;
    }
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
        while (out->len > 0 && out->data[out->len - 1] != '/') {
            out->len--;
        }
        if (out->len > 0) {
            out->len--; /* the slash before the removed segment */
        }
        out->data[out->len] = '\0';
        return;
    }
    buf_puts(out, "/");
    buf_append(out, seg, len);
}

/* Appends the segments of `path` (`len` bytes) to `out`, normalised. */
static void push_path(buf_t *out, const char *path, size_t len) {
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || path[i] == '/') {
            push_segment(out, path + start, i - start);
            start = i + 1;
        }
    }
}

bool sums_resolve(const char *cwd, const char *path, size_t path_len, buf_t *resolved, buf_t *error) {
    resolved->len = 0;
    buf_append(resolved, "", 0);
    if (path_len == 0) {
        buf_puts(error, "empty path");
        return false;
    }
    if (memchr(path, '\0', path_len)) {
        buf_puts(error, "the path holds a NUL character");
        return false;
    }
    buf_t root = {0};
    push_path(&root, cwd, strlen(cwd));
    if (path[0] != '/') {
        buf_append(resolved, root.data ? root.data : "", root.len);
    }
    push_path(resolved, path, path_len);
    bool inside = root.len == 0 ||
                  (resolved->len >= root.len && memcmp(resolved->data, root.data, root.len) == 0 &&
                   (resolved->len == root.len || resolved->data[root.len] == '/'));
    if (!inside) {
        buf_printf(error, "outside the workspace (%s): only files in the workspace can be read",
                   root.len ? root.data : "/");
    }
    buf_free(&root);
    if (resolved->len == 0) {
        buf_puts(resolved, "/");
    }
    return inside && !resolved->failed;
}

/* Says in words why a file could not be opened or read. */
static void describe_errno(buf_t *error, int code) {
    switch (code) {
    case ENOENT:
        buf_puts(error, "no such file or directory");
        break;
    case EISDIR:
        buf_puts(error, "is a directory, not a file (name the files in it)");
        break;
    case EACCES:
    case EPERM:
    case ENOTCAPABLE:
        buf_puts(error, "not readable here: the sandbox lets the tool read only files inside the "
                        "workspace (a link leading out of it is refused too)");
        break;
    default:
        buf_puts(error, strerror(code));
    }
}

/* Feeds one piece of the file to every sum asked for. */
static void feed(sums_t *sums, sha256_t *sha, uint32_t *crc, bool *in_word, int want,
                 const uint8_t *piece, size_t len) {
    if (want & WANT_SHA256) {
        sha256_update(sha, piece, len);
    }
    if (want & WANT_CRC32) {
        *crc = crc32_update(*crc, piece, len);
    }
    if (want & WANT_COUNTS) {
        for (size_t i = 0; i < len; i++) {
            sums->lines += piece[i] == '\n';
            bool space = is_space(piece[i]);
            sums->words += *in_word == false && !space;
            *in_word = !space;
        }
    }
    sums->bytes += len;
}

sums_status_t sums_of_file(const char *path, int want, sums_t *sums, buf_t *error) {
    static uint8_t piece[PIECE];
    *sums = (sums_t){0};
    FILE *file = fopen(path, "rb");
    if (!file) {
        describe_errno(error, errno);
        return SUMS_FAILED;
    }
    struct stat info;
    if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
        fclose(file);
        describe_errno(error, EISDIR);
        return SUMS_FAILED;
    }
    sha256_t sha;
    sha256_init(&sha);
    uint32_t crc = CRC32_INIT;
    bool in_word = false;
    sums_status_t status = SUMS_OK;
    for (unsigned pieces = 1;; pieces++) {
        size_t got = fread(piece, 1, sizeof piece, file);
        feed(sums, &sha, &crc, &in_word, want, piece, got);
        if (got < sizeof piece) {
            if (ferror(file)) {
                describe_errno(error, errno);
                status = SUMS_FAILED;
            }
            break;
        }
        if (pieces % PIECES_PER_ABORT_CHECK == 0 && checksum_aborted()) {
            status = SUMS_ABORTED;
            break;
        }
    }
    fclose(file);
    if (status == SUMS_OK) {
        sha256_hex(&sha, sums->sha256);
        sums->crc32 = crc32_final(crc);
    }
    return status;
}
