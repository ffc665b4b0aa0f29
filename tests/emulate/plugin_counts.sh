#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The emulated CPU agrees with valgrind: `perfmon stat --emulate` counts a static program's 10
# million iterations of its 2-instruction loop within 0.1% of callgrind's Ir, and its conditional
# and indirect branches within 0.1% of cachegrind's Bc + Bi, and its branch predictor model misses
# a pseudo-random branch's outcomes within 2% as often as cachegrind's, and its cache model misses
# L1D and the LL within 1% as often as cachegrind's with the same caches. And QEMU refuses
# perfmon's plugin, with the plugin's sentence, without a counters file perfmon made.
# (Exactness, threads, forks, execs and errors: tests/cli/emulate_test.cpp.)
#   plugin_counts.sh PERFMON PLUGIN LOOP_PROGRAM        (exit 77: skipped, with the reason)
set -euo pipefail
perfmon=$1 plugin=$2 program=$3
qemu=qemu-$(uname -m)
if ! command -v "$qemu" >/dev/null; then
  echo "skipped: $qemu is not installed (Debian's qemu-user; scripts/install-deps installs it)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

if command -v valgrind >/dev/null; then
  ours=$("$perfmon" stat --emulate -x, -e instructions -- "$program" 10000000 2>&1 >/dev/null |
    awk -F, '$3 == "instructions" { print $1 }')
  valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind" "$program" 10000000 >/dev/null 2>&1
  theirs=$(awk '$1 == "summary:" { print $2 }' "$dir/callgrind")
  echo "loop of 10M: $ours instructions, callgrind's Ir $theirs"
  awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b < 0.001) }' ||
    { echo "failed: more than 0.1% from callgrind's count"; fail=1; }
  # Branches: cachegrind counts conditional (Bc) and indirect (Bi) branches, not direct ones. It
  # misses the conditional branches that valgrind's translator follows within one block (half the
  # loop's, at one alignment of it): --vex-guest-chase=no keeps it from following them.
  read -r conditional indirect < <("$perfmon" stat --emulate -e branches -- "$program" 10000000 2>&1 >/dev/null |
    sed -n 's/.*branches by kind: \([0-9]*\) conditional, [0-9]* direct, \([0-9]*\) indirect.*/\1 \2/p')
  valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --vex-guest-chase=no --cachegrind-out-file="$dir/cachegrind" \
    "$program" 10000000 >/dev/null 2>&1
  read -r bc bi < <(awk '/^events:/ { for (i = 2; i <= NF; ++i) column[$i] = i }
    $1 == "summary:" { print $column["Bc"], $column["Bi"] }' "$dir/cachegrind")
  echo "loop of 10M: $conditional conditional + $indirect indirect branches, cachegrind's Bc + Bi $bc + $bi"
  awk -v a="$((conditional + indirect))" -v b="$((bc + bi))" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b < 0.001) }' ||
    { echo "failed: branches more than 0.1% from cachegrind's Bc + Bi"; fail=1; }

  # Mispredictions: perfmon's model and cachegrind's miss about half of a million branches on a
  # pseudo-random bit (and little else): within 2% of each other.
  ours=$("$perfmon" stat --emulate -x, -e branch-misses -- "$program" random-branches 1000000 2>&1 >/dev/null |
    awk -F, '$3 == "branch-misses" { print $1 }')
  valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --vex-guest-chase=no --cachegrind-out-file="$dir/cachegrind" \
    "$program" random-branches 1000000 >/dev/null 2>&1
  theirs=$(awk '/^events:/ { for (i = 2; i <= NF; ++i) column[$i] = i }
    $1 == "summary:" { print $column["Bcm"] + $column["Bim"] }' "$dir/cachegrind")
  echo "random branches, 1M: $ours mispredicted, cachegrind's Bcm + Bim $theirs"
  awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b < 0.02) }' ||
    { echo "failed: mispredictions more than 2% from cachegrind's"; fail=1; }

  # Cache misses: three passes over 2 MiB, a load from each 64-byte line, through the same caches.
  caches=(--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64)
  read -r l1 ll l1i < <("$perfmon" stat --emulate -x, "${caches[@]}" \
    -e L1-dcache-load-misses,LLC-load-misses,L1-icache-load-misses -- "$program" strided-loads 2097152 3 2>&1 >/dev/null |
    awk -F, '{ count[$3] = $1 } END { print count["L1-dcache-load-misses"], count["LLC-load-misses"], count["L1-icache-load-misses"] }')
  valgrind --tool=cachegrind --cache-sim=yes "${caches[@]}" --cachegrind-out-file="$dir/cachegrind" \
    "$program" strided-loads 2097152 3 >/dev/null 2>&1
  read -r d1mr dlmr i1mr < <(awk '/^events:/ { for (i = 2; i <= NF; ++i) column[$i] = i }
    $1 == "summary:" { print $column["D1mr"], $column["DLmr"], $column["I1mr"] }' "$dir/cachegrind")
  echo "strided loads over 2 MiB, 3 passes: L1D load misses $l1, LL $ll (cachegrind's D1mr $d1mr, DLmr $dlmr);" \
    "L1I misses $l1i (I1mr $i1mr: counted per instruction, not per line)"
  for pair in "$l1 $d1mr" "$ll $dlmr"; do
    awk -v pair="$pair" 'BEGIN { split(pair, v, " "); d = v[1] - v[2]; if (d < 0) d = -d; exit !(v[2] > 0 && d / v[2] < 0.01) }' ||
      { echo "failed: cache misses more than 1% from cachegrind's ($pair)"; fail=1; }
  done
else
  echo "callgrind and cachegrind comparisons skipped: valgrind is not installed"
fi

refused() {  # PLUGIN_ARGUMENTS SENTENCE: QEMU must refuse the plugin so, and run nothing
  if "$qemu" -plugin "$plugin$1" "$program" 1 >/dev/null 2>"$dir/err"; then
    echo "failed: the plugin loaded with '$1'"; fail=1
  fi
  grep -qF "$2" "$dir/err" || { echo "failed: with '$1', no sentence '$2' but:"; cat "$dir/err"; fail=1; }
}
refused "" "needs counters=FILE, a counters file that the perfmon library made"
head -c 100000 /dev/zero > "$dir/zeros"
refused ",counters=$dir/zeros" "is not a counters file of this plugin's version"
refused ",counters=$dir/none" "cannot open the counters file"
[ $fail -eq 0 ] && echo "all checks passed"
exit $fail
