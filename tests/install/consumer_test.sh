#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the built tree into a scratch prefix and builds a small consumer against it twice:
# with CMake's find_package(perfmon) and with pkg-config. Then runs both.
#
# The prefix first receives libpfm4's headers, as /usr/include/perfmon/ holds them on a machine with
# libpfm4-dev: perfmon's install must leave every one of them as it was (perfmon installs .hpp
# files there, one C header of its own, perfmon.h — a name libpfm4 does not use — and its C
# compatibility headers under perfmon/compat/), and a program must be able to include and use both.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
libpfm_headers=/usr/include/perfmon
mkdir -p "$scratch/prefix/include/perfmon"
cp "$libpfm_headers"/*.h "$scratch/prefix/include/perfmon/"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
for header in "$libpfm_headers"/*.h; do
  cmp -s "$header" "$scratch/prefix/include/perfmon/$(basename "$header")" ||
    { echo "install consumer: installing perfmon changed libpfm4's $(basename "$header")" >&2; exit 1; }
done
stray=$(find "$scratch/prefix/include/perfmon" -maxdepth 1 -name '*.h' | while read -r file; do
  [ -e "$libpfm_headers/$(basename "$file")" ] || [ "$(basename "$file")" = perfmon.h ] || echo "$file"; done)
[ -z "$stray" ] || { echo "install consumer: C headers outside perfmon/compat/: $stray" >&2; exit 1; }

cmake -S "$source_dir/consumer" -B "$scratch/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/cmake-build/consumer"

export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig"
# shellcheck disable=SC2046
g++ -o "$scratch/pkg-consumer" "$source_dir/consumer/main.cpp" $(pkg-config --cflags --libs perfmon)
# pkg-config's flags carry the prefix's library directory as an RPATH: no LD_LIBRARY_PATH, no ldconfig.
"$scratch/pkg-consumer"

# The notices of the data compiled into the library (Intel's and Arm's metric tables) go with it.
[ -f "$scratch/prefix/share/doc/perfmon/NOTICE.metric-tables" ] && grep -q "intel/perfmon" "$scratch/prefix/share/doc/perfmon/NOTICE.metric-tables" &&
  grep -q "University of Tennessee" "$scratch/prefix/share/doc/perfmon/NOTICE.papi-presets" ||
  { echo "install consumer: the metric tables' notices were not installed with the documentation" >&2; exit 1; }
# The installed CLI finds the QEMU plugin installed beside it, under whatever prefix.
if "$scratch/prefix/bin/perfmon" info | grep -q "plugin API"; then
  "$scratch/prefix/bin/perfmon" info | grep -q "$scratch/prefix/lib[a-z0-9_/-]*/perfmon/libperfmon-qemu-plugin.so" ||
    { echo "install consumer: the installed perfmon does not use the plugin installed beside it" >&2; exit 1; }
fi

# The manual pages and bash completion, where man and bash-completion look under the prefix.
MANPATH="$scratch/prefix/share/man" MANWIDTH=120 man -P cat perfmon-stat 2>/dev/null | grep -q -- "-e, --event event" ||
  { echo "install consumer: man perfmon-stat does not show stat's options" >&2; exit 1; }
completion="$scratch/prefix/share/bash-completion/completions/perfmon"
# shellcheck disable=SC2016
completed=$(bash -c 'source "$1"; COMP_LINE="$2 stat --ev"; COMP_POINT=${#COMP_LINE}; _perfmon; echo "${COMPREPLY[*]}"' \
  _ "$completion" "$scratch/prefix/bin/perfmon")
[ "$completed" = "--event" ] ||
  { echo "install consumer: the installed bash completion gave '$completed' for 'perfmon stat --ev'" >&2; exit 1; }

# shellcheck disable=SC2046
g++ -o "$scratch/side-by-side" "$source_dir/consumer/side_by_side.cpp" $(pkg-config --cflags --libs perfmon) -lpfm
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/side-by-side"
# A C11 program through the C ABI, as pkg-config builds it.
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror -o "$scratch/c-consumer" "$source_dir/../../examples/count_in_c.c" $(pkg-config --cflags --libs perfmon-c)
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/c-consumer" page-faults
# The seed's libcpc example, as a Solaris program is ported: its own #include <libcpc.h>, pkg-config libcpc.
# shellcheck disable=SC2046
# (-rpath-link: libcpc.so needs libperfmon.so, which the linker looks for in the system's directories only.)
gcc -o "$scratch/cpc-example" "$source_dir/../compat/cpc_example_counting.c" $(pkg-config --cflags --libs libcpc) \
  -Wl,-rpath-link,"$scratch/prefix/lib"
PERFEVENTS=pic0=syscalls:sys_enter_getppid,sys LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" \
  "$scratch/cpc-example" | grep -q "^ 20: 20000 0$" || { echo "install consumer: libcpc's example miscounted" >&2; exit 1; }
# A FreeBSD program through pkg-config libpmc: the small pmcstat, counting a command exactly.
# shellcheck disable=SC2046
gcc -o "$scratch/pmcstat" "$source_dir/../compat/pmcstat.c" $(pkg-config --cflags --libs libpmc) \
  -Wl,-rpath-link,"$scratch/prefix/lib"
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/pmcstat" -p syscalls:sys_enter_getppid \
  -- "$build_dir/tests/perfmon-test-worker" getppid 300 | grep -q "^p/syscalls:sys_enter_getppid 300$" ||
  { echo "install consumer: libpmc's pmcstat miscounted" >&2; exit 1; }
# An OpenBSD program through pkg-config libpctr: the seed's rdtsc timing, /dev/pctr served by libpctr.
# shellcheck disable=SC2046
gcc -o "$scratch/pctr-example" "$source_dir/../compat/pctr_example.c" $(pkg-config --cflags --libs libpctr) \
  -Wl,-rpath-link,"$scratch/prefix/lib"
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/pctr-example" 0x3c | grep -q "^Functionx took" ||
  { echo "install consumer: libpctr's example did not run" >&2; exit 1; }
# A perfmon2 program through pkg-config libperfmon2: the interface's own test.
# shellcheck disable=SC2046
gcc -o "$scratch/perfmon2-test" "$source_dir/../compat/perfmon2_test.c" $(pkg-config --cflags --libs libperfmon2) \
  -Wl,-rpath-link,"$scratch/prefix/lib"
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/perfmon2-test" 2>/dev/null |
  grep -q "^all checks passed$" || { echo "install consumer: libperfmon2's test failed" >&2; exit 1; }
# A perfmon2 program that includes perfmon2's own <perfmon/perfmon.h>: pkg-config libperfmon2 puts
# perfmon2's header of that name before perfmon's own C header (compiled: it runs on a PMU only).
# shellcheck disable=SC2046
gcc -c -o "$scratch/perfmon2-hardware.o" "$source_dir/../compat/perfmon2_hardware.c" $(pkg-config --cflags libperfmon2)
# A likwid Marker API program through pkg-config libperfmon-likwid (perfmon's likwid-marker.h first on
# the include path): its regions counted exactly, the marker file in likwid's layout.
# shellcheck disable=SC2046
gcc -DLIKWID_PERFMON -o "$scratch/likwid-threads" "$source_dir/../helpers/likwid_threads.c" \
  $(pkg-config --cflags --libs libperfmon-likwid) -pthread -Wl,-rpath-link,"$scratch/prefix/lib"
LIKWID_EVENTS=syscalls:sys_enter_getppid LIKWID_FILEPATH="$scratch/likwid.txt" \
  LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/likwid-threads" 2>/dev/null |
  grep -q "^twice: 1 events, first 3, 1 calls$" && head -1 "$scratch/likwid.txt" | grep -q "^9 4 1$" ||
  { echo "install consumer: libperfmon-likwid's program miscounted" >&2; exit 1; }
# A PAPI high-level program (Debian's papi.h, where libpapi-dev is here) through pkg-config
# libperfmon-papi: papi_hl_output/rank_N.json written with the exact count.
if [ -e /usr/include/papi.h ]; then
  # shellcheck disable=SC2046
  gcc -o "$scratch/papi-hl" "$source_dir/../helpers/papi_hl_threads.c" $(pkg-config --cflags --libs libperfmon-papi) \
    -pthread -Wl,-rpath-link,"$scratch/prefix/lib"
  PAPI_EVENTS=syscalls:sys_enter_getppid PAPI_OUTPUT_DIRECTORY="$scratch" \
    LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/papi-hl" >/dev/null &&
    grep -q '"name":"main","parent_region_id":"-1",.*"syscalls:sys_enter_getppid":"5"' "$scratch"/papi_hl_output/rank_*.json ||
    { echo "install consumer: libperfmon-papi's program miscounted" >&2; exit 1; }
fi
# perfmonpy, where this build made it: importable from where it is installed (by Debian's python3,
# run from elsewhere than the source tree), counting, its pyperf hook registered by its metadata.
site=$(find "$scratch/prefix/lib" -maxdepth 3 -type d -name dist-packages | head -1)
if [ -d "$build_dir/python/perfmonpy" ]; then
  [ -n "$site" ] && [ -e "$site/perfmonpy/__init__.py" ] ||
    { echo "install consumer: perfmonpy was built but not installed under $scratch/prefix/lib" >&2; exit 1; }
  (cd "$scratch" && PYTHONPATH="$site" /usr/bin/python3 -c '
import importlib.metadata, perfmonpy
with perfmonpy.counters("task-clock") as c:
    sum(range(1000))
assert c["task-clock"] > 0, c.values
hooks = {e.name: e.value for e in importlib.metadata.entry_points().select(group="pyperf.hook")}
assert hooks.get("perfmon") == "perfmonpy.pyperf_hook:perfmon", hooks
assert importlib.metadata.version("perfmonpy")
') || { echo "install consumer: the installed perfmonpy does not work" >&2; exit 1; }
fi
echo "install consumer: man pages, bash completion; find_package, pkg-config (C++, C, libcpc, libpmc, libpctr, libperfmon2, libperfmon-likwid, libperfmon-papi) builds all ran, beside libpfm4's headers; perfmonpy imported where installed"
