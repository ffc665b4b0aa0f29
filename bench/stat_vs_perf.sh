#!/usr/bin/env bash
# Whole-command overhead: `perfmon stat -- true` against `perf stat -- true` (Debian's linux-perf),
# alternating, RUNS runs each; prints the median wall times and their ratio.
#   bench/stat_vs_perf.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build}
runs=${2:-40}
perfmon="$build/tools/perfmon/perfmon"
[ -x "$perfmon" ] || { echo "no $perfmon: build first (scripts/run-demo)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }

time_ns() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  echo $((end - start))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ours=() theirs=()
for ((i = 0; i < runs; i++)); do
  ours+=("$(time_ns "$perfmon" stat -- true)")
  theirs+=("$(time_ns perf stat -- true)")
done
a=$(printf '%s\n' "${ours[@]}" | median)
b=$(printf '%s\n' "${theirs[@]}" | median)
awk -v a="$a" -v b="$b" -v n="$runs" 'BEGIN {
  printf "perfmon stat -- true: median %.2f ms over %d runs\n", a / 1e6, n
  printf "perf stat -- true:    median %.2f ms over %d runs\n", b / 1e6, n
  printf "ratio perfmon/perf:   %.3f\n", a / b }'
