/* {{name}}: a tool. `describe` tells pi the tool's name, description and JSON schema;
 * `execute` runs one call and answers. Strings handed back are malloc'd (tool_string_dup):
 * the bindings free them after pi has read them. */
#include <stdio.h>
#include <stdlib.h>

#include "tool.h"

void exports_pi_extension_tool_guest_describe(exports_pi_extension_tool_guest_list_tool_definition_t *ret) {
    pi_extension_types_tool_definition_t *tool = calloc(1, sizeof *tool);
    if (!tool) {
        *ret = (exports_pi_extension_tool_guest_list_tool_definition_t){0};
        return;
    }
    tool_string_dup(&tool->name, "{{ident}}");
    tool_string_dup(&tool->label, "{{name}}");
    tool_string_dup(&tool->description, "Says hello and names the working directory.");
    tool_string_dup(&tool->parameters_schema, "{\"type\":\"object\",\"properties\":{}}");
    tool->execution_mode = PI_EXTENSION_TYPES_EXECUTION_MODE_PARALLEL;
    ret->ptr = tool;
    ret->len = 1;
}

bool exports_pi_extension_tool_guest_execute(exports_pi_extension_tool_guest_tool_call_t *call,
                                             exports_pi_extension_tool_guest_tool_result_t *ret,
                                             tool_string_t *err) {
    exports_pi_extension_tool_guest_tool_call_free(call);
    tool_string_t cwd = {0};
    pi_extension_host_cwd(&cwd);
    tool_string_t line = {0};
    tool_string_set(&line, "{{ident}} called");
    pi_extension_host_log(PI_EXTENSION_HOST_LOG_LEVEL_INFO, &line);

    pi_extension_types_content_block_t *block = calloc(1, sizeof *block);
    char *text = malloc(cwd.len + 64);
    if (!block || !text) {
        free(block);
        free(text);
        tool_string_free(&cwd);
        tool_string_dup(err, "out of memory");
        return false;
    }
    int len = snprintf(text, cwd.len + 64, "Hello from {{name}}! The working directory is %.*s.",
                       (int)cwd.len, (const char *)cwd.ptr);
    tool_string_free(&cwd);
    block->tag = PI_EXTENSION_TYPES_CONTENT_BLOCK_TEXT;
    block->val.text.ptr = (uint8_t *)text;
    block->val.text.len = (size_t)len;
    ret->content.ptr = block;
    ret->content.len = 1;
    ret->is_error = false;
    return true;
}
