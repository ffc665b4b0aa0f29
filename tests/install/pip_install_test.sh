#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfmonpy as a Python user installs it: `pip install ./python` into a fresh venv (offline, with
# Debian's setuptools, wheel, pybind11 and numpy: --no-build-isolation --no-index), imported from
# elsewhere and counting; then `python3 -m build --wheel` makes a wheel, which installs into a
# second venv and counts there too. Works on a copy of the tracked sources, so that the source tree
# gets no build directory of pip's.
#   pip_install_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "pip install: $*" >&2; exit 1; }

mkdir "$scratch/src"
(cd "$source_dir" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null) |
  tar -xf - -C "$scratch/src"

counts_in() {  # a venv's python: perfmonpy imported from that venv, counting task-clock
  (cd "$scratch" && "$1/bin/python" -c '
import sys, perfmonpy
assert perfmonpy.__file__.startswith(sys.prefix), perfmonpy.__file__
with perfmonpy.counters("task-clock") as c:
    sum(range(100000))
assert c["task-clock"] > 0, c.values
print("perfmonpy from", perfmonpy.__file__, "counted task-clock", c["task-clock"])
') || fail "perfmonpy installed in $1 does not import or count"
}

/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install -q --no-build-isolation --no-index "$scratch/src/python" >"$scratch/pip.log" 2>&1 ||
  { tail -20 "$scratch/pip.log" >&2; fail "pip install ./python failed"; }
counts_in "$scratch/venv"

(cd "$scratch/src" && /usr/bin/python3 -m build --wheel --no-isolation python -o "$scratch/dist") >"$scratch/build.log" 2>&1 ||
  { tail -20 "$scratch/build.log" >&2; fail "python3 -m build --wheel failed"; }
wheel=$(ls "$scratch"/dist/perfmonpy-*.whl)
/usr/bin/python3 -m venv --system-site-packages "$scratch/wheel-venv"
"$scratch/wheel-venv/bin/pip" install -q --no-index "$wheel" || fail "the wheel $(basename "$wheel") does not install"
counts_in "$scratch/wheel-venv"
echo "pip install: ./python into a venv and $(basename "$wheel") into another, each imported and counting"
