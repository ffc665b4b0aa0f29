#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Walks perf's own option lists (perf stat|record|report|script|annotate|diff|top -h) and gives
# each option to the same perfmon command: it must be taken, or refused as perf's with a sentence
# ("'--stats' is perf report's option, which perfmon report does not take: ..."), never a bare
# "unknown option". --help comes first, so that nothing runs: an option taken leaves the help.
# Then the refusals docs/cli.md shows are what perfmon says, as written.
#   perf_options_walk.sh PERFMON CLI_MD
set -euo pipefail
perfmon=$1 doc=$2
command -v perf >/dev/null || { echo "perf options walk: skipped: perf is not installed (linux-perf)"; exit 77; }
walked=0 taken=0 refused=0
for command in stat record report script annotate diff top; do
  while IFS= read -r line; do
    # Both spellings where perf has both: -s and --sort.
    short=$(sed -En 's/^\s+(-[A-Za-z0-9])(,|\s|$).*/\1/p' <<<"$line")
    long=$(sed -En 's/^\s+(-[A-Za-z0-9], )?(--[A-Za-z0-9][A-Za-z0-9_-]*).*/\2/p' <<<"$line")
    value=()
    [[ $line =~ \<[^\>]*\> ]] && value=(1)
    for option in $short $long; do
      said=$("$perfmon" "$command" --help "$option" "${value[@]}" 2>&1 >/dev/null) && status=0 || status=$?
      walked=$((walked + 1))
      if grep -q "unknown option\|unknown switch" <<<"$said"; then
        echo "perf options walk: perfmon $command $option: a bare refusal: $said" >&2
        exit 1
      fi
      if grep -q "is perf $command's option" <<<"$said"; then refused=$((refused + 1)); else taken=$((taken + 1)); fi
      [ "$status" -eq 0 ] || [ "$status" -eq 129 ] ||
        { echo "perf options walk: perfmon $command $option exited $status: $said" >&2; exit 1; }
    done
  done < <(perf "$command" -h 2>&1 | grep -E '^\s+-')
done
shown=0
while IFS= read -r line; do
  command=$(sed -E "s/^perfmon ([a-z]+): .*/\1/" <<<"$line")
  option=$(sed -E "s/^perfmon [a-z]+: '([^']+)' is perf .*/\1/" <<<"$line")
  said=$("$perfmon" "$command" "$option" 2>&1 >/dev/null) || true
  [ "${said%%$'\n'*}" = "$line" ] ||
    { printf 'perf options walk: docs/cli.md shows\n  %s\nperfmon says\n  %s\n' "$line" "${said%%$'\n'*}" >&2; exit 1; }
  shown=$((shown + 1))
done < <(grep -E "^perfmon [a-z]+: '[^']+' is perf [a-z]+'s option" "$doc")
[ "$shown" -gt 0 ] || { echo "perf options walk: docs/cli.md shows no refusal of a perf option" >&2; exit 1; }
[ "$walked" -gt 500 ] || { echo "perf options walk: only $walked spellings of perf's options found in its help" >&2; exit 1; }
echo "perf options walk: $walked spellings of perf's options: $taken taken, $refused refused as perf's with a sentence; docs/cli.md's $shown as written"
