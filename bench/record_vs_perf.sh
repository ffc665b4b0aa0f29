#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What recording costs the recorded program: bench/timed_spin's own time, alone, under
# `perf record -F HZ` and under `perfmon record -F HZ`, alternating, RUNS rounds; medians, the
# slowdown of each over the program alone, the ratio of perfmon's slowdown to perf's, and the
# samples each lost.
#   bench/record_vs_perf.sh [build-dir] [runs] [hz] [iterations]
set -euo pipefail
build=${1:-build}
runs=${2:-15}
hz=${3:-10000}
iterations=${4:-300000000}
perfmon="$build/tools/perfmon/perfmon"
spin="$build/bench/timed_spin"
[ -x "$perfmon" ] && [ -x "$spin" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

alone=() under_perf=() under_perfmon=() perf_lost=0 perfmon_lost=0
for ((round = 0; round < runs; round++)); do
  alone+=("$("$spin" "$iterations")")
  under_perf+=("$(perf record -q -e cpu-clock -F "$hz" -o "$dir/perf.data" -- "$spin" "$iterations" 2>"$dir/perf.err")")
  lost=$(perf report -i "$dir/perf.data" --stats 2>/dev/null | sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -1)
  perf_lost=$((perf_lost + ${lost:-0}))
  under_perfmon+=("$("$perfmon" record -e cpu-clock -F "$hz" -o "$dir/perfmon.data" -- "$spin" "$iterations" 2>"$dir/perfmon.err")")
  lost=$(sed -n 's/.*, \([0-9]*\) lost ].*/\1/p' "$dir/perfmon.err")
  perfmon_lost=$((perfmon_lost + ${lost:-0}))
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
a=$(median "${alone[@]}") p=$(median "${under_perf[@]}") m=$(median "${under_perfmon[@]}")
awk -v a="$a" -v p="$p" -v m="$m" -v hz="$hz" -v runs="$runs" -v pl="$perf_lost" -v ml="$perfmon_lost" 'BEGIN {
  printf "the program alone      %8.1f ms (median of %d)\n", a, runs
  printf "under perf record      %8.1f ms  slowdown %+.2f%%  lost %d\n", p, 100 * (p - a) / a, pl
  printf "under perfmon record   %8.1f ms  slowdown %+.2f%%  lost %d\n", m, 100 * (m - a) / a, ml
  if (p > a) printf "perfmon / perf (slowdown)  %.2f   at %d Hz\n", (m - a) / (p - a), hz
}'
