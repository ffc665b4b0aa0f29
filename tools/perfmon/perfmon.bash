# SPDX-License-Identifier: Apache-2.0
# bash completion for perfmon: its commands, each command's options and event names, all asked of
# the perfmon being completed (perf's --list-cmds, --list-opts and list --raw-dump), so that they
# cannot drift from the binary. Installed as share/bash-completion/completions/perfmon; works
# sourced on its own too (it needs nothing of the bash-completion package).
_perfmon() {
  # The words as typed, up to the cursor, split at blanks only: bash's COMP_WORDS splits at ':'
  # and '=' too, which tracepoints (syscalls:sys_enter_read) and --event=... contain.
  local line=${COMP_LINE:0:COMP_POINT}
  local -a words
  read -ra words <<<"$line"
  [[ $line == *[[:blank:]] ]] && words+=("")
  local cword=$((${#words[@]} - 1))
  local cur=${words[cword]} prev=${words[cword - 1]} perfmon=${words[0]} command=${words[1]}
  COMPREPLY=()
  if [ "$cword" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$perfmon" --list-cmds 2>/dev/null) help" -- "$cur")
    return
  fi
  if [ "$command" = help ]; then
    [ "$cword" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W "$("$perfmon" --list-cmds 2>/dev/null)" -- "$cur")
    return
  fi
  local value=$cur option=$prev
  if [[ $cur == --*=* ]]; then
    option=${cur%%=*}
    value=${cur#*=}
  fi
  case $option in
    -e | --event)
      # An event list: its last comma-separated name is completed, those before it kept.
      local head=${cur%"$value"} last=$value
      if [[ $value == *,* ]]; then
        head+=${value%,*},
        last=${value##*,}
      fi
      mapfile -t COMPREPLY < <(compgen -P "$head" -W "$("$perfmon" list --raw-dump 2>/dev/null)" -- "$last")
      ;;
    -i | --input | -o | --output)
      mapfile -t COMPREPLY < <(compgen -P "${cur%"$value"}" -f -- "$value")
      ;;
    *)
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$("$perfmon" "$command" --list-opts 2>/dev/null)" -- "$cur")
      else  # the command to run (stat, record) or a file: bash's own choices
        mapfile -t COMPREPLY < <(compgen -c -f -- "$cur")
      fi
      return
      ;;
  esac
  # bash replaces only what follows the word's last ':' or '=' (COMP_WORDBREAKS): what comes
  # back starts there.
  local typed=${cur%"${cur##*[:=]}"}
  [ -n "$typed" ] && COMPREPLY=("${COMPREPLY[@]#"$typed"}")
}
complete -F _perfmon perfmon
