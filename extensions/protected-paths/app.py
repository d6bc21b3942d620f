"""The protected-paths hook: a component of the `hook` world, built with componentize-py.

It subscribes to `tool-call` only and blocks the `write` and `edit` calls whose path one of the
patterns of `protected-paths.conf` protects (`rules.py` reads and matches them). A hook
component has no file system, so `build.sh` builds the config file's text into the component
(as the module `config`); changing the patterns means rebuilding.
"""

import json
from typing import List, Optional

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import types
from wit_world.imports.hook_types import (
    AgentEndEvent,
    BeforeAgentStartAnswer,
    BeforeAgentStartEvent,
    BeforeCompactAnswer,
    BeforeCompactAnswer_Continue,
    BeforeCompactEvent,
    ContextEvent,
    EventKind,
    HookInfo,
    InputAnswer,
    InputAnswer_Continue,
    InputEvent,
    SessionStart,
    ToolCallAnswer,
    ToolCallAnswer_Allow,
    ToolCallAnswer_Block,
    ToolCallEvent,
    ToolResultAnswer,
    ToolResultAnswer_Keep,
    ToolResultEvent,
    TurnEndEvent,
)

import config
import rules

RULES = rules.parse(config.TEXT)

# The tools that change files, and the argument naming the file.
GUARDED_TOOLS = {"write", "edit"}


def target_path(input_json: str) -> Optional[str]:
    """The path a write or edit call names, or None when its arguments have none."""
    try:
        args = json.loads(input_json)
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    path = args.get("path", args.get("file_path"))
    return path if isinstance(path, str) else None


class HookGuest(exports.HookGuest):
    def describe(self) -> HookInfo:
        return HookInfo(events=[EventKind.TOOL_CALL], commands=[])

    def on_tool_call(self, event: ToolCallEvent) -> ToolCallAnswer:
        if event.tool not in GUARDED_TOOLS:
            return ToolCallAnswer_Allow()
        path = target_path(event.input_json)
        if path is None:
            return ToolCallAnswer_Allow()
        pattern = rules.protected(RULES, path)
        if pattern is None:
            return ToolCallAnswer_Allow()
        return ToolCallAnswer_Block(
            f"{path} is protected (pattern `{pattern}` of protected-paths): "
            "it may not be written or edited"
        )

    # The events below are not subscribed to (describe lists tool-call only); the host never
    # calls them, but the world's export has them all.

    def on_session_start(self, event: SessionStart) -> None:
        pass

    def on_session_shutdown(self) -> None:
        pass

    def on_input(self, event: InputEvent) -> InputAnswer:
        return InputAnswer_Continue()

    def on_before_agent_start(self, event: BeforeAgentStartEvent) -> BeforeAgentStartAnswer:
        return BeforeAgentStartAnswer(system_prompt=None, message=None)

    def on_context(self, event: ContextEvent) -> Optional[List[types.Message]]:
        return None

    def on_tool_result(self, event: ToolResultEvent) -> ToolResultAnswer:
        return ToolResultAnswer_Keep()

    def on_before_compact(self, event: BeforeCompactEvent) -> BeforeCompactAnswer:
        return BeforeCompactAnswer_Continue()

    def on_turn_end(self, event: TurnEndEvent) -> None:
        pass

    def on_agent_end(self, event: AgentEndEvent) -> None:
        pass

    def run_command(self, name: str, args: str) -> None:
        raise Err(f"no command `{name}`")
