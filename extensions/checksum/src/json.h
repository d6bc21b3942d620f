/* Just enough JSON for a tool: reading the arguments object the host passes (already checked
 * against the tool's schema, but read defensively all the same) and writing text and the
 * result's `details` with correct string escapes. */
#ifndef CHECKSUM_JSON_H
#define CHECKSUM_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* A growable, always NUL-terminated byte buffer. `failed` is set when memory ran out; the
 * buffer then stops growing and the caller reports the failure once, at the end. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
    bool failed;
} buf_t;

void buf_append(buf_t *b, const char *bytes, size_t len);
void buf_puts(buf_t *b, const char *text);
void buf_printf(buf_t *b, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Appends `text` (of `len` bytes) as a quoted JSON string. */
void buf_json_string(buf_t *b, const char *text, size_t len);
void buf_free(buf_t *b);

/* A position in JSON text being read. */
typedef struct {
    const char *p;
    const char *end;
} json_cursor_t;

/* Skips white space; if the next character is `ch`, consumes it and returns true. */
bool json_take(json_cursor_t *c, char ch);
/* Reads a string value into `out` (cleared first), decoding escapes into UTF-8. */
bool json_string(json_cursor_t *c, buf_t *out);
/* Skips any one value (of any type, nested to a bounded depth). */
bool json_skip_value(json_cursor_t *c);

#endif
