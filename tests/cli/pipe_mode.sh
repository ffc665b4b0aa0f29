#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perf's pipe mode both ways (-o - and -i -): perfmon record -o - | perf report -i -, perf record -o - |
# perfmon report -i -, and perfmon to perfmon, each counting a tracepoint the command hits exactly N
# times (-c 1: a sample each); perfmon's report of perf's stream is perf's own report of it; the
# command's output goes to standard error, not into the stream; a terminal is refused at either
# end; a stream cut short ends in one sentence.
#   pipe_mode.sh PERFMON WORKER
set -euo pipefail
perfmon=$1 worker=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "pipe mode: $*" >&2; exit 1; }
command -v perf >/dev/null || { echo "pipe mode: skipped: perf is not installed (linux-perf)"; exit 77; }
event=syscalls:sys_enter_getppid
samples_of() {  # the number of samples a --stdio report's header gives for the event
  sed -n "s/^# Samples: \([0-9]*\) *of event '$event'.*/\1/p" | head -1
}

# perfmon writes, perf reads.
"$perfmon" record -q -c 1 -e "$event" -o - -- "$worker" getppid 41 2>"$scratch/record.err" >"$scratch/perfmon.pipe"
got=$(perf report -i - --stdio --sort comm < "$scratch/perfmon.pipe" 2>"$scratch/perf.err" | samples_of)
[ "$got" = 41 ] || fail "perf report -i - read $got samples of perfmon record -o -'s 41: $(head -3 "$scratch/perf.err")"
got=$("$perfmon" report -i - --sort comm < "$scratch/perfmon.pipe" | samples_of)
[ "$got" = 41 ] || fail "perfmon report -i - read $got samples of perfmon record -o -'s 41"
# Through a real pipe, as typed.
got=$("$perfmon" record -q -c 1 -e "$event" -o - -- "$worker" getppid 13 | perf report -i - --stdio --sort comm 2>/dev/null | samples_of)
[ "$got" = 13 ] || fail "perfmon record -o - | perf report -i - gave $got samples, not 13"

# perf writes, perfmon reads: the same report as perf's of the same stream.
perf record -q -c 1 -e "$event" -o - -- "$worker" getppid 29 2>/dev/null >"$scratch/perf.pipe"
perf report -i - --stdio --sort comm,dso < "$scratch/perf.pipe" 2>/dev/null | grep -v '^#\|^$' | sed 's/ *$//' >"$scratch/perf.report"
"$perfmon" report -i - --sort comm,dso < "$scratch/perf.pipe" | grep -v '^#\|^$' | sed 's/ *$//' >"$scratch/perfmon.report"
got=$("$perfmon" report -i - --sort comm < "$scratch/perf.pipe" | samples_of)
[ "$got" = 29 ] || fail "perfmon report -i - read $got samples of perf record -o -'s 29"
diff "$scratch/perf.report" "$scratch/perfmon.report" >&2 || fail "perfmon's report of perf's stream differs from perf's (above)"
got=$(perf record -q -c 1 -e "$event" -o - -- "$worker" getppid 17 2>/dev/null | "$perfmon" report -i - --sort comm | samples_of)
[ "$got" = 17 ] || fail "perf record -o - | perfmon report -i - gave $got samples, not 17"

# The command's own output goes to standard error, as perf sends it: the stream stays whole, with
# the samples a file of the same command holds (the shell's own getppid among them).
# shellcheck disable=SC2016
speaker=(sh -c 'echo the-command-speaks; exec "$0" getppid 7' "$worker")
"$perfmon" record -q -c 1 -e "$event" -o "$scratch/spoken.data" -- "${speaker[@]}" >/dev/null 2>&1
in_file=$("$perfmon" report -i "$scratch/spoken.data" --sort comm | samples_of)
"$perfmon" record -q -c 1 -e "$event" -o - -- "${speaker[@]}" 2>"$scratch/command.err" >"$scratch/spoken.pipe"
grep -q the-command-speaks "$scratch/command.err" || fail "the command's output did not reach standard error"
got=$("$perfmon" report -i - --sort comm < "$scratch/spoken.pipe" | samples_of)
[ "$got" = "$in_file" ] && [ "$got" -ge 7 ] || fail "a command that prints gave $got samples in the stream, $in_file in a file"

# A stream cut short: one sentence, a non-zero exit.
head -c 700 "$scratch/perfmon.pipe" >"$scratch/cut.pipe"
if "$perfmon" report -i - < "$scratch/cut.pipe" >/dev/null 2>"$scratch/cut.err"; then fail "a stream cut short was read without a word"; fi
[ "$(wc -l < "$scratch/cut.err")" -eq 1 ] && grep -q "record it again" "$scratch/cut.err" ||
  fail "a stream cut short said: $(cat "$scratch/cut.err")"

# A header record over perf's 64 KiB (a long command line) cannot be in a stream: refused, one
# sentence, nothing written (its 16-bit size would wrap and corrupt the stream).
long_word=$(head -c 70000 /dev/zero | tr '\0' a)
if "$perfmon" record -q -e "$event" -c 1 -o - -- sh -c ": $long_word" >"$scratch/long.pipe" 2>"$scratch/long.err"; then
  fail "a command line over 64 KiB was streamed"
fi
grep -q "record into a file instead" "$scratch/long.err" || fail "a command line over 64 KiB said: $(cat "$scratch/long.err")"
[ ! -s "$scratch/long.pipe" ] || fail "a refused stream wrote $(wc -c <"$scratch/long.pipe") bytes"

# A terminal at either end is refused (script(1) gives the command one).
if command -v script >/dev/null; then
  script -qec "$perfmon record -o - true" /dev/null >"$scratch/tty.out" 2>&1 && fail "perfmon record -o - wrote to a terminal"
  grep -q "standard output, which is a terminal" "$scratch/tty.out" || fail "-o - to a terminal said: $(cat "$scratch/tty.out")"
  script -qec "$perfmon report -i -" /dev/null >"$scratch/tty.out" 2>&1 && fail "perfmon report -i - read a terminal"
  grep -q "standard input, which is a terminal" "$scratch/tty.out" || fail "-i - from a terminal said: $(cat "$scratch/tty.out")"
fi
echo "pipe mode: perfmon -> perf, perf -> perfmon (the same report as perf's), perfmon -> perfmon, exact; the command's output aside; terminals refused"
