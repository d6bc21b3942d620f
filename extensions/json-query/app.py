"""The `json_query` tool: a component of the `tool` world, built with componentize-py.

componentize-py generates the `wit_world` package from the repository's `wit/` when it builds
the component; this module implements its `tool-guest` export. The work is in `query.py` (the
path expressions) and `sources.py` (reading and parsing the document), plain Python that runs
anywhere.
"""

import datetime
import json
from typing import Any, List

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

import query
import sources

NAME = "json_query"

SCHEMA = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Path into the document: `.` for all of it, `.key`, `.\"odd key\"`, "
            "`[0]`, `[-1]` (last), `[]` (every element), chained: `.dependencies.serde.version`, "
            "`.items[].name`.",
        },
        "path": {
            "type": "string",
            "description": "A JSON or TOML file in the workspace (relative to it, or absolute inside it).",
        },
        "json": {
            "type": "string",
            "description": "The JSON document itself, instead of `path`.",
        },
        "format": {
            "type": "string",
            "enum": list(sources.FORMATS),
            "description": "The file's format when its extension does not say (.json, .toml).",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


class ToolGuest(exports.ToolGuest):
    def describe(self) -> List[ToolDefinition]:
        return [
            ToolDefinition(
                name=NAME,
                label="JSON query",
                description="Reads a JSON or TOML file of the workspace (or JSON given inline) and "
                "returns the values at a path such as `.dependencies.serde.version` or "
                "`.items[].name`, pretty-printed as JSON, one per match.",
                parameters_schema=json.dumps(SCHEMA),
                prompt_snippet="Query JSON/TOML files by path (e.g. `.items[].name`)",
                prompt_guidelines=[
                    "Use json_query instead of reading a whole JSON or TOML file when you need a few values from it."
                ],
                execution_mode=ExecutionMode.PARALLEL,
            )
        ]

    def execute(self, call: ToolCall) -> ToolResult:
        try:
            return run(json.loads(call.arguments))
        except (query.QueryError, sources.SourceError) as e:
            host.log(host.LogLevel.DEBUG, f"{NAME} failed: {e}")
            raise Err(str(e))


def run(arguments: dict) -> ToolResult:
    steps = query.parse(arguments["query"])
    path, inline = arguments.get("path"), arguments.get("json")
    if (path is None) == (inline is None):
        raise sources.SourceError("give exactly one of `path` (a file in the workspace) or `json` (the document)")
    if path is not None:
        format, document = sources.load_file(path, host.cwd(), arguments.get("format"))
        source = path
    else:
        format, source = "json", "the inline JSON"
        document = sources.parse(inline, "json", source)
    values = query.evaluate(steps, document)
    host.log(host.LogLevel.DEBUG, f"{arguments['query']} on {source}: {len(values)} value(s)")
    text = "\n".join(pretty(v) for v in values) if values else f"{arguments['query']} matched nothing"
    details = {"source": source, "format": format, "matches": len(values)}
    return ToolResult(content=[ContentBlock_Text(text)], details=json.dumps(details), is_error=False)


def pretty(value: Any) -> str:
    # TOML has dates and times, which JSON has not: they are shown as ISO 8601 strings.
    return json.dumps(value, indent=2, ensure_ascii=False, default=_iso)


def _iso(value: Any) -> str:
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")
