#!/bin/sh
# Builds {{name}}.wasm from app.py with componentize-py (pip install componentize-py==0.25.1),
# against the WIT in ./wit (world `{{world}}`).
#
# The sources are compiled from a temporary copy, because componentize-py runs the app once
# while building and would leave __pycache__ here; the component is written beside its final
# name and renamed, so a failed build leaves nothing half-written.
set -eu
cd "$(dirname "$0")"
out="$PWD/{{name}}.wasm"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$out.part"' EXIT
cp ./*.py "$work/"
componentize-py -d wit -w {{world}} componentize -p "$work" app -o "$out.part"
mv "$out.part" "$out"
