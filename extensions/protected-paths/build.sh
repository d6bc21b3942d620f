#!/bin/sh
# Builds protected-paths.wasm (or the file given as $1) from app.py and rules.py with
# componentize-py, against the repository's WIT (../../wit). Needs componentize-py on PATH:
# scripts/guest-tools.sh installs it into target/guest-tools/py/bin.
#
# A hook component has no file system, so the patterns of protected-paths.conf are built in:
# the file's text becomes the module `config` beside the sources. Edit it and rebuild.
set -eu
cd "$(dirname "$0")"
out="${1:-protected-paths.wasm}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work" "$out.part"' EXIT
cp app.py rules.py "$work/"
# The config's text as a Python string literal (repr of the file read as UTF-8).
python3 -c 'import sys; print("TEXT = " + repr(open(sys.argv[1], encoding="utf-8").read()))' \
    protected-paths.conf >"$work/config.py"
# Written beside the target and renamed, so a failed build leaves no half-written component.
componentize-py -d ../../wit -w hook componentize -p "$work" app -o "$out.part"
mv "$out.part" "$out"
