"""Where the document comes from: a file of the workspace (JSON or TOML) or inline JSON text.

The workspace is all the tool may read (its manifest asks for `filesystem = "read"`, and pi
preopens only the session's working directory). A path that leaves the workspace is refused
here, with a message saying so, before any read; what still gets past that (a symbolic link
pointing outside) is refused by the sandbox itself, and reported the same way.
"""

import errno
import json
import os
import tomllib
from typing import Any, Tuple

# Larger files would not fit the component's memory once parsed (pi gives it 64 MiB).
MAX_FILE_BYTES = 8 * 1024 * 1024

FORMATS = ("json", "toml")


class SourceError(Exception):
    """The document cannot be read or parsed; the message says which and why."""


def load_file(path: str, workspace: str, format: str | None) -> Tuple[str, Any]:
    """The format used and the parsed document of the workspace file `path`."""
    full = resolve(path, workspace)
    chosen = format or _format_of(path)
    data = _read(path, full)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"{path} is not UTF-8 text (byte {e.start}): not a JSON or TOML file") from None
    return chosen, parse(text, chosen, path)


def resolve(path: str, workspace: str) -> str:
    """The absolute path of `path` (relative to the workspace), if it stays inside it."""
    if not path.strip():
        raise SourceError("`path` is empty: give a file in the workspace, or the document as `json`")
    root = os.path.normpath(workspace)
    full = os.path.normpath(os.path.join(root, path))
    if os.path.commonpath([root, full]) != root:
        raise SourceError(
            f"{path} is outside the workspace ({root}): this tool reads only files inside it"
        )
    return full


def parse(text: str, format: str, name: str) -> Any:
    """The document `text` in `format`; `name` says where it came from in errors."""
    if format == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise SourceError(f"{name} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SourceError(f"{name} is not valid TOML: {e}") from None


def _format_of(path: str) -> str:
    extension = os.path.splitext(path)[1].lower()
    if extension == ".toml":
        return "toml"
    if extension in (".json", ".jsonc", ".geojson", ".ipynb") or extension == "":
        return "json"
    raise SourceError(
        f"cannot tell the format of {path} from its extension: give `format` (json or toml)"
    )


def _read(shown: str, full: str) -> bytes:
    try:
        with open(full, "rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise SourceError(f"{shown}: no such file in the workspace") from None
    except IsADirectoryError:
        raise SourceError(f"{shown} is a directory, not a file") from None
    except OSError as e:
        raise SourceError(_refusal(shown, e)) from None
    if len(data) > MAX_FILE_BYTES:
        raise SourceError(f"{shown} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: too large to query")
    return data


def _refusal(shown: str, error: OSError) -> str:
    # The sandbox answers a path that resolves outside its preopens (a symbolic link out of
    # the workspace) with "not permitted" or "not capable".
    if error.errno in (errno.EPERM, errno.EACCES, getattr(errno, "ENOTCAPABLE", -1)):
        return f"{shown}: reading it is not allowed (it leads outside the workspace, or pi did not grant file access)"
    return f"cannot read {shown}: {error.strerror or error}"
