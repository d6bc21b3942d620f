#!/bin/sh
# Regenerates hot-functions.txt: every function of the `pi` binary that runs in the cli
# benchmark's cases (`--version`, a text turn, ten tool calls), in the order the profiles name
# them. build.rs asks the linker to place these first, so the code a run touches lies together
# instead of being spread over 20 MB of text; the kernel maps file pages 64 KB at a time, so
# spread-out code costs peak RSS (measured: 22.7 -> 14.7 MB for the ten tool calls).
#
# Needs valgrind. Run from anywhere: `sh host/coding-agent/link/regenerate.sh`. Rerun it when
# dependencies or the toolchain change (symbol hashes change with them); names the binary no
# longer has are ignored by the linker, so a stale list only costs memory, never a build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin="${CARGO_TARGET_DIR:-$root/target}/release/pi"
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT

cd "$root"
PI_BENCH_RUNS=1 \
PI_BENCH_WRAP="valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file=$profiles/%p.out" \
    cargo bench -p pi-coding-agent --bench cli

# Valgrind's virtual CPU has other features than the host, so the first wrapped run compiles
# the components again; compilation is not what pi does on a warm start, so such runs are left
# out.
warm=$(grep -L cranelift_codegen "$profiles"/*.out)
nm --defined-only "$bin" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$profiles/defined"
# shellcheck disable=SC2086
sed -n 's/^c\{0,1\}fn=([0-9]*) \(.*\)$/\1/p' $warm | awk '!seen[$0]++' > "$profiles/executed"
awk 'NR == FNR { defined[$0] = 1; next } defined[$0]' "$profiles/defined" "$profiles/executed" \
    > "$here/hot-functions.txt"
echo "$(wc -l < "$here/hot-functions.txt") hot functions written to $here/hot-functions.txt"
