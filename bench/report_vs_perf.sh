#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reading a large profile: perfmon report against perf report --stdio (Debian's linux-perf) on the
# same perf.data file, alternately (bench/command_compare.cpp): median time and peak memory.
# The file: SAMPLES samples (default 1,000,000) of a tracepoint with call chains, recorded from the
# test worker's call tree (main -> branch a/b -> leaf -> syscall), once by perfmon record and once
# by perf record, so that each tool also reads the other's file.
# Then a compiler's profile of varied stacks, and --sort sym,srcline (source lines from DWARF) on a
# smaller file of perfmon's. Run from the source tree (the compiler's input is one of its files).
#   bench/report_vs_perf.sh [build-dir] [runs] [samples]
set -euo pipefail
build=${1:-build}
runs=${2:-10}
samples=${3:-1000000}
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

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
# Varied stacks: the C++ compiler sampled with call chains every 40 us of its CPU time while it
# compiles one of this project's test files (about 600,000 samples, 50 MB; hundreds of thousands
# of distinct stacks through g++, cc1plus, as, libc and the kernel). Then perfmon report alone:
# one thread against the default (both cores), and --folded and --svg against the tables with and without -g.
cc_source=tests/cli/cli_test.cpp
record_compiler "$dir/cc.data" 40000 -g
echo "== cc.data: $(du -m "$dir/cc.data" | cut -f1) MB, $("$perfmon" report -i "$dir/cc.data" | sed -n 's/^# Samples: \([^ ]*\).*/\1/p') samples of g++ -O2 $cc_source; without call chains, then with -g"
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym ::: \
  perf report -i "$dir/cc.data" --stdio --sort comm,dso,sym -g none --no-children
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym -g ::: \
  perf report -i "$dir/cc.data" --stdio --sort comm,dso,sym --no-children
echo "== cc.data: perfmon report, the default (one thread per 16 MiB, up to the CPUs) against one thread"
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym ::: \
  "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym --threads 1
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym -g ::: \
  "$perfmon" report -i "$dir/cc.data" --sort comm,dso,sym -g --threads 1
echo "== cc.data: --folded and --svg against the table of the same stacks (-g), then against the table without them"
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --folded ::: "$perfmon" report -i "$dir/cc.data" -g
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --svg "$dir/cc.svg" ::: "$perfmon" report -i "$dir/cc.data" -g
"$compare" "$runs" "$perfmon" report -i "$dir/cc.data" --folded ::: "$perfmon" report -i "$dir/cc.data"
rm -f "$dir/cc.data"

# Source lines: perf runs addr2line, about half a second per thousand samples here, so this part
# reads a file of 100,000 samples, once per tool.
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/srcline.data" -- "$worker" tree-getppid 25000
echo "== srcline.data: $(du -m "$dir/srcline.data" | cut -f1) MB, 100000 samples; --sort sym,srcline"
"$compare" 1 "$perfmon" report -i "$dir/srcline.data" --sort sym,srcline ::: \
  perf report -i "$dir/srcline.data" --stdio --no-children --sort sym,srcline -g none
