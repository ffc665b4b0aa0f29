# SPDX-License-Identifier: Apache-2.0
"""pytest --perfmon (perfmonpy.pytest_plugin): each test's perfmon_bench block a benchmark, counted
exactly on the emulated CPU (Python under QEMU) and saved in Bencher's Metric Format; the same counts
in a second session of the same tests in the same directory, so that a gate at 0 % passes it; one
more loop iteration fails that gate. (The results go elsewhere: a file more in the tests' directory
changes what pytest does before the blocks, and CPython's address-keyed caches with it.)"""

import json
import os
import subprocess
import sys

import pytest

import perfmonpy

SAMPLE = """
import os

EXTRA = int(os.environ.get("SAMPLE_EXTRA", "0"))


def work(n):
    total = 0
    for i in range(n):
        total += i
    return total


def test_small(perfmon_bench):
    work(200_000)  # the set-up: not counted
    with perfmon_bench:
        work(1000 + EXTRA)


def test_large(perfmon_bench):
    assert perfmon_bench(work, 3000) == 3000 * 2999 // 2


def test_plain():
    assert work(3) == 3
"""


def _session(directory, *options, extra=0):
    environment = dict(os.environ, SAMPLE_EXTRA=str(extra))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "perfmonpy.pytest_plugin", *options, "test_sample.py"],
                          cwd=directory, env=environment, capture_output=True, text=True, timeout=900)


def test_each_tests_block_is_a_benchmark_counted_exactly(tmp_path):
    emulator = perfmonpy.emulator()
    if not emulator["available"]:
        pytest.skip(emulator["reason"])
    if "PERFMON" not in os.environ:
        pytest.skip("PERFMON (the perfmon command's path) is not set: run these tests as ctest does")
    tests, results = tmp_path / "tests", tmp_path / "results"
    tests.mkdir()
    results.mkdir()
    (tests / "test_sample.py").write_text(SAMPLE)
    base = results / "base.json"
    saved = _session(tests, f"--perfmon={base}")
    assert saved.returncode == 0, saved.stdout + saved.stderr
    assert "3 passed" in saved.stdout, saved.stdout
    bmf = json.loads(base.read_text())
    assert set(bmf) == {"test_sample.py::test_small", "test_sample.py::test_large"}, bmf
    small = bmf["test_sample.py::test_small"]["instructions"]["value"]
    large = bmf["test_sample.py::test_large"]["instructions"]["value"]
    # The block alone: 200,000 iterations of set-up are millions of instructions.
    assert 0 < small < large < 2_000_000, bmf
    # The same session again: the same counts, through a gate that lets nothing grow.
    again = _session(tests, f"--perfmon={results / 'again.json'}", f"--perfmon-compare={base}",
                     "--perfmon-threshold=0%")
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads((results / "again.json").read_text()) == bmf
    # One more iteration of test_small's loop: the gate fails and names it.
    worse = _session(tests, f"--perfmon={results / 'worse.json'}", f"--perfmon-compare={base}",
                     "--perfmon-threshold=0%", extra=1)
    assert worse.returncode == 2, worse.stdout + worse.stderr
    assert "instructions of 'test_sample.py::test_small' +" in worse.stderr, worse.stderr


def test_without_perfmon_the_block_runs_uncounted(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    plain = _session(tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "3 passed" in plain.stdout
