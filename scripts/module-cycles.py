#!/usr/bin/env python3
"""Fails when the modules of a crate depend on each other in a cycle.

For every crate under the given roots (a directory holding Cargo.toml and src/), each file's
`crate::` and `super::` paths (in `use` trees and inline) become edges between modules. An edge
between two modules counts between their ancestors that are siblings (children of the lowest
common ancestor), so `a::x -> b::y` is the edge `a -> b`; edges between a module and its own
ancestor are the parent/child relation, not a dependency. Every strongly connected set of
siblings with more than one member is printed; the exit code is 1 when there is one.

A module of generated bindings may name the host's own types (wasmtime's `bindgen!` with its
`with:` mappings), so its outgoing edges are inherent: `--generated CRATE:module` leaves them
out, for the module and its submodules (one per WIT version).

Usage: module-cycles.py [--generated CRATE:module ...] DIR...
"""

import re
import sys
from pathlib import Path

USE = re.compile(r"\buse\s+((?:crate|super|self)\b[^;]*);", re.S)
INLINE = re.compile(r"\b((?:crate|super)(?:::\w+)+)")
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
    """Paths of a `use` tree: `a::{b, c::{d}}` -> a::b, a::c::d."""
    tree = re.sub(r"\s+", "", tree)
    depth, start, parts = 0, 0, []
    if "{" not in tree:
        return [tree.split(" as ")[0]]
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


def resolve(path: str, here: tuple, is_dir_module: bool, known: set):
    """The deepest known module a path names, or None."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    else:
        base = here if is_dir_module else here[:-1]
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    best = None
    cur = base
    if cur in known:
        best = cur
    for seg in segs:
        cur = cur + (seg,)
        if cur in known:
            best = cur
        else:
            break
    return best


def edges_of(crate: Path, generated: set):
    src = crate / "src"
    files = modules_of(src)
    known = set(files.values())
    edges = set()
    for file, here in files.items():
        text = STRING.sub('""', CHAR.sub("' '", COMMENT.sub("", file.read_text(encoding="utf-8"))))
        is_dir = file.name in ("mod.rs", "lib.rs", "main.rs")
        paths = []
        for m in USE.finditer(text):
            paths += expand(m.group(1))
        paths += INLINE.findall(text)
        for path in paths:
            target = resolve(path, here, is_dir, known)
            if target is None or target == here or any(here[: len(g)] == g for g in generated):
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


def main(argv):
    generated, roots = {}, []
    args = iter(argv)
    for arg in args:
        if arg == "--generated":
            crate, _, module = next(args, "").partition(":")
            generated.setdefault(crate, set()).add(tuple(module.split("::")))
        else:
            roots.append(Path(arg))
    crates = sorted({p.parent for r in roots for p in r.rglob("Cargo.toml")
                     if (p.parent / "src").is_dir() and "target" not in p.parts})
    failed = False
    for crate in crates:
        found, graph = cycles(edges_of(crate, generated.get(crate.name, set())))
        for group in found:
            names = [("::".join(m) or "crate") for m in group]
            failed = True
            print(f"{crate}: module cycle: {' <-> '.join(names)}")
            for a in group:
                for b in sorted(graph[a]):
                    if b in group:
                        print(f"    {'::'.join(a)} -> {'::'.join(b)}")
    if not failed:
        print(f"no module cycles in {len(crates)} crates")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
