#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What computing metrics adds to a measurement (issue 48), as ratios measured in one run:
#   1. `perfmon stat -M page_faults_per_second,cs_per_second -- true` against `perfmon stat` of the
#      same events without metrics (bench/command_compare: whole commands, alternately);
#   2. `perfmon serve -M Default` (the Default metrics this machine can compute) against `perfmon
#      serve` (its default events) on the same CPUs, scraped alternately as Prometheus scrapes
#      (bench/scrape_compare: the daemon's CPU a scrape).
#   bench/metrics_overhead.sh [build-dir] [runs] [scrapes]
set -euo pipefail
build=${1:-build}
runs=${2:-200}
rounds=${3:-2000}
perfmon="$build/tools/perfmon/perfmon"
command_compare="$build/bench/command_compare" scrape_compare="$build/bench/scrape_compare"
[ -x "$perfmon" ] && [ -x "$command_compare" ] && [ -x "$scrape_compare" ] ||
  { echo "build first: cmake --build $build" >&2; exit 1; }
dir=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

echo "== perfmon stat -M against the same events without metrics, $runs runs each"
"$command_compare" "$runs" "$perfmon" stat -M page_faults_per_second,cs_per_second -- true ::: \
  "$perfmon" stat -e page-faults,task-clock,context-switches -- true

# The Default group's events that this machine can count (on a VM without a PMU, the software ones).
events=$("$perfmon" list -j metrics | python3 -c '
import json, sys
usable = set()
for line in sys.stdin:
    metric = json.loads(line)
    if "Default" in metric["MetricGroup"].split(";") and metric["usable"]:
        usable.add(metric["MetricName"])
print(",".join(sorted(usable)))')
cpus=0-$(($(nproc) - 1))
start_serve() {  # NAME ARGS...: a perfmon serve on the loopback; sets port and pid
  local name=$1
  shift
  "$perfmon" serve --listen 127.0.0.1:0 -C "$cpus" "$@" 2>"$dir/$name.log" &
  pids+=($!)
  pid=$!
  for _ in $(seq 50); do
    port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$dir/$name.log")
    [ -n "$port" ] && return
    sleep 0.1
  done
  cat "$dir/$name.log" >&2
  exit 1
}
start_serve metrics -M "$events"
metrics_port=$port metrics_pid=$pid
start_serve plain
echo "== perfmon serve -M $events against perfmon serve, $rounds scrapes each, alternately"
"$scrape_compare" "$rounds" "serve -M Default" "$metrics_port" "$metrics_pid" "serve" "$port" "$pid"
