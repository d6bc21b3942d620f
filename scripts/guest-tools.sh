#!/usr/bin/env bash
# Installs the toolchains that build the non-Rust example extensions of `extensions/` into
# `target/guest-tools/`, one section per language. Idempotent: a toolchain already installed at
# the pinned version is left alone, so `.ci/run` calls it on every run.
#
#     scripts/guest-tools.sh            # every language
#     scripts/guest-tools.sh js         # only the named ones
#
# Needs the package registries (npm, …) on first run only.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$PWD/target/guest-tools"
mkdir -p "$tools"

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

# ---------------------------------------------------------------------------------------------

all=(js)
langs=("$@")
[ "${#langs[@]}" -gt 0 ] || langs=("${all[@]}")
for lang in "${langs[@]}"; do
    case "$lang" in
    js) install_js ;;
    *)
        echo "guest-tools: unknown language \`$lang\` (known: ${all[*]})" >&2
        exit 2
        ;;
    esac
done
