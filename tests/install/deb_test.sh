#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package as a user meets it: scripts/make-deb builds it (lintian: no error), then apt
# installs it into a fresh Debian root (mmdebstrap, from this machine's own apt sources, its
# dependencies resolved by apt), and there, as after `apt install ./perfmon_*.deb`: perfmon stat
# counts a command exactly (a tracepoint), man perfmon-stat shows stat's options, bash completion
# completes, and python3 imports perfmonpy and counts.
#   deb_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
if [ "$(id -u)" -ne 0 ]; then
  echo "deb package: skipped: installing into a fresh Debian root (mmdebstrap --mode=root) needs root; run the suite as root"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "deb package: $*" >&2; exit 1; }

"$source_dir/scripts/make-deb" >"$scratch/make-deb.log" 2>&1 || { tail -30 "$scratch/make-deb.log" >&2; fail "scripts/make-deb failed"; }
package=$(ls "$source_dir"/build-deb/perfmon_*.deb)
cp "$package" "$scratch/"

cat >"$scratch/inside.sh" <<'INSIDE'
set -euo pipefail
fail() { echo "deb package, inside the fresh root: $*" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || { mount -t tracefs nodev /sys/kernel/tracing && trap 'umount /sys/kernel/tracing' EXIT; }
perfmon stat -x, -e task-clock -- true 2>&1 >/dev/null | grep -q ",task-clock," ||
  fail "perfmon stat did not count task-clock: $(perfmon stat -x, -e task-clock -- true 2>&1)"
perfmon stat -x, -e syscalls:sys_enter_getppid -- /usr/bin/python3 -c 'import os
for _ in range(7): os.getppid()' 2>&1 >/dev/null | grep -q "^7,,syscalls:sys_enter_getppid," ||
  fail "perfmon stat did not count 7 getppid calls: $(perfmon stat -x, -e syscalls:sys_enter_getppid -- true 2>&1)"
MANWIDTH=120 man -P cat perfmon-stat 2>/dev/null | grep -q -- "-e, --event event" || fail "man perfmon-stat does not show stat's options"
completed=$(bash -c 'source /usr/share/bash-completion/completions/perfmon; COMP_LINE="perfmon stat --ev"; COMP_POINT=${#COMP_LINE}; _perfmon; echo "${COMPREPLY[*]}"')
[ "$completed" = "--event" ] || fail "bash completion gave '$completed' for 'perfmon stat --ev'"
cd / && python3 -c '
import os, perfmonpy
with perfmonpy.counters("syscalls:sys_enter_getppid") as c:
    for _ in range(9):
        os.getppid()
assert c["syscalls:sys_enter_getppid"] == 9, c.values
' || fail "python3 -c 'import perfmonpy' did not count"
echo "deb package: installed in a fresh root: perfmon stat, man perfmon-stat, bash completion and perfmonpy work"
INSIDE

# shellcheck disable=SC1091
. /etc/os-release
# shellcheck disable=SC2016
# apt installs the package and what it depends on, as `apt install ./perfmon_*.deb` would.
mmdebstrap --variant=apt --include="man-db,bash-completion,mount" \
  --customize-hook="copy-in $scratch/$(basename "$package") $scratch/inside.sh /tmp" \
  --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/'"$(basename "$package")"'"' \
  --customize-hook='chroot "$1" bash /tmp/inside.sh' \
  "$VERSION_CODENAME" "$scratch/root" /etc/apt/sources.list.d/debian.sources >"$scratch/mmdebstrap.log" 2>&1 ||
  { grep -v "^I: \|^Get:\|^Selecting\|^Preparing\|^Unpacking\|^Setting up\|^Processing" "$scratch/mmdebstrap.log" | tail -30 >&2
    fail "installing $(basename "$package") into a fresh $VERSION_CODENAME root failed"; }
grep "^deb package: installed" "$scratch/mmdebstrap.log"
