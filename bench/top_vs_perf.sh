#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What watching costs: perfmon top's own CPU time against perf top's (Debian's linux-perf), both
# sampling every CPU at 1 kHz (-F 1000 -a, cpu-clock where there is no PMU) and printing a table
# every second (--stdio -d 1) for SECONDS seconds while a spinning worker keeps each CPU busy;
# alternately, RUNS times each. CPU time is user + system of the tool, from /usr/bin/time. (The
# workers spin through the vDSO's clock: the samples land on few functions.) FLAGS go to both tools
# (-g: call chains, Children and Self).
#   bench/top_vs_perf.sh [build-dir] [runs] [seconds] [FLAGS...]
set -euo pipefail
build=${1:-build}
runs=${2:-3}
seconds=${3:-20}
flags=("${@:4}")
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

cpu_seconds() {  # the command's user + system seconds
  # Standard input a pipe that stays open, as a terminal's would: perf top polls it, and at the end
  # of a file (/dev/null) its poll returns at once, again and again, and takes no samples.
  sleep $((seconds + 5)) | /usr/bin/time -f "%U %S" -o "$dir/time" timeout -s INT "$seconds" "$@" >/dev/null 2>&1 || true
  tail -1 "$dir/time" | awk '{ printf "%.2f", $1 + $2 }'
}
workers=()
for _ in $(seq "$(nproc)"); do
  "$worker" spin $(((seconds + 5) * 1000 * runs * 2)) &
  workers+=($!)
done
trap 'kill "${workers[@]}" 2>/dev/null; rm -rf "$dir"' EXIT
perfmon_times=() perf_times=()
for run in $(seq "$runs"); do
  if [ $((run % 2)) -eq 1 ]; then
    perfmon_times+=("$(cpu_seconds "$perfmon" top -F 1000 -a --stdio -d 1 "${flags[@]}")")
    perf_times+=("$(cpu_seconds perf top -F 1000 -a --stdio -d 1 "${flags[@]}")")
  else
    perf_times+=("$(cpu_seconds perf top -F 1000 -a --stdio -d 1 "${flags[@]}")")
    perfmon_times+=("$(cpu_seconds "$perfmon" top -F 1000 -a --stdio -d 1 "${flags[@]}")")
  fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "== $(nproc) CPUs at 1 kHz for ${seconds} s, $runs runs each${flags[*]:+, with ${flags[*]}}: CPU seconds of the tool"
echo "perfmon top: ${perfmon_times[*]}  median $(median "${perfmon_times[@]}")"
echo "perf top:    ${perf_times[*]}  median $(median "${perf_times[@]}")"
awk -v a="$(median "${perfmon_times[@]}")" -v b="$(median "${perf_times[@]}")" 'BEGIN { printf "ratio %.3f\n", a / b }'
