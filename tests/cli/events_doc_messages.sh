#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/events.md's "Errors" block, line by line, is what perfmon says: each line's event given to
# perfmon stat -e must be refused with exactly that line first (exit 129). A line about a PMU this
# machine lacks (its message then names the PMUs there are) is checked where that PMU exists.
#   events_doc_messages.sh PERFMON EVENTS_MD
set -euo pipefail
perfmon=$1 doc=$2
block=$(awk '/^### Errors/{e=1} e&&/^```$/{n++; next} e&&n==1{print} n==2{exit}' "$doc")
[ -n "$block" ] || { echo "events doc: no Errors block in $doc" >&2; exit 1; }
checked=0
while IFS= read -r line; do
  event=$(sed -n "s/^invalid event '\([^']*\)'.*/\1/p" <<<"$line")
  [ -n "$event" ] || { echo "events doc: a line that names no event: $line" >&2; exit 1; }
  if [[ $event == */* && $event != mem:* ]]; then
    pmu=${event%%/*}
    if [ ! -d "/sys/bus/event_source/devices/$pmu" ]; then
      echo "events doc: not checked here (no PMU '$pmu' on this machine): $line"
      continue
    fi
  fi
  status=0
  said=$("$perfmon" stat -e "$event" true 2>&1 >/dev/null) || status=$?
  [ "$status" -eq 129 ] || { echo "events doc: '$event' exited $status, not 129" >&2; exit 1; }
  said=${said%%$'\n'*}  # its first line: the next says where to look ('perfmon list')
  [ "$said" = "perfmon stat: $line" ] || { printf 'events doc: for %s\n  the doc: %s\n  perfmon: %s\n' "$event" "$line" "$said" >&2; exit 1; }
  checked=$((checked + 1))
done <<<"$block"
echo "events doc: $checked messages as documented"
