#!/bin/sh
# Builds a release of `pi`: target/dist/pi.
#
# 1. Builds the `dist` profile (fat LTO: one module, so symbol names carry no per-edit hashes)
#    and runs the cli benchmark's cases once each under callgrind.
# 2. Lists every function those runs executed, in the order they ran, in
#    target/link/hot-functions.txt (generated, never committed).
# 3. Links the binary again with that list (build.rs passes it to LLD as PI_LINK_ORDER), so the
#    code a run touches lies together, and runs the benchmark on the result.
#
# Needs valgrind. Run from anywhere: `sh scripts/release.sh`. The README says what it buys.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
target="${CARGO_TARGET_DIR:-$root/target}"
list="$target/link/hot-functions.txt"
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT
cd "$root"

echo "== profiling a dist build"
PI_LINK_ORDER='' PI_BENCH_RUNS=1 \
PI_BENCH_WRAP="valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file=$profiles/%p.out" \
    cargo bench --profile dist -p pi-cli --bench cli

# Valgrind's virtual CPU has other features than the host, so the first wrapped run compiles
# the components again; compilation is not what pi does on a warm start, so such runs are left
# out.
warm=$(grep -L cranelift_codegen "$profiles"/*.out)
mkdir -p "$(dirname "$list")"
nm --defined-only "$target/dist/pi" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$profiles/defined"
# shellcheck disable=SC2086
sed -n 's/^c\{0,1\}fn=([0-9]*) \(.*\)$/\1/p' $warm | awk '!seen[$0]++' > "$profiles/executed"
awk 'NR == FNR { defined[$0] = 1; next } defined[$0]' "$profiles/defined" "$profiles/executed" > "$list"
echo "$(wc -l < "$list") hot functions in $list"

echo "== linking with the hot functions first, and measuring"
PI_LINK_ORDER="$list" cargo bench --profile dist -p pi-cli --bench cli
echo "release binary: $target/dist/pi"
