"""Path expressions over parsed JSON/TOML values, in the small jq-like syntax the tool offers.

An expression is a chain of steps applied from the document's root:

    .                  the whole document
    .name  ."a key"    an object's member (quotes for keys that are not plain words)
    ["a key"]          the same, bracketed
    [2]  [-1]          an array's element (negative counts from the end)
    []                 every element of an array (or every value of an object)

Each step maps every current value to its results, so `.items[].name` yields one value per
item. A step that does not fit the value (a missing key, an index out of range, a member of a
string) is an error naming where it happened, never a silent `null`: the model asked for
something that is not there and should be told which part of the path was wrong.
"""

import json
from dataclasses import dataclass
from typing import Any, List, Tuple, Union


class QueryError(Exception):
    """A path that cannot be parsed, or that does not fit the document."""


@dataclass(frozen=True)
class Key:
    name: str


@dataclass(frozen=True)
class Index:
    position: int


@dataclass(frozen=True)
class Each:
    pass


Step = Union[Key, Index, Each]

WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-$@")

# Listed keys in an error message; an object with more says how many it has.
KEYS_SHOWN = 20


def parse(expression: str) -> List[Step]:
    """The steps of `expression`; a QueryError says what is wrong and at which column."""
    text = expression.strip()
    if not text.startswith(".") and not text.startswith("["):
        raise QueryError(f"a path starts with `.` (e.g. `.items[0].name`), not {text[:1]!r}")
    steps: List[Step] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == ".":
            i += 1
            if i == len(text) or text[i] == "[":
                continue
            if text[i] == '"':
                name, i = _quoted(text, i)
                steps.append(Key(name))
                continue
            start = i
            while i < len(text) and text[i] in WORD_CHARS:
                i += 1
            if i == start:
                raise QueryError(f"expected a key after `.` at column {start + 1} of `{text}`")
            steps.append(Key(text[start:i]))
        elif char == "[":
            step, i = _bracket(text, i)
            steps.append(step)
        else:
            raise QueryError(
                f"unexpected {char!r} at column {i + 1} of `{text}`: "
                "steps are `.key`, `.\"key\"`, `[index]` or `[]`"
            )
    return steps


def _quoted(text: str, i: int) -> Tuple[str, int]:
    """The string starting at the quote `text[i]` and the index after its closing quote."""
    out = []
    j = i + 1
    while j < len(text):
        char = text[j]
        if char == "\\" and j + 1 < len(text):
            out.append(text[j + 1])
            j += 2
            continue
        if char == '"':
            return "".join(out), j + 1
        out.append(char)
        j += 1
    raise QueryError(f"unclosed quote at column {i + 1} of `{text}`")


def _bracket(text: str, i: int) -> Tuple[Step, int]:
    """The step in the brackets opening at `text[i]` and the index after `]`."""
    j = i + 1
    if j < len(text) and text[j] == '"':
        name, j = _quoted(text, j)
        if j >= len(text) or text[j] != "]":
            raise QueryError(f"expected `]` at column {j + 1} of `{text}`")
        return Key(name), j + 1
    close = text.find("]", j)
    if close < 0:
        raise QueryError(f"unclosed `[` at column {i + 1} of `{text}`")
    inside = text[j:close].strip()
    if inside == "":
        return Each(), close + 1
    try:
        return Index(int(inside)), close + 1
    except ValueError:
        raise QueryError(
            f"`[{inside}]` at column {i + 1} of `{text}` is not an index: "
            'use a number, `[]` for every element, or `["key"]`'
        ) from None


def evaluate(steps: List[Step], document: Any) -> List[Any]:
    """Every value the steps reach from `document`, in document order."""
    current: List[Tuple[str, Any]] = [("", document)]
    for step in steps:
        current = [found for where, value in current for found in _apply(step, where, value)]
    return [value for _, value in current]


def _apply(step: Step, where: str, value: Any) -> List[Tuple[str, Any]]:
    shown = where or "."
    if isinstance(step, Key):
        if not isinstance(value, dict):
            raise QueryError(f"`{shown}` is {_kind(value)}, not an object: it has no key {_quote(step.name)}")
        if step.name not in value:
            raise QueryError(f"`{shown}` has no key {_quote(step.name)} ({_keys(value)})")
        return [(where + _key_text(step.name), value[step.name])]
    if isinstance(step, Index):
        if not isinstance(value, list):
            raise QueryError(f"`{shown}` is {_kind(value)}, not an array: it has no index [{step.position}]")
        if not -len(value) <= step.position < len(value):
            raise QueryError(
                f"index [{step.position}] is out of range: `{shown}` has {len(value)} element(s)"
            )
        return [(f"{where}[{step.position}]", value[step.position])]
    if isinstance(value, list):
        return [(f"{where}[{i}]", item) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return [(where + _key_text(k), item) for k, item in value.items()]
    raise QueryError(f"`{shown}` is {_kind(value)}: `[]` needs an array or an object")


def _key_text(name: str) -> str:
    if name and all(c in WORD_CHARS for c in name):
        return "." + name
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'."{escaped}"'


def _quote(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a " + type(value).__name__


def _keys(value: dict) -> str:
    if not value:
        return "it is empty"
    names = list(value)
    listed = ", ".join(names[:KEYS_SHOWN])
    more = f", … {len(names)} in all" if len(names) > KEYS_SHOWN else ""
    return f"its keys: {listed}{more}"
