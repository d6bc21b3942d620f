#!/usr/bin/env python3
"""Fails when the modules of a crate depend on each other in a cycle.

For every crate under the given roots (a directory holding Cargo.toml and src/), each file's
`crate::`, `super::` and `self::` paths (in `use` trees and inline) become edges between modules.
A path is resolved from the module it is written in: the file's module (`a/b.rs` and `a/b/mod.rs`
are both `a::b`, whose `super` is `a`), and inside an inline `mod x { … }` that module's child
`x`, so `super::` in a `mod tests` block names the file's own module. An edge between two modules
counts between their ancestors that are siblings (children of the lowest common ancestor), so
`a::x -> b::y` is the edge `a -> b`; edges between a module and its own ancestor are the
parent/child relation, not a dependency. Every strongly connected set of siblings with more than
one member is printed; the exit code is 1 when there is one.

A module of generated bindings may name the host's own types (wasmtime's `bindgen!` with its
`with:` mappings), so its outgoing edges are inherent: `--generated CRATE:module` leaves them
out, for the module and its submodules (one per WIT version).

`--self-test DIR` checks the checker on the fixture crates in DIR: each crate whose directory
name starts with `cycle` must have a cycle, every other one none; the exit code is 1 otherwise.

Usage: module-cycles.py [--generated CRATE:module ...] DIR...
       module-cycles.py --self-test DIR
"""

import re
import sys
from pathlib import Path

USE = re.compile(r"\buse\s+((?:crate|super|self)\b[^;]*);", re.S)
INLINE = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
# An inline module's opening (`mod tests {`); its end is found by counting braces.
INLINE_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
# A renaming in a `use` tree (`a::b as c`): the path is the part before `as`.
ALIAS = re.compile(r"\s+as\s+\w+")
# Plain comments are left out; doc comments stay, since their intra-doc links name modules too.
COMMENT = re.compile(r"//(?![/!])[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
# Character literals ('"', '\'') would otherwise open or close a string.
CHAR = re.compile(r"'(?:\\.|[^'\\\n])'")


def modules_of(src: Path):
    """Module path (tuple) of every .rs file under src."""
    out = {}
    for file in src.rglob("*.rs"):
        rel = file.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts in (["lib"], ["main"]):
            parts = []
        elif parts[-1] == "mod":
            parts = parts[:-1]
        if "bin" == (parts[:1] or [None])[0]:
            continue
        out[file] = tuple(parts)
    return out


def expand(tree: str):
    """Paths of a `use` tree: `a::{b, c::{d}}` -> a::b, a::c::d; renamings dropped."""
    tree = re.sub(r"\s+", "", ALIAS.sub("", tree))
    if "{" not in tree:
        return [tree]
    depth, start, parts = 0, 0, []
    head, _, rest = tree.partition("{")
    inner = rest[: rest.rfind("}")]
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    out = []
    for part in filter(None, parts):
        for sub in expand(part):
            out.append(head + sub if sub != "self" else head.rstrip(":"))
    return out


def inline_modules(text: str):
    """(start, end, name) of every inline `mod name { … }` block, outermost first."""
    out = []
    for m in INLINE_MOD.finditer(text):
        depth = 0
        for i in range(m.end() - 1, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    out.append((m.start(), i, m.group(1)))
                    break
    return out


def scope_at(pos: int, here: tuple, blocks):
    """The module a path at `pos` is written in: the file's, or an inline one inside it."""
    return here + tuple(name for start, end, name in blocks if start < pos < end)


def resolve(path: str, scope: tuple, known: set):
    """The deepest known module a path written in module `scope` names, or None."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    else:
        base = scope
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                if not base:
                    return None  # above the crate root: not a module of this crate
                base = base[:-1]
            segs = segs[1:]
    full = base + tuple(segs)
    for n in range(len(full), -1, -1):
        if full[:n] in known:
            return full[:n]
    return None


def paths_of(text: str, here: tuple):
    """(path, module it is written in) of every `crate::`/`super::`/`self::` path in a file."""
    blocks = inline_modules(text)
    out = []
    for m in USE.finditer(text):
        scope = scope_at(m.start(), here, blocks)
        out += [(path, scope) for path in expand(m.group(1))]
    for m in INLINE.finditer(text):
        out.append((m.group(1), scope_at(m.start(), here, blocks)))
    return out


def edges_of(crate: Path, generated: set):
    src = crate / "src"
    files = modules_of(src)
    known = set(files.values())
    edges = set()
    for file, here in files.items():
        if any(here[: len(g)] == g for g in generated):
            continue
        text = STRING.sub('""', CHAR.sub("' '", COMMENT.sub("", file.read_text(encoding="utf-8"))))
        for path, scope in paths_of(text, here):
            target = resolve(path, scope, known)
            if target is None or target == here:
                continue
            n = 0
            while n < min(len(here), len(target)) and here[n] == target[n]:
                n += 1
            if n == len(here) or n == len(target):
                continue  # parent and child
            edges.add((here[: n + 1], target[: n + 1]))
    return edges


def cycles(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out, graph


def crates_under(roots):
    return sorted({p.parent for r in roots for p in r.rglob("Cargo.toml")
                   if (p.parent / "src").is_dir() and "target" not in p.parts})


def report(crate: Path, generated: set):
    """Prints the crate's cycles; whether it has one."""
    found, graph = cycles(edges_of(crate, generated))
    for group in found:
        names = [("::".join(m) or "crate") for m in group]
        print(f"{crate}: module cycle: {' <-> '.join(names)}")
        for a in group:
            for b in sorted(graph[a]):
                if b in group:
                    print(f"    {'::'.join(a)} -> {'::'.join(b)}")
    return bool(found)


def self_test(fixtures: Path):
    """Each fixture crate named `cycle*` must have a cycle, every other one none."""
    crates = crates_under([fixtures])
    wrong = []
    for crate in crates:
        expected = crate.name.startswith("cycle")
        if report(crate, set()) != expected:
            wrong.append(f"{crate}: {'missed its cycle' if expected else 'false cycle'}")
    for line in wrong:
        print(f"self-test failed: {line}")
    if not crates:
        print(f"self-test failed: no fixture crates under {fixtures}")
        return 1
    if not wrong:
        print(f"self-test passed on {len(crates)} fixture crates")
    return 1 if wrong else 0


def main(argv):
    if argv[:1] == ["--self-test"] and len(argv) == 2:
        return self_test(Path(argv[1]))
    generated, roots = {}, []
    args = iter(argv)
    for arg in args:
        if arg == "--generated":
            crate, _, module = next(args, "").partition(":")
            generated.setdefault(crate, set()).add(tuple(module.split("::")))
        else:
            roots.append(Path(arg))
    crates = crates_under(roots)
    failed = False
    for crate in crates:
        failed |= report(crate, generated.get(crate.name, set()))
    if not failed:
        print(f"no module cycles in {len(crates)} crates")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
