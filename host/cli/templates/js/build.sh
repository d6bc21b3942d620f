#!/bin/sh
# Builds {{name}}.wasm from src/index.js against wit/ (the `{{world}}` world) with
# componentize-js: the copy `npm install` put in node_modules/, else one on PATH.
#
# The engine's `http` and `fetch-event` features are left out unless the world imports
# wasi:http itself: with them the component would import wasi:http, which only providers get.
set -eu
cd "$(dirname "$0")"
PATH="$PWD/node_modules/.bin:$PATH"
if ! command -v componentize-js >/dev/null 2>&1; then
    echo "componentize-js not found: run \`npm install\` here first" >&2
    exit 1
fi
disable="http fetch-event"
if [ "{{world}}" = provider ]; then
    disable="fetch-event"
fi
# shellcheck disable=SC2086 # one word per feature
componentize-js --wit wit --world-name {{world}} --disable $disable --out {{name}}.wasm src/index.js
echo "built {{name}}.wasm"
