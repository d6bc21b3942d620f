/* The JSON reading and writing of json.h. The reader walks the text with a cursor instead of
 * building a tree: the arguments are one small object whose shape the tool knows. */
#include "json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this in a value the tool skips is refused rather than recursed into. */
#define MAX_DEPTH 64

static bool buf_reserve(buf_t *b, size_t extra) {
    if (b->failed) {
        return false;
    }
    if (b->len + extra + 1 <= b->cap) {
        return true;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        cap *= 2;
    }
    char *grown = realloc(b->data, cap);
    if (!grown) {
        b->failed = true;
        return false;
    }
    b->data = grown;
    b->cap = cap;
    return true;
}

void buf_append(buf_t *b, const char *bytes, size_t len) {
    if (!buf_reserve(b, len)) {
        return;
    }
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void buf_puts(buf_t *b, const char *text) { buf_append(b, text, strlen(text)); }

void buf_printf(buf_t *b, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char small[256];
    int needed = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (needed < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)needed < sizeof small) {
        buf_append(b, small, (size_t)needed);
        return;
    }
    if (!buf_reserve(b, (size_t)needed)) {
        return;
    }
    va_start(args, format);
    vsnprintf(b->data + b->len, (size_t)needed + 1, format, args);
    va_end(args);
    b->len += (size_t)needed;
}

void buf_json_string(buf_t *b, const char *text, size_t len) {
    buf_puts(b, "\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        switch (ch) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\r': buf_puts(b, "\\r"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default:
            if (ch < 0x20) {
                buf_printf(b, "\\u%04x", ch);
            } else {
                buf_append(b, (const char *)&ch, 1);
            }
        }
    }
    buf_puts(b, "\"");
}

void buf_free(buf_t *b) {
    free(b->data);
    *b = (buf_t){0};
}

static void skip_ws(json_cursor_t *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
        c->p++;
    }
}

bool json_take(json_cursor_t *c, char ch) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* Reads the four hex digits of a \u escape. */
static bool hex4(json_cursor_t *c, uint32_t *out) {
    if (c->end - c->p < 4) {
        return false;
    }
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        char h = *c->p++;
        value <<= 4;
        if (h >= '0' && h <= '9') {
            value |= (uint32_t)(h - '0');
        } else if (h >= 'a' && h <= 'f') {
            value |= (uint32_t)(h - 'a' + 10);
        } else if (h >= 'A' && h <= 'F') {
            value |= (uint32_t)(h - 'A' + 10);
        } else {
            return false;
        }
    }
    *out = value;
    return true;
}

static void put_utf8(buf_t *out, uint32_t cp) {
    char bytes[4];
    size_t n;
    if (cp < 0x80) {
        bytes[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        bytes[0] = (char)(0xC0 | (cp >> 6));
        bytes[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        bytes[0] = (char)(0xE0 | (cp >> 12));
        bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        bytes[0] = (char)(0xF0 | (cp >> 18));
        bytes[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        bytes[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf_append(out, bytes, n);
}

/* Decodes a \u escape (the backslash and `u` already read), joining a surrogate pair. */
static bool unicode_escape(json_cursor_t *c, buf_t *out) {
    uint32_t cp;
    if (!hex4(c, &cp)) {
        return false;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t low;
        if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u') {
            return false;
        }
        c->p += 2;
        if (!hex4(c, &low) || low < 0xDC00 || low > 0xDFFF) {
            return false;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return false;
    }
    put_utf8(out, cp);
    return true;
}

bool json_string(json_cursor_t *c, buf_t *out) {
    out->len = 0;
    buf_append(out, "", 0);
    if (!json_take(c, '"')) {
        return false;
    }
    while (c->p < c->end) {
        char ch = *c->p++;
        if (ch == '"') {
            return !out->failed;
        }
        if ((unsigned char)ch < 0x20) {
            return false;
        }
        if (ch != '\\') {
            buf_append(out, &ch, 1);
            continue;
        }
        if (c->p >= c->end) {
            return false;
        }
        char escape = *c->p++;
        const char *plain = strchr("\"\\/", escape);
        if (escape != '\0' && plain) {
            buf_append(out, &escape, 1);
        } else if (escape == 'b' || escape == 'f' || escape == 'n' || escape == 'r' || escape == 't') {
            char decoded = escape == 'b' ? '\b' : escape == 'f' ? '\f' : escape == 'n' ? '\n' : escape == 'r' ? '\r' : '\t';
            buf_append(out, &decoded, 1);
        } else if (escape != 'u' || !unicode_escape(c, out)) {
            return false;
        }
    }
    return false;
}

static bool skip_value(json_cursor_t *c, int depth);

/* Skips the members of an object or the items of an array, the opening bracket already read. */
static bool skip_container(json_cursor_t *c, char close, bool members, int depth) {
    if (json_take(c, close)) {
        return true;
    }
    buf_t scratch = {0};
    bool ok = true;
    do {
        if (members && (!json_string(c, &scratch) || !json_take(c, ':'))) {
            ok = false;
            break;
        }
        if (!skip_value(c, depth + 1)) {
            ok = false;
            break;
        }
    } while (json_take(c, ','));
    buf_free(&scratch);
    return ok && json_take(c, close);
}

static bool skip_value(json_cursor_t *c, int depth) {
    if (depth > MAX_DEPTH) {
        return false;
    }
    skip_ws(c);
    if (c->p >= c->end) {
        return false;
    }
    if (*c->p == '"') {
        buf_t scratch = {0};
        bool ok = json_string(c, &scratch);
        buf_free(&scratch);
        return ok;
    }
    if (json_take(c, '{')) {
        return skip_container(c, '}', true, depth);
    }
    if (json_take(c, '[')) {
        return skip_container(c, ']', false, depth);
    }
    /* A number, true, false or null: the run of characters that can make one up. */
    const char *start = c->p;
    while (c->p < c->end && strchr("+-.0123456789eEtruefalsn", *c->p) && *c->p != '\0') {
        c->p++;
    }
    return c->p > start;
}

bool json_skip_value(json_cursor_t *c) { return skip_value(c, 0); }
