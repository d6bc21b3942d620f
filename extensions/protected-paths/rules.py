"""The protected-path rules: parsing the config file's patterns and matching a path.

Plain Python (no component bindings), so it runs anywhere: `python3 rules.py` checks itself.
"""

import fnmatch
from typing import List, Optional


class Rule:
    """One pattern of the config file."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.directory = pattern.endswith("/")
        self.glob = pattern.rstrip("/")
        self.has_slash = "/" in self.glob

    def matches(self, parts: List[str]) -> bool:
        """Whether the path, split into its non-empty parts, is protected by this rule."""
        if not parts:
            return False
        if self.directory:
            # The directory itself or anything under it: any part but the file's own name
            # for something under it, the last part for the directory.
            return any(fnmatch.fnmatchcase(part, self.glob) for part in parts)
        if self.has_slash:
            wanted = len(self.glob.strip("/").split("/"))
            tail = "/".join(parts[-wanted:])
            return fnmatch.fnmatchcase(tail, self.glob.strip("/"))
        return fnmatch.fnmatchcase(parts[-1], self.glob)


def parse(text: str) -> List[Rule]:
    """The rules of a config file: one pattern a line; blank lines and `#` comments skipped."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append(Rule(line))
    return rules


def protected(rules: List[Rule], path: str) -> Optional[str]:
    """The pattern that protects `path`, or None. `.` parts are dropped; `..` removes the
    part before it, so `src/../.env` is `.env`."""
    parts: List[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts:
            parts.pop()
        else:
            parts.append(part)
    for rule in rules:
        if rule.matches(parts):
            return rule.pattern
    return None


if __name__ == "__main__":
    with open("protected-paths.conf", encoding="utf-8") as f:
        RULES = parse(f.read())
    for blocked in [".env", "app/.env.local", "/repo/.git/config", ".git", "certs/server.pem",
                    "Cargo.lock", "web/package-lock.json", "src/../.env", "./go.sum"]:
        assert protected(RULES, blocked), blocked
    for allowed in ["src/main.rs", "env.txt", ".envrc.md", "gitignore", "Cargo.toml",
                    "docs/.github/x.md", "key.pem.txt"]:
        assert not protected(RULES, allowed), allowed
    print("rules: ok")
