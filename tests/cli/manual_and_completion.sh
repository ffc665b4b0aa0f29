#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfmon's manual pages and bash completion, as a person meets them: every command has a page that
# groff sets without a warning and that lists every option the command takes (both come from the
# one option table, so a page cannot drift from --help); completion offers commands, options, event
# names (tracepoints too, whose ':' bash splits words at) and files, also pressed Tab in a real
# interactive bash in tmux.
#   manual_and_completion.sh PERFMON MAN_DIR COMPLETION_SCRIPT
set -euo pipefail
perfmon=$1 man_dir=$2 completion=$3
fail() { echo "manual_and_completion: $*" >&2; exit 1; }

commands=$("$perfmon" --list-cmds)
[ -n "$commands" ] || fail "perfmon --list-cmds listed nothing"
zcat "$man_dir/perfmon.1.gz" | groff -man -ww -z 2>&1 | grep . && fail "groff warns on perfmon.1"
for command in $commands; do
  page=$man_dir/perfmon-$command.1.gz
  [ -s "$page" ] || fail "no manual page for perfmon $command"
  zcat "$man_dir/perfmon.1.gz" | grep -q "^\.BR perfmon\\\\-$command (1)" || fail "perfmon.1 does not list perfmon-$command(1)"
  warnings=$(zcat "$page" | groff -man -ww -z 2>&1) && [ -z "$warnings" ] || fail "groff warns on $page: $warnings"
  shown=$(MANWIDTH=200 man -l -P cat "$page" 2>/dev/null)
  for option in $("$perfmon" "$command" --list-opts); do
    grep -q -- "$option\b" <<<"$shown" || fail "man perfmon-$command does not show $option, which the command takes"
  done
done

# Completion, its function called as bash calls it.
# shellcheck source=/dev/null
source "$completion"
complete_line() {
  COMP_LINE=$1 COMP_POINT=${#1}
  _perfmon
  echo "${COMPREPLY[*]}"
}
expect() {
  local got
  got=$(complete_line "$perfmon $1")
  [[ " $got " == *" $2 "* ]] || fail "completing 'perfmon $1' gave '$got', not '$2' among them"
}
expect "st" stat
expect "help rec" record
expect "stat --ev" --event
expect "report --no-ch" --no-children
expect "stat -e task-" task-clock
expect "stat --event=task-" task-clock
expect "stat -e task-clock,page-f" task-clock,page-faults
expect "record -e syscalls:sys_enter_getpp" sys_enter_getppid  # bash replaces what follows the ':'
expect "report -i $man_dir/perfmon-st" "$man_dir/perfmon-stat.1.gz"

# A real Tab in an interactive bash: readline's own word splitting and insertion.
command -v tmux >/dev/null || { echo "manual_and_completion: skipped the interactive check: tmux is not installed"; exit 0; }
session=perfmon-completion-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
bin_dir=$(cd "$(dirname "$perfmon")" && pwd)
tmux new-session -d -s "$session" -x 200 -y 10 "env -i HOME=\$HOME TERM=xterm PATH=$bin_dir:/usr/bin:/bin bash --norc --noprofile"
tmux send-keys -t "$session" "PS1='$ '; source '$completion'; clear" Enter
# Typed only once the prompt is back: keys typed ahead are echoed before it (a slow build's shell).
for _ in $(seq 100); do
  [ "$(tmux capture-pane -t "$session" -p | grep -v '^$' | tail -1)" = "\$" ] && break
  sleep 0.1
done
typed="perfmon stat -e syscalls:sys_enter_getpp"
tmux send-keys -t "$session" "$typed" Tab
screen=""
for _ in $(seq 50); do
  screen=$(tmux capture-pane -t "$session" -p)
  [[ $screen == *"syscalls:sys_enter_getppid"* ]] && break
  sleep 0.1
done
# (tmux drops the blank that bash adds after a completed word)
[ "$(grep -v '^$' <<<"$screen" | tail -1)" = "\$ perfmon stat -e syscalls:sys_enter_getppid" ] ||
  fail "Tab after '$typed' in bash left: $(grep -v '^$' <<<"$screen" | tail -1)"
echo "manual_and_completion: $(wc -w <<<"$commands") commands' pages set cleanly with every option; completion right, also by Tab in bash"
