#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfmon bench as a CI gate, measured (issue 45; docs/benchmarks.md, "perfmon bench"):
#   1. wall time against valgrind's callgrind on the same programs, alternately (bench/command_compare):
#      perfmon bench --measures instructions against callgrind alone, and perfmon bench's default
#      measures (its branch predictor and cache models) against callgrind --cache-sim=yes;
#   2. the same instructions per unit of work: slopes over two sizes of each program, perfmon bench's
#      against callgrind's Ir;
#   3. determinism: one binary run RUNS times gives identical counts; the example project's 0.1 %
#      commit fails a 0.05 % gate in each of TRIALS trials, and a clean rebuild of the baseline
#      (compiled again from its source) in none.
#   bench/bench_gate.sh [build-dir] [timing-runs] [trials]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
trials=${3:-20}
perfmon="$build/tools/perfmon/perfmon" compare="$build/bench/command_compare"
example="$build/examples/bench-example"
for file in "$perfmon" "$compare" "$example"; do
  [ -x "$file" ] || { echo "build first: cmake --build $build ($file is missing)" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "valgrind is missing: scripts/install-deps installs it" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c 1000000 /dev/urandom | base64 >"$dir/data.txt"

echo "== 1. wall time against callgrind, $runs runs each, alternately"
for program in "$example 1000000" "gzip -9 -c $dir/data.txt"; do
  # shellcheck disable=SC2086 # the program's words
  "$compare" "$runs" "$perfmon" bench --measures instructions -- $program ::: \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $program
  # shellcheck disable=SC2086
  "$compare" "$runs" "$perfmon" bench -- $program ::: \
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file=/dev/null $program
done

echo "== 2. instructions per unit of work: perfmon bench against callgrind's Ir"
instructions() {  # perfmon bench's instructions of the command
  "$perfmon" bench --measures instructions --json -- "$@" 2>/dev/null | python3 -c '
import json, sys
text = sys.stdin.read()
print(int(next(iter(json.loads(text[text.index("{\n"):]).values()))["instructions"]["value"]))'
}
ir() {  # callgrind's Ir of the command
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$@" >/dev/null 2>&1
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "$dir/cg.out"
}
for size in 1000000 2000000; do
  echo "example $size: perfmon bench $(instructions "$example" "$size"), callgrind $(ir "$example" "$size")"
done
p1=$(instructions "$example" 1000000) p2=$(instructions "$example" 2000000)
c1=$(ir "$example" 1000000) c2=$(ir "$example" 2000000)
echo "slope per 1,000,000 numbers: perfmon bench $((p2 - p1)), callgrind $((c2 - c1))"

echo "== 3. determinism: $trials runs of one binary; the 0.1 % commit and a clean rebuild, $trials trials each"
# Every build of the example compiled here alike, to the same path (its name is in its arguments),
# its output to a file each time (a terminal, a file and /dev/null make libc's start-up run other code).
source_file="$(dirname "$0")/../examples/bench/parse_and_sum.c"
build_example() { cc -O2 -g -fno-omit-frame-pointer "$@" -o "$dir/program" "$source_file"; }
build_example
"$perfmon" bench --name example -r "$trials" --save "$dir/base.json" -- "$dir/program" >"$dir/runs.txt"
spreads=$(python3 -c '
import json, sys
results = json.load(open(sys.argv[1]))
print(sum(m["upper_value"] - m["lower_value"] for b in results.values() for m in b.values()))' "$dir/base.json")
echo "$trials runs: the spread of every measure summed: $spreads"
flagged=0 clean=0
for _ in $(seq "$trials"); do
  build_example -DMORE_WORK
  status=0
  "$perfmon" bench --name example --compare "$dir/base.json" --threshold 0.05% -- "$dir/program" >"$dir/out.txt" 2>&1 ||
    status=$?
  [ "$status" -eq 2 ] && flagged=$((flagged + 1))
  build_example
  "$perfmon" bench --name example --compare "$dir/base.json" --threshold 0.05% -- "$dir/program" >"$dir/out.txt" 2>&1 &&
    clean=$((clean + 1))
done
echo "the 0.1 % commit failed the gate in $flagged of $trials trials; a clean rebuild passed in $clean of $trials"
