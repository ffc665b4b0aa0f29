#!/usr/bin/env bash
# Reading a large profile: perfmon report against perf report --stdio (Debian's linux-perf) on the
# same perf.data file, alternately (bench/command_compare.cpp): median time and peak memory.
# The file: SAMPLES samples (default 1,000,000) of a tracepoint with call chains, recorded from the
# test worker's call tree (main -> branch a/b -> leaf -> syscall), once by perfmon record and once
# by perf record, so that each tool also reads the other's file.
# Then --sort sym,srcline (source lines from DWARF) on a smaller file of perfmon's.
#   bench/report_vs_perf.sh [build-dir] [runs] [samples]
set -euo pipefail
build=${1:-build}
runs=${2:-10}
samples=${3:-1000000}
perfmon="$build/tools/perfmon/perfmon"
compare="$build/bench/command_compare"
worker="$build/tests/perfmon-test-worker"
[ -x "$perfmon" ] && [ -x "$compare" ] && [ -x "$worker" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

event=syscalls:sys_enter_getppid
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/perfmon.data" -- "$worker" tree-getppid $((samples / 4))
perf record -q -g -e "$event" -c 1 -o "$dir/perf.data" -- "$worker" tree-getppid $((samples / 4)) 2>/dev/null
for file in perfmon.data perf.data; do
  echo "== $file: $(du -m "$dir/$file" | cut -f1) MB, $samples samples; without call chains, then with -g"
  "$compare" "$runs" "$perfmon" report -i "$dir/$file" --sort comm,dso,sym ::: \
    perf report -i "$dir/$file" --stdio --sort comm,dso,sym -g none
  "$compare" "$runs" "$perfmon" report -i "$dir/$file" --sort comm,dso,sym -g ::: \
    perf report -i "$dir/$file" --stdio --sort comm,dso,sym --no-children
done
# Source lines: perf runs addr2line, about half a second per thousand samples here, so this part
# reads a file of 100,000 samples, once per tool.
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/srcline.data" -- "$worker" tree-getppid 25000
echo "== srcline.data: $(du -m "$dir/srcline.data" | cut -f1) MB, 100000 samples; --sort sym,srcline"
"$compare" 1 "$perfmon" report -i "$dir/srcline.data" --sort sym,srcline ::: \
  perf report -i "$dir/srcline.data" --stdio --no-children --sort sym,srcline -g none
