#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-command costs, measured alternately in one run (bench/command_compare.cpp):
#   perfmon stat -- true   against   perf stat -- true   (Debian's linux-perf)
#   perfmon --version      against   /bin/true           (the tool's start-up)
#   bench/stat_vs_perf.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build}
runs=${2:-60}
perfmon="$build/tools/perfmon/perfmon"
compare="$build/bench/command_compare"
[ -x "$perfmon" ] && [ -x "$compare" ] || { echo "build first: cmake --build $build" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
# A copy of the binary, as installed: the linker's own output sits in the page cache in small
# pieces until evicted, and starts 5 % slower (11 % more memory) than any copy of it (docs/benchmarks.md).
installed=$(mktemp -d)
trap 'rm -rf "$installed"' EXIT
cp "$perfmon" "$installed/perfmon"
"$compare" "$runs" "$installed/perfmon" stat -- true ::: perf stat -- true
"$compare" "$runs" "$installed/perfmon" --version ::: /bin/true
