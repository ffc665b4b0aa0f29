#!/usr/bin/env bash
# perfmon's QEMU plugin counts exactly: a static program's loop of 2N instructions under qemu-user
# counts 2N + b, the same b for N, 2N and 3N and from run to run; a run of 10 million iterations
# agrees with valgrind callgrind's Ir within 0.1%; without out=, QEMU refuses the plugin with its
# sentence.
#   plugin_counts.sh PLUGIN LOOP_PROGRAM        (exit 77: skipped, with the reason)
set -euo pipefail
plugin=$1 program=$2
qemu=qemu-$(uname -m)
if ! command -v "$qemu" >/dev/null; then
  echo "skipped: $qemu is not installed (Debian's qemu-user; scripts/install-deps installs it)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
counted() {  # N: the total the plugin counts for the program's loop of N
  "$qemu" -plugin "$plugin,out=$dir/counts" "$program" "$1" >/dev/null
  awk '$1 == "total" { print $2 }' "$dir/counts"
}
fail=0
one=$(counted 1000000) two=$(counted 2000000) three=$(counted 3000000) again=$(counted 1000000)
echo "loop of 1M, 2M, 3M: $one, $two, $three instructions; 1M again: $again"
if [ $((two - one)) -ne 2000000 ] || [ $((three - two)) -ne 2000000 ]; then
  echo "failed: each million iterations must add exactly 2,000,000 instructions"; fail=1
fi
[ "$again" = "$one" ] || { echo "failed: two runs of the same program counted differently"; fail=1; }

if command -v valgrind >/dev/null; then
  ours=$(counted 10000000)
  valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind" "$program" 10000000 >/dev/null 2>&1
  theirs=$(awk '$1 == "summary:" { print $2 }' "$dir/callgrind")
  echo "loop of 10M: $ours instructions, callgrind's Ir $theirs"
  awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b < 0.001) }' ||
    { echo "failed: more than 0.1% from callgrind's count"; fail=1; }
else
  echo "callgrind comparison skipped: valgrind is not installed"
fi

if "$qemu" -plugin "$plugin" "$program" 1 >/dev/null 2>"$dir/err"; then
  echo "failed: the plugin loaded without out="; fail=1
fi
grep -q "needs out=FILE" "$dir/err" || { echo "failed: no sentence without out=:"; cat "$dir/err"; fail=1; }
[ $fail -eq 0 ] && echo "all checks passed"
exit $fail
