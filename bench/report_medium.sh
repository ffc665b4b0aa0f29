#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A medium profile, as users meet them (issue 47): the compile of one template-heavy file
# (bench/data/template_heavy.cpp) sampled on cpu-clock at 20,000 Hz with call chains, about
# 100,000 samples and 9 MB. perfmon report against perf report --stdio on it (the table: perf with
# --no-children -g none), alternately, median time and peak memory, with the kernel's symbols kept
# from an earlier run and without; then where perfmon report's time goes, by perf record of
# perfmon report itself (cpu-clock, call chains).
#   bench/report_medium.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build}
runs=${2:-7}
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

"$perfmon" record -q -e cpu-clock -F 20000 -g -o "$dir/medium.data" -- \
  g++ -std=c++20 -O2 -c "$(dirname "$0")/data/template_heavy.cpp" -o "$dir/medium.o"
echo "== medium.data: $(du -m "$dir/medium.data" | cut -f1) MB, $("$perfmon" report -i "$dir/medium.data" | sed -n 's/^# Samples: \([^ ]*\).*/\1/p') samples"
# perfmon keeps the kernel's symbols between the runs of a boot (in $XDG_CACHE_HOME/perfmon, here a
# scratch one): a run with that copy, as every run but a boot's first, then one without (the copy
# removed before each run), against perf.
export XDG_CACHE_HOME=$dir/cache
echo "== with the kernel's symbols kept from an earlier run"
"$compare" "$runs" "$perfmon" report -i "$dir/medium.data" --sort comm,dso,sym ::: \
  perf report -i "$dir/medium.data" --stdio --sort comm,dso,sym --no-children -g none
echo "== a boot's first run: /proc/kallsyms read (and the copy written)"
"$compare" "$runs" sh -c "rm -f '$dir/cache/perfmon/kernel-symbols'; exec '$perfmon' report -i '$dir/medium.data' --sort comm,dso,sym" ::: \
  perf report -i "$dir/medium.data" --stdio --sort comm,dso,sym --no-children -g none
echo "== where perfmon report's time goes (8 runs sampled), by function, children included"
perf record -q -e cpu-clock -F 10000 -g -o "$dir/self.data" -- \
  sh -c "for i in 1 2 3 4 5 6 7 8; do '$perfmon' report -i '$dir/medium.data' --sort comm,dso,sym >/dev/null; done" 2>/dev/null
perf report -i "$dir/self.data" --comm perfmon --children --sort sym --stdio -g none 2>/dev/null |
  grep -v '^#' | grep -v '^$' | head -30
