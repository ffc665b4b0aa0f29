# SPDX-License-Identifier: Apache-2.0
# What the whole-command comparisons (bench/*_vs_perf.sh) share, sourced by them: the built programs
# checked, a scratch directory removed at exit, and the C++ compiler's profile. Run from the source
# tree. Sets perfmon, compare, worker and dir from the build directory given.
build=${1:-build}
perfmon="$build/tools/perfmon/perfmon"
compare="$build/bench/command_compare"
worker="$build/tests/perfmon-test-worker"
[ -x "$perfmon" ] && [ -x "$compare" ] && [ -x "$worker" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Varied stacks: the C++ compiler sampled on cpu-clock every PERIOD ns of its CPU time while it
# compiles one of this project's test files (tests/cli/cli_test.cpp), into FILE.
#   record_compiler FILE PERIOD [perfmon record options...]
record_compiler() {
  local file=$1 period=$2
  shift 2
  "$perfmon" record -q "$@" -e cpu-clock -c "$period" -o "$file" -- g++ -std=c++20 -O2 -Iinclude -Isrc \
    -DPERFMON='"perfmon"' -DWORKER='"worker"' -DWORKER_WITHOUT_FRAME_POINTERS='"nofp"' -DBENCHMARK_COUNTERS='"b"' \
    -DEMULATED_LOOP='"l"' -DEMULATED_REGION='"r"' -DLIKWID_THREADS='"t"' -DLIKWID_EXAMPLE='""' \
    -DLIKWID_FORTRAN_EXAMPLE='""' -DLIKWID_READER='"r"' -DPAPI_HL_PROGRAM='""' -c tests/cli/cli_test.cpp -o "$dir/cc.o"
}
