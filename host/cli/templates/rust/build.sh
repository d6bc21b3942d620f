#!/bin/sh
# Builds {{name}}.wasm next to pi-extension.toml: the crate compiled for wasm32-wasip2 is a
# WebAssembly component as it is, so cargo is the only tool needed.
set -eu
cd "$(dirname "$0")"
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-wasip2; then
    echo "build.sh: the wasm32-wasip2 target is not installed: run rustup target add wasm32-wasip2" >&2
    exit 1
fi
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/{{ident}}.wasm" {{name}}.wasm
echo "built {{name}}.wasm"
