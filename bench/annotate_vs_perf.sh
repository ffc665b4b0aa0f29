#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Annotating the hottest function: perfmon annotate against perf annotate --stdio (Debian's
# linux-perf, which runs objdump) on the same file and symbol, alternately (bench/command_compare.cpp):
# median time and peak memory. The files: SAMPLES samples (default 1,000,000) of a tracepoint from
# the test worker's perfmon_annotated (its own system call, inlined, on two lines), and a recording
# of the C++ compiler on cpu-clock whose hottest function is annotated. Run from the source tree.
#   bench/annotate_vs_perf.sh [build-dir] [runs] [samples]
set -euo pipefail
build=${1:-build}
runs=${2:-7}
samples=${3:-1000000}
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

"$perfmon" record -q -e syscalls:sys_enter_getppid -c 1 -o "$dir/worker.data" -- \
  "$worker" annotate $((samples * 4 / 5)) >/dev/null
echo "== $samples tracepoint samples: perfmon annotate against perf annotate --stdio, perfmon_annotated"
"$compare" "$runs" "$perfmon" annotate -i "$dir/worker.data" perfmon_annotated ::: \
  perf annotate --stdio -i "$dir/worker.data" perfmon_annotated

record_compiler "$dir/cc.data" 20000
hottest=$("$perfmon" annotate --json -i "$dir/cc.data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["annotations"][0]["function"])')
echo "== a compiler profile: perfmon annotate against perf annotate --stdio, its hottest function $hottest"
"$compare" "$runs" "$perfmon" annotate -i "$dir/cc.data" "$hottest" ::: \
  perf annotate --stdio -i "$dir/cc.data" "$hottest"
