#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Comparing two profiles: perfmon diff against perf diff (Debian's linux-perf) on the same two files,
# alternately (bench/command_compare.cpp): median time and peak memory. The files: SAMPLES samples
# each (default 1,000,000) of a tracepoint with call chains, recorded by perfmon record from the
# test worker's call tree and its plain calls in two proportions; then two recordings of the C++
# compiler (varied stacks, a stripped program's unnamed addresses). Run from the source tree.
#   bench/diff_vs_perf.sh [build-dir] [runs] [samples]
set -euo pipefail
build=${1:-build}
runs=${2:-7}
samples=${3:-1000000}
# shellcheck source=bench/whole_command.sh
source "$(dirname "$0")/whole_command.sh" "$build"

event=syscalls:sys_enter_getppid
# Base: three quarters from the call tree; new: a quarter.
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/base.data" -- sh -c \
  "'$worker' tree-getppid $((samples * 3 / 16)); '$worker' getppid $((samples / 4))"
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/new.data" -- sh -c \
  "'$worker' tree-getppid $((samples / 16)); '$worker' getppid $((samples * 3 / 4))"
sync  # the files written out first: their write-back would share the disk with the reading
echo "== two tracepoint files of $samples samples: perfmon diff against perf diff"
"$compare" "$runs" "$perfmon" diff "$dir/base.data" "$dir/new.data" ::: perf diff "$dir/base.data" "$dir/new.data"

record_compiler "$dir/cc-base.data" 40000 -g
record_compiler "$dir/cc-new.data" 50000 -g
sync
echo "== two compiler profiles: perfmon diff against perf diff"
"$compare" "$runs" "$perfmon" diff "$dir/cc-base.data" "$dir/cc-new.data" ::: \
  perf diff "$dir/cc-base.data" "$dir/cc-new.data"
