#!/bin/sh
# Builds json-query.wasm (or the file given as $1) from app.py with componentize-py, against
# the repository's WIT (../../wit). Needs componentize-py on PATH: scripts/guest-tools.sh
# installs it into target/guest-tools/py/bin.
#
# The sources are compiled from a temporary copy: componentize-py runs the app once while
# building and leaves `__pycache__` beside the modules it imported.
set -eu
cd "$(dirname "$0")"
out="${1:-json-query.wasm}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work" "$out.part"' EXIT
cp app.py query.py sources.py "$work/"
# Written beside the target and renamed, so a failed build leaves no half-written component.
componentize-py -d ../../wit -w tool componentize -p "$work" app -o "$out.part"
mv "$out.part" "$out"
