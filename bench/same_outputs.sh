#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A refactoring's check that behaviour did not change: the same commands with two builds' perfmon
# (an older commit's, built in a worktree, and this one's), their outputs compared byte for byte:
# "same", "same (times masked)" where only a run's own timing differs (decimals, and integers of
# five digits or more: run times in ns), else "DIFFER" and the first lines that do.
#   bench/same_outputs.sh OLD_BUILD [NEW_BUILD]      (e.g. /tmp/old/build build)
set -u
OLD=$1/tools/perfmon/perfmon NEW=${2:-build}/tools/perfmon/perfmon
W=${2:-build}/tests/perfmon-test-worker
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mask() { sed -E 's/[0-9]+\.[0-9]+/T/g; s/[0-9]{5,}/N/g; s/ +/ /g'; }
same() { # name, then the command with PERFMON standing for the binary
  local name=$1; shift
  local a b
  a=$("${@/PERFMON/$OLD}" 2>&1); b=$("${@/PERFMON/$NEW}" 2>&1)
  if [ "$a" == "$b" ]; then echo "same   $name"; else
    if [ "$(echo "$a" | mask)" == "$(echo "$b" | mask)" ]; then echo "same (times masked) $name"; else echo "DIFFER $name"; diff <(echo "$a") <(echo "$b") | head -10; fi; fi
}
same stat-csv PERFMON stat -x, -e syscalls:sys_enter_getppid,syscalls:sys_enter_getpid -- $W getppid 1000
same stat-table PERFMON stat -e syscalls:sys_enter_getppid -- $W getppid 1000
same stat-json PERFMON stat -j -e syscalls:sys_enter_getppid -- $W getppid 1000
same stat-repeat PERFMON stat -r 3 -x, -e syscalls:sys_enter_getppid -- $W getppid 500
same stat-passes PERFMON stat --passes -x, -e syscalls:sys_enter_getppid,task-clock -- $W getppid 500
same stat-sets PERFMON stat --sets syscalls:sys_enter_getppid --sets syscalls:sys_enter_getppid -x, -- $W getppid 3000 --pause-us 5000 --pause-every 1000
same stat-exit PERFMON stat -x, -e syscalls:sys_enter_getppid -- $W exit 3
same stat-127 PERFMON stat -e task-clock -- /nonexistent/x
same stat-interval-count PERFMON stat -I 100 -x, -e syscalls:sys_enter_getppid -- sleep 0.35
same stat-default PERFMON stat -- true
$OLD record -q -e syscalls:sys_enter_getppid -c 1 -o $scratch/old.data -- $W getppid 700
$NEW record -q -e syscalls:sys_enter_getppid -c 1 -o $scratch/new.data -- $W getppid 700
same record-then-report-old-file PERFMON report -i $scratch/old.data --stdio
same record-then-report-new-file PERFMON report -i $scratch/new.data --stdio
same report-files-alike bash -c "PERFMON report -i $scratch/old.data --sort dso,sym | grep -v '^#'; PERFMON report -i $scratch/new.data --sort dso,sym | grep -v '^#'"
same report-json PERFMON report -i $scratch/new.data --json
same report-folded PERFMON report -i $scratch/new.data --folded
for shape in svg speedscope pprof; do
  $OLD report -i $scratch/new.data --$shape $scratch/old.$shape >/dev/null 2>&1; $NEW report -i $scratch/new.data --$shape $scratch/new.$shape >/dev/null 2>&1
  cmp -s $scratch/old.$shape $scratch/new.$shape && echo "same   report-$shape" || echo "DIFFER report-$shape"
done
same report-diff-folded PERFMON report -i $scratch/new.data --diff $scratch/old.data --folded
same report-diff-refused PERFMON report -i $scratch/new.data --diff $scratch/old.data --json
same report-two-shapes PERFMON report -i $scratch/new.data --json --pprof $scratch/x
same record-summary bash -c "PERFMON record -e syscalls:sys_enter_getppid -c 1 -o $scratch/s.data -- $W getppid 300 2>&1 | sed 's/(.*MB)//'"
same record-127 PERFMON record -o $scratch/z.data -- /nonexistent/x
same script PERFMON script -i $scratch/new.data
