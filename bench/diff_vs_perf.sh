#!/usr/bin/env bash
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
perfmon="$build/tools/perfmon/perfmon"
compare="$build/bench/command_compare"
worker="$build/tests/perfmon-test-worker"
[ -x "$perfmon" ] && [ -x "$compare" ] && [ -x "$worker" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

event=syscalls:sys_enter_getppid
# Base: three quarters from the call tree; new: a quarter.
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/base.data" -- sh -c \
  "'$worker' tree-getppid $((samples * 3 / 16)); '$worker' getppid $((samples / 4))"
"$perfmon" record -q -g -e "$event" -c 1 -o "$dir/new.data" -- sh -c \
  "'$worker' tree-getppid $((samples / 16)); '$worker' getppid $((samples * 3 / 4))"
echo "== two tracepoint files of $samples samples: perfmon diff against perf diff"
"$compare" "$runs" "$perfmon" diff "$dir/base.data" "$dir/new.data" ::: perf diff "$dir/base.data" "$dir/new.data"

compile() {
  "$perfmon" record -q -g -e cpu-clock -c "$2" -o "$dir/$1" -- g++ -std=c++20 -O2 -Iinclude -Isrc \
    -DPERFMON='"perfmon"' -DWORKER='"worker"' -DWORKER_WITHOUT_FRAME_POINTERS='"nofp"' -DBENCHMARK_COUNTERS='"b"' \
    -DEMULATED_LOOP='"l"' -DEMULATED_REGION='"r"' -DLIKWID_THREADS='"t"' -DLIKWID_EXAMPLE='""' \
    -DLIKWID_FORTRAN_EXAMPLE='""' -DLIKWID_READER='"r"' -DPAPI_HL_PROGRAM='""' -c tests/cli/cli_test.cpp -o "$dir/cc.o"
}
compile cc-base.data 40000
compile cc-new.data 50000
echo "== two compiler profiles: perfmon diff against perf diff"
"$compare" "$runs" "$perfmon" diff "$dir/cc-base.data" "$dir/cc-new.data" ::: \
  perf diff "$dir/cc-base.data" "$dir/cc-new.data"
