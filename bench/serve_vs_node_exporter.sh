#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfmon serve against Debian's prometheus-node-exporter (1.5) with its perf collector, on the same
# software events of every CPU: both started here on loopback, scraped alternately ROUNDS times
# (bench/scrape_compare.cpp: latency, the daemon's CPU time a scrape, resident memory); then each
# daemon's own CPU use over IDLE seconds scraped every 15 s, as Prometheus would; then perfmon serve
# alone under LOAD seconds of 50 scrapers at once (bench/scrape_load.cpp). Between them, perfmon serve
# with ten events (five more software events and tracepoints: all a VM without a PMU has) against
# node_exporter's five, for the goal's "2 CPUs x 10 events".
#   bench/serve_vs_node_exporter.sh [build-dir] [rounds] [idle-seconds] [load-seconds]
set -euo pipefail
build=${1:-build}
rounds=${2:-2000}
idle=${3:-60}
load=${4:-60}
perfmon="$build/tools/perfmon/perfmon"
compare="$build/bench/scrape_compare" scrape_load="$build/bench/scrape_load"
[ -x "$perfmon" ] && [ -x "$compare" ] && [ -x "$scrape_load" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
exporter=/usr/bin/prometheus-node-exporter
[ -x "$exporter" ] || { echo "node_exporter is missing: apt-get install prometheus-node-exporter" >&2; exit 1; }
dir=$(mktemp -d)
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$dir"; }
pids=()
trap cleanup EXIT

cpus=0-$(($(nproc) - 1))
# node_exporter's perf collector opens its software events (and hardware and cache ones where there
# is a PMU) on each CPU; perfmon serve the same five software events.
"$exporter" --collector.disable-defaults --collector.perf --collector.perf.cpus="$cpus" \
  --web.listen-address=127.0.0.1:0 >"$dir/ne.log" 2>&1 &
pids+=($!)
"$perfmon" serve --listen 127.0.0.1:0 -C "$cpus" \
  -e context-switches,cpu-migrations,major-faults,minor-faults,page-faults 2>"$dir/serve.log" &
pids+=($!)
sleep 1
ne_port=$(ss -ltnpH | awk -v pid="${pids[0]}" '$0 ~ "pid=" pid "," { split($4, a, ":"); print a[2]; exit }')
serve_port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$dir/serve.log")
echo "== $(nproc) CPUs, 5 software events each; $rounds scrapes each, alternately"
"$compare" "$rounds" "perfmon serve" "$serve_port" "${pids[1]}" node_exporter "$ne_port" "${pids[0]}"

"$perfmon" serve --listen 127.0.0.1:0 -C "$cpus" \
  -e context-switches,cpu-migrations,major-faults,minor-faults,page-faults,task-clock,cpu-clock,alignment-faults,emulation-faults,syscalls:sys_enter_read \
  2>"$dir/serve10.log" &
pids+=($!)
sleep 1
serve10_port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$dir/serve10.log")
echo "== perfmon serve with 10 events against node_exporter's 5; $rounds scrapes each, alternately"
"$compare" "$rounds" "perfmon serve (10)" "$serve10_port" "${pids[2]}" node_exporter "$ne_port" "${pids[0]}"
kill "${pids[2]}"

echo "== own CPU use over $idle s, scraped every 15 s"
cpu_ns() { local sum=0; for t in /proc/"$1"/task/*/schedstat; do sum=$((sum + $(cut -d' ' -f1 "$t"))); done; echo "$sum"; }
before_serve=$(cpu_ns "${pids[1]}") before_ne=$(cpu_ns "${pids[0]}")
for ((t = 0; t < idle; t += 15)); do
  "$compare" 1 "perfmon serve" "$serve_port" "${pids[1]}" node_exporter "$ne_port" "${pids[0]}" >/dev/null
  sleep 15
done
awk -v s=$(($(cpu_ns "${pids[1]}") - before_serve)) -v n=$(($(cpu_ns "${pids[0]}") - before_ne)) -v t="$idle" \
  'BEGIN { printf "perfmon serve  %.4f %% of a core\nnode_exporter  %.4f %% of a core\n", s / t / 1e7, n / t / 1e7 }'

echo "== perfmon serve under $load s of 50 scrapers at once"
"$scrape_load" "$load" 50 "$serve_port" "${pids[1]}"
