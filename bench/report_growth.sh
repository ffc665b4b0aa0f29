#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How perfmon report's time and peak memory grow with the samples of a file: the test worker's call
# tree sampled on every getppid (bench/report_vs_perf.sh's file) at 100,000 to LARGEST samples
# (default 10,000,000: about 1.2 GB), each read without chains and with -g, with one thread and
# with the default. A file is removed before the next is made.
#   bench/report_growth.sh [build-dir] [largest]
set -euo pipefail
build=${1:-build}
largest=${2:-10000000}
perfmon="$build/tools/perfmon/perfmon"
worker="$build/tests/perfmon-test-worker"
[ -x "$perfmon" ] && [ -x "$worker" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Seconds and peak MiB of one run (the median of three).
measure() {
  for _ in 1 2 3; do /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; done |
    sort -n | sed -n 2p | awk '{printf "%.2f s %5.0f MiB", $1, $2 / 1024}'
}

printf '%10s %8s | %-20s %-20s | %-20s %-20s\n' samples MB "table, 1 thread" "table, default" "-g, 1 thread" "-g, default"
for samples in 100000 300000 1000000 3000000 10000000; do
  [ "$samples" -le "$largest" ] || break
  "$perfmon" record -q -g -m 1024 -e syscalls:sys_enter_getppid -c 1 -o "$dir/tree.data" -- \
    "$worker" tree-getppid $((samples / 4))
  read_file=("$perfmon" report -i "$dir/tree.data" --sort comm,dso,sym)
  printf '%10s %8s | %-20s %-20s | %-20s %-20s\n' "$samples" "$(du -m "$dir/tree.data" | cut -f1)" \
    "$(measure "${read_file[@]}" --threads 1)" "$(measure "${read_file[@]}")" \
    "$(measure "${read_file[@]}" -g --threads 1)" "$(measure "${read_file[@]}" -g)"
  rm -f "$dir/tree.data"
done
