#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A medium profile, as users meet them (issue 47): the compile of one template-heavy file
# (bench/data/template_heavy.cpp) sampled on cpu-clock at 20,000 Hz with call chains, about
# 100,000 samples and 9 MB. perfmon report against perf report --stdio on it (the table: perf with
# --no-children -g none), alternately, median time and peak memory; then where perfmon report's
# time goes, by perf record of perfmon report itself (cpu-clock, call chains).
#   bench/report_medium.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build}
runs=${2:-7}
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

"$perfmon" record -q -e cpu-clock -F 20000 -g -o "$dir/medium.data" -- \
  g++ -std=c++20 -O2 -c "$(dirname "$0")/data/template_heavy.cpp" -o "$dir/medium.o"
echo "== medium.data: $(du -m "$dir/medium.data" | cut -f1) MB, $("$perfmon" report -i "$dir/medium.data" | sed -n 's/^# Samples: \([^ ]*\).*/\1/p') samples"
"$compare" "$runs" "$perfmon" report -i "$dir/medium.data" --sort comm,dso,sym ::: \
  perf report -i "$dir/medium.data" --stdio --sort comm,dso,sym --no-children -g none
echo "== where perfmon report's time goes (8 runs sampled), by function, children included"
perf record -q -e cpu-clock -F 10000 -g -o "$dir/self.data" -- \
  sh -c "for i in 1 2 3 4 5 6 7 8; do '$perfmon' report -i '$dir/medium.data' --sort comm,dso,sym >/dev/null; done" 2>/dev/null
perf report -i "$dir/self.data" --comm perfmon --children --sort sym --stdio -g none 2>/dev/null |
  grep -v '^#' | grep -v '^$' | head -30
