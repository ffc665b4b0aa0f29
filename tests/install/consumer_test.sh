#!/usr/bin/env bash
# Installs the built tree into a scratch prefix and builds a small consumer against it twice:
# with CMake's find_package(perfmon) and with pkg-config. Then runs both.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null

cmake -S "$source_dir/consumer" -B "$scratch/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/cmake-build/consumer"

export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig"
# shellcheck disable=SC2046
g++ -o "$scratch/pkg-consumer" "$source_dir/consumer/main.cpp" $(pkg-config --cflags --libs perfmon)
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$scratch/pkg-consumer"
echo "install consumer: find_package and pkg-config builds both ran"
