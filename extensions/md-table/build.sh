#!/bin/sh
# Builds md-table.wasm from src/ against the repository's wit/ with componentize-js (on PATH,
# e.g. `npm install -g @bytecodealliance/componentize-js@0.23.0`, or the copy
# scripts/guest-tools.sh installs in target/guest-tools/npm).
#
# `http` and `fetch-event` are left out of the JavaScript engine: with them the component would
# import wasi:http, which this tool has no use for.
#
#     ./build.sh                 # writes md-table.wasm here
#     ./build.sh path/to/out.wasm
set -eu
cd "$(dirname "$0")"
out="${1:-md-table.wasm}"
if ! command -v componentize-js >/dev/null 2>&1; then
    echo "componentize-js not found: run scripts/guest-tools.sh and put target/guest-tools/npm/node_modules/.bin on PATH, or npm install -g @bytecodealliance/componentize-js@0.23.0" >&2
    exit 1
fi
componentize-js --wit ../../wit --world-name tool --disable http fetch-event --out "$out" src/md-table.js
