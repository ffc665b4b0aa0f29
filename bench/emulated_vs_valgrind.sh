#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What counting on the emulated CPU costs (docs/emulated.md): a command alone, under qemu-user
# alone, under qemu-user with a plugin whose memory callback only counts (memory_callback_floor.c:
# the least that seeing every load's and store's address costs), under `perfmon stat --emulate` (instructions; the default instructions and branches;
# with loads and stores; with the cache model), under `perfmon record --emulate` (a sample every
# 100,000 instructions; with -g callchains), under valgrind's callgrind and cachegrind (its
# cache model given the same caches as perfmon's), alternating, RUNS rounds;
# median seconds and each one's slowdown over the command alone. Default command: gzip -9 of 4 MB
# of base64 text (dynamically linked); the worst case for a per-block count is the test loop
# (tests/emulate/loop.c, two-instruction blocks): give it as the command.
#   bench/emulated_vs_valgrind.sh [build-dir] [runs] [-- command args...]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
perfmon="$build/tools/perfmon/perfmon"
[ -x "$perfmon" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
qemu=qemu-$(uname -m)
for tool in "$qemu" valgrind; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: scripts/install-deps installs it" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -shared -fPIC -fvisibility=hidden -I"$(dirname "$0")/../emulate" -o "$dir/floor.so" \
  "$(dirname "$0")/memory_callback_floor.c"
if [ $# -eq 0 ]; then
  head -c 3000000 /dev/urandom | base64 > "$dir/data.txt"
  set -- gzip -9 -c "$dir/data.txt"
fi
program=$(command -v "$1")

seconds() {  # the wall time of a command, its output discarded
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}
# The same caches for both cache models: 32 KiB 8-way L1s, an 8 MiB 16-way LL.
caches=(--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
names=(alone qemu-user callback-floor emulate:instructions emulate:default emulate:loads,stores emulate:caches record:emulate
       record:emulate-g callgrind cachegrind)
declare -A times
for ((round = 0; round < runs; round++)); do
  times[alone]+=" $(seconds "$program" "${@:2}")"
  times[qemu-user]+=" $(seconds "$qemu" "$program" "${@:2}")"
  times[callback-floor]+=" $(seconds "$qemu" -plugin "$dir/floor.so" "$program" "${@:2}")"
  times[emulate:instructions]+=" $(seconds "$perfmon" stat --emulate -e instructions -o "$dir/out" -- "$program" "${@:2}")"
  times[emulate:default]+=" $(seconds "$perfmon" stat --emulate -o "$dir/out" -- "$program" "${@:2}")"
  times[emulate:loads,stores]+=" $(seconds "$perfmon" stat --emulate -e instructions,L1-dcache-loads,L1-dcache-stores \
    -o "$dir/out" -- "$program" "${@:2}")"
  times[emulate:caches]+=" $(seconds "$perfmon" stat --emulate "${caches[@]}" \
    -e instructions,L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses -o "$dir/out" -- "$program" "${@:2}")"
  times[record:emulate]+=" $(seconds "$perfmon" record --emulate -q -o "$dir/perf.data" -- "$program" "${@:2}")"
  times[record:emulate-g]+=" $(seconds "$perfmon" record --emulate -q -g -o "$dir/perf.data" -- "$program" "${@:2}")"
  times[callgrind]+=" $(seconds valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" "${@:2}")"
  times[cachegrind]+=" $(seconds valgrind --tool=cachegrind --cache-sim=yes "${caches[@]}" --cachegrind-out-file=/dev/null "$program" \
    "${@:2}")"
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
base=$(median ${times[alone]})
echo "command: $program ${*:2} ($runs rounds, medians)"
for name in "${names[@]}"; do
  m=$(median ${times[$name]})
  awk -v name="$name" -v m="$m" -v base="$base" 'BEGIN { printf "%-24s %8.3f s  %6.1fx\n", name, m, m / base }'
done
cat "$dir/out"
