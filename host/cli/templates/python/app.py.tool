"""{{name}}: a tool that counts the words, lines and characters of the text it is given."""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host
from wit_world.imports.pi_extension_types import (
    ContentBlock_Text,
    ExecutionMode,
    ToolCall,
    ToolDefinition,
    ToolResult,
)

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "The text to count."}},
    "required": ["text"],
}


class ToolGuest(exports.ToolGuest):
    def describe(self) -> list[ToolDefinition]:
        return [
            ToolDefinition(
                name="{{ident}}",
                label="{{name}}",
                description="Counts the words, lines and characters of a text.",
                parameters_schema=json.dumps(SCHEMA),
                prompt_snippet=None,
                prompt_guidelines=[],
                execution_mode=ExecutionMode.PARALLEL,
            )
        ]

    def execute(self, call: ToolCall) -> ToolResult:
        text = json.loads(call.arguments).get("text")
        if not isinstance(text, str):
            # An `Err` reaches the model as an error result.
            raise Err("`text` must be a string")
        counts = {"words": len(text.split()), "lines": len(text.splitlines()), "characters": len(text)}
        host.log(host.LogLevel.DEBUG, f"counted {counts}")
        answer = f"{counts['words']} words, {counts['lines']} lines, {counts['characters']} characters"
        return ToolResult(content=[ContentBlock_Text(answer)], details=json.dumps(counts), is_error=False)
