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
"$compare" "$runs" "$perfmon" stat -- true ::: perf stat -- true
"$compare" "$runs" "$perfmon" --version ::: /bin/true
