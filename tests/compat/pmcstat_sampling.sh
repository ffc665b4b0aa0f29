#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# libpmc's process-sampling mode (PMC_MODE_TS) through the small pmcstat: getppid sampled every 100
# calls of 1000 gives exactly ten samples in the log, a perf.data file that perfmon report and (where
# it is installed) perf script read.
#   pmcstat_sampling.sh PMCSTAT PERFMON WORKER
set -euo pipefail
pmcstat=$1 perfmon=$2 worker=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$pmcstat" -P syscalls:sys_enter_getppid -n 100 -O "$scratch/pmc.data" -- "$worker" getppid 1000
"$perfmon" report -i "$scratch/pmc.data" > "$scratch/report.txt"
grep -q "^# Samples: 10  of event 'syscalls:sys_enter_getppid'" "$scratch/report.txt" ||
  { cat "$scratch/report.txt"; echo "pmcstat sampling: perfmon report does not see 10 samples" >&2; exit 1; }
grep -q "perfmon-test-wo.*\[\.\] syscall" "$scratch/report.txt" ||
  { cat "$scratch/report.txt"; echo "pmcstat sampling: the samples are not placed in libc's syscall" >&2; exit 1; }
if command -v perf >/dev/null; then
  samples=$(perf script -i "$scratch/pmc.data" 2>/dev/null | grep -c "syscalls:sys_enter_getppid")
  [ "$samples" -eq 10 ] || { echo "pmcstat sampling: perf script reads $samples samples, not 10" >&2; exit 1; }
fi
echo "pmcstat sampling: 10 samples, read by perfmon report$(command -v perf >/dev/null && echo " and perf script")"
