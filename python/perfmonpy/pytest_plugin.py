# SPDX-License-Identifier: Apache-2.0
"""perfmon's pytest plugin: a block of a test counted exactly, each test a benchmark (docs/bench.md).

    def test_parse(perfmon_bench):
        text = make_input()          # the set-up: not counted
        with perfmon_bench:          # or perfmon_bench(parse, text)
            parse(text)

    pytest --perfmon=bench.json                             # save
    pytest --perfmon=now.json --perfmon-compare=bench.json  # and compare: exit status 2 on a regression

--perfmon runs the whole test session again under perfmon bench --markers, on perfmon's emulated
CPU (Python under QEMU: the counts are exact and the same every run) or with --perfmon-native on
this CPU's PMU; each test's blocks are a region named by the test's id, their counts summed, and the
results are saved in Bencher's Metric Format. Without --perfmon the fixture runs the block and
counts nothing, so the tests run as tests too. A project turns the plugin on where it wants it
(`-p perfmonpy.pytest_plugin`, or `pytest_plugins = ["perfmonpy.pytest_plugin"]` in a conftest.py):
it is no pytest11 entry point, which would import perfmonpy into every pytest session.
"""

import gc
import os
import shutil
import subprocess
import sys

import pytest

_OPTIONS = ("--perfmon", "--perfmon-compare", "--perfmon-threshold", "--perfmon-native")
# What a block's counts may grow by before the gate fails: more than perfmon bench's 0.1 %, as a
# change elsewhere in the session moves what CPython runs in the block (docs/bench.md), and its
# misses most, as where objects lie decides them.
_DEFAULT_THRESHOLD = "1%,branch-misses=10%,L1-dcache-load-misses=10%,LLC-load-misses=10%"


def pytest_addoption(parser):
    group = parser.getgroup("perfmon", "perfmon: exact counts of perfmon_bench blocks (docs/bench.md)")
    group.addoption("--perfmon", metavar="FILE", help="count each test's perfmon_bench blocks under perfmon bench "
                    "(the emulated CPU) and save the results to FILE (Bencher's Metric Format)")
    group.addoption("--perfmon-compare", metavar="BASE", help="compare with results saved before: exit status 2 "
                    "where a measure grew past its threshold (perfmon bench --compare)")
    group.addoption("--perfmon-threshold", metavar="PCT", default=_DEFAULT_THRESHOLD, help="how much a measure "
                    "may grow (perfmon bench --threshold; default 1%%, the models' misses 10%%: CPython's caches "
                    "keyed by address move a block's counts when the session before it changes, docs/bench.md)")
    group.addoption("--perfmon-native", action="store_true", help="count on this CPU's PMU (perfmon bench --native) "
                    "instead of the emulated CPU")


def _without_our_options(args):
    """The session's arguments less --perfmon's own, for the session perfmon bench runs."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in _OPTIONS:
            skip = arg != "--perfmon-native"
        elif not arg.startswith(tuple(option + "=" for option in _OPTIONS)):
            kept.append(arg)
    return kept


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """With --perfmon, outside perfmon: the session run again under perfmon bench, its status ours."""
    saved = config.getoption("perfmon")
    if not saved or "PERFMON_MARKERS_JSON" in os.environ:
        return None
    perfmon = os.environ.get("PERFMON") or shutil.which("perfmon")
    if perfmon is None:
        raise pytest.UsageError("--perfmon runs the tests under perfmon bench, and perfmon is not on PATH: install "
                                "perfmon, or set PERFMON to its path.")
    command = [perfmon, "bench", "--markers", "--keep-env", "--save", saved]
    if config.getoption("perfmon_compare"):
        command += ["--compare", config.getoption("perfmon_compare"), "--threshold",
                    config.getoption("perfmon_threshold")]
    if config.getoption("perfmon_native"):
        command.append("--native")
    # The session's own arguments: they load this plugin again as they loaded it here (-p, or a
    # conftest.py).
    args = _without_our_options([str(arg) for arg in config.invocation_params.args])
    # The same hashes every run: Python's string hashing is seeded at random otherwise, and with it
    # what a dict or set costs.
    environment = dict(os.environ, PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    return subprocess.call(command + ["--", sys.executable, "-m", "pytest", *args],
                           cwd=str(config.invocation_params.dir), env=environment)


class _Regions:
    """Each test's blocks as perfmon's program regions (perfmon/program_regions.hpp), named by the
    test's id: counted by the library where perfmon bench --markers runs the session (the calling
    thread's counters; on the emulated CPU, read from perfmon's QEMU plugin), and written by it to
    PERFMON_MARKERS_JSON as the process exits."""

    def __init__(self, native):
        self._native = native
        self._started = False
        self._collecting = False

    def start(self, tag):
        if self._started:
            raise RuntimeError("perfmon_bench blocks do not nest: end one before the next.")
        # No collection of the garbage in the block, and none owed to it from before: what a
        # collection costs is the state of the whole session, not the block's work.
        gc.collect()
        self._collecting = gc.isenabled()
        gc.disable()
        self._started = True
        self._native.program_region_start(tag)

    def stop(self, tag):
        self._native.program_region_stop(tag)
        self._started = False
        if self._collecting:
            gc.enable()


_regions = None


def pytest_configure(config):
    """Under perfmon bench --markers (or perfmon stat --markers): count the blocks of its events."""
    global _regions
    events = os.environ.get("PERFMON_MARKERS_EVENTS")
    if events and os.environ.get("PERFMON_MARKERS_JSON"):
        if "|" in events:
            raise pytest.UsageError("perfmon_bench counts one group of events: give perfmon one event list "
                                    f"(not {events}).")
        from . import _perfmonpy
        if _perfmonpy.program_regions_counted():
            _regions = _Regions(_perfmonpy)


def pytest_unconfigure(config):
    global _regions
    _regions = None


class PerfmonBench:
    """The perfmon_bench fixture: `with perfmon_bench:` or `perfmon_bench(function, *args, **kwargs)`
    counts the block or the call as a region named by the test's id, under perfmon; elsewhere it
    only runs it."""

    def __init__(self, tag):
        self.tag = tag

    def __call__(self, function, *args, **kwargs):
        with self:
            return function(*args, **kwargs)

    def __enter__(self):
        if _regions is not None:
            _regions.start(self.tag)
        return self

    def __exit__(self, kind, value, trace):
        if _regions is not None:
            _regions.stop(self.tag)
        return False


@pytest.fixture
def perfmon_bench(request):
    """Counts a block of the test exactly under pytest --perfmon (docs/bench.md)."""
    return PerfmonBench(request.node.nodeid)
