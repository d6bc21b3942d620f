/* The `checksum` tool: the exports of the `tool` world (`describe`, `execute`), written
 * against the bindings `wit-bindgen c` generates from wit/ into the build directory. One call
 * sums several files; a file that cannot be read gets a line saying why instead of its sums,
 * so one bad path does not cost the model the others. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sums.h"
#include "tool.h"

/* Paths one call may name (the schema says so to the model as well). */
#define MAX_PATHS 64

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,\"items\":{\"type\":\"string\"},"
    "\"description\":\"Files to sum, relative to the working directory or absolute inside it\"},"
    "\"sums\":{\"type\":\"array\",\"items\":{\"enum\":[\"sha256\",\"crc32\",\"counts\"]},"
    "\"description\":\"Which sums to give (default: all); counts are bytes, lines and words\"}},"
    "\"required\":[\"paths\"],\"additionalProperties\":false}";

bool checksum_aborted(void) { return pi_extension_host_aborted(); }

void exports_pi_extension_tool_guest_describe(exports_pi_extension_tool_guest_list_tool_definition_t *ret) {
    pi_extension_types_tool_definition_t *tool = calloc(1, sizeof *tool);
    if (!tool) {
        *ret = (exports_pi_extension_tool_guest_list_tool_definition_t){0};
        return;
    }
    tool_string_dup(&tool->name, "checksum");
    tool_string_dup(&tool->label, "Checksum");
    tool_string_dup(&tool->description,
                    "Computes the SHA-256 and CRC-32 of files in the working directory and counts "
                    "their bytes, lines and words (as sha256sum, cksum -a crc32b and wc do). Give "
                    "several paths at once; each gets one line of results or the reason it failed.");
    tool_string_dup(&tool->parameters_schema, SCHEMA);
    tool->prompt_snippet.is_some = true;
    tool_string_dup(&tool->prompt_snippet.val,
                    "checksum: SHA-256, CRC-32 and byte/line/word counts of workspace files");
    tool->execution_mode = PI_EXTENSION_TYPES_EXECUTION_MODE_PARALLEL;
    ret->ptr = tool;
    ret->len = 1;
}

/* What the arguments ask for. */
typedef struct {
    buf_t paths[MAX_PATHS];
    size_t count;
    int want;
} request_t;

static void request_free(request_t *r) {
    for (size_t i = 0; i < r->count; i++) {
        buf_free(&r->paths[i]);
    }
}

/* Reads `{"paths": [...], "sums": [...]}`; false, with the reason in `error`, otherwise. */
static bool parse_request(const tool_string_t *arguments, request_t *r, buf_t *error) {
    json_cursor_t c = {(const char *)arguments->ptr, (const char *)arguments->ptr + arguments->len};
    buf_t key = {0}, item = {0};
    bool ok = json_take(&c, '{');
    r->want = 0;
    if (ok && !json_take(&c, '}')) {
        do {
            if (!json_string(&c, &key) || !json_take(&c, ':')) {
                ok = false;
            } else if (strcmp(key.data, "paths") == 0 || strcmp(key.data, "sums") == 0) {
                bool paths = key.data[0] == 'p';
                if (!json_take(&c, '[')) {
                    ok = false;
                } else if (!json_take(&c, ']')) {
                    do {
                        if (!json_string(&c, &item)) {
                            ok = false;
                        } else if (paths && r->count == MAX_PATHS) {
                            buf_printf(error, "at most %d paths per call", MAX_PATHS);
                            ok = false;
                        } else if (paths) {
                            r->paths[r->count++] = item;
                            item = (buf_t){0};
                        } else {
                            r->want |= strcmp(item.data, "sha256") == 0   ? WANT_SHA256
                                       : strcmp(item.data, "crc32") == 0  ? WANT_CRC32
                                       : strcmp(item.data, "counts") == 0 ? WANT_COUNTS
                                                                          : 0;
                        }
                    } while (ok && json_take(&c, ','));
                    ok = ok && json_take(&c, ']');
                }
            } else {
                ok = json_skip_value(&c);
            }
        } while (ok && json_take(&c, ','));
        ok = ok && json_take(&c, '}');
    }
    buf_free(&key);
    buf_free(&item);
    if (ok && r->count == 0) {
        buf_puts(error, "`paths` must name at least one file");
        ok = false;
    }
    if (!ok && error->len == 0) {
        buf_puts(error, "the arguments are not {\"paths\": [\"file\", ...], \"sums\": [...]}");
    }
    if (r->want == 0) {
        r->want = WANT_ALL;
    }
    return ok;
}

/* Appends one file's line to the text and its object to the details. */
static void report(buf_t *text, buf_t *details, const buf_t *path, int want, const sums_t *sums,
                   const buf_t *error) {
    buf_append(text, path->data, path->len);
    buf_puts(text, ":");
    buf_puts(details, details->len > 1 ? ",{\"path\":" : "{\"path\":");
    buf_json_string(details, path->data, path->len);
    if (error->len > 0) {
        buf_printf(text, " error: %s\n", error->data);
        buf_puts(details, ",\"error\":");
        buf_json_string(details, error->data, error->len);
        buf_puts(details, "}");
        return;
    }
    if (want & WANT_SHA256) {
        buf_printf(text, " sha256=%s", sums->sha256);
        buf_printf(details, ",\"sha256\":\"%s\"", sums->sha256);
    }
    if (want & WANT_CRC32) {
        buf_printf(text, " crc32=%08x", (unsigned)sums->crc32);
        buf_printf(details, ",\"crc32\":\"%08x\"", (unsigned)sums->crc32);
    }
    if (want & WANT_COUNTS) {
        buf_printf(text, " bytes=%llu lines=%llu words=%llu", (unsigned long long)sums->bytes,
                   (unsigned long long)sums->lines, (unsigned long long)sums->words);
        buf_printf(details, ",\"bytes\":%llu,\"lines\":%llu,\"words\":%llu",
                   (unsigned long long)sums->bytes, (unsigned long long)sums->lines,
                   (unsigned long long)sums->words);
    }
    buf_puts(text, "\n");
    buf_puts(details, "}");
}

/* Moves a buffer's bytes into a WIT string (the bindings free it after the call returns). */
static void give(tool_string_t *out, buf_t *b) {
    out->ptr = (uint8_t *)b->data;
    out->len = b->len;
    *b = (buf_t){0};
}

/* Sums every requested file; false (with `error`) only when the call was aborted. */
static bool sum_all(const request_t *r, buf_t *text, buf_t *details, size_t *failed, buf_t *error) {
    tool_string_t cwd = {0};
    pi_extension_host_cwd(&cwd);
    char *root = strndup((const char *)cwd.ptr, cwd.len);
    tool_string_free(&cwd);
    buf_t resolved = {0}, why = {0};
    bool aborted = false;
    buf_puts(details, "[");
    for (size_t i = 0; i < r->count && !aborted; i++) {
        sums_t sums = {0};
        why.len = 0;
        buf_append(&why, "", 0);
        if (sums_resolve(root ? root : "/", r->paths[i].data, r->paths[i].len, &resolved, &why)) {
            aborted = sums_of_file(resolved.data, r->want, &sums, &why) == SUMS_ABORTED;
        }
        *failed += why.len > 0;
        report(text, details, &r->paths[i], r->want, &sums, &why);
    }
    buf_puts(details, "]");
    if (aborted) {
        buf_puts(error, "aborted");
    }
    free(root);
    buf_free(&resolved);
    buf_free(&why);
    return !aborted;
}

bool exports_pi_extension_tool_guest_execute(exports_pi_extension_tool_guest_tool_call_t *call,
                                             exports_pi_extension_tool_guest_tool_result_t *ret,
                                             tool_string_t *err) {
    request_t request = {0};
    buf_t text = {0}, details = {0}, error = {0};
    size_t failed = 0;
    bool ok = parse_request(&call->arguments, &request, &error) &&
              sum_all(&request, &text, &details, &failed, &error);
    request_free(&request);
    exports_pi_extension_tool_guest_tool_call_free(call);
    if (ok && (text.failed || details.failed)) {
        buf_free(&error);
        buf_puts(&error, "out of memory while writing the results");
        ok = false;
    }
    if (!ok) {
        buf_free(&text);
        buf_free(&details);
        give(err, &error);
        return false;
    }
    buf_free(&error);
    pi_extension_types_content_block_t *block = calloc(1, sizeof *block);
    if (!block) {
        buf_free(&text);
        buf_free(&details);
        tool_string_dup(err, "out of memory");
        return false;
    }
    block->tag = PI_EXTENSION_TYPES_CONTENT_BLOCK_TEXT;
    give(&block->val.text, &text);
    ret->content.ptr = block;
    ret->content.len = 1;
    ret->details.is_some = true;
    give(&ret->details.val, &details);
    /* An error result only when no file could be summed; otherwise the lines say which failed. */
    ret->is_error = failed == request.count;
    return true;
}
