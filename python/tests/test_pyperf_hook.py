# SPDX-License-Identifier: Apache-2.0
"""perfmonpy's pyperf hook, driven as pyperf drives hooks (pyperf/_hooks.py): found by its entry
point in the group pyperf.hook, made once per worker, entered and left around each run, torn down
with the metadata to fill, whose values pyperf requires to be int, float or str without newlines.
pyperf itself is not packaged by Debian, so this harness stands in for it."""

import importlib.metadata
import os

import perfmonpy
from conftest import needs_event

GETPPID = "syscalls:sys_enter_getppid"


def hook_class():
    group = importlib.metadata.entry_points().select(group="pyperf.hook")
    found = {entry.name: entry for entry in group}
    assert "perfmon" in found, f"no pyperf.hook entry point named perfmon: {sorted(found)}"
    return found["perfmon"].load()


def check_like_pyperf(metadata):
    for name, value in metadata.items():
        assert isinstance(name, str)
        assert isinstance(value, (int, float, str)), (name, value)
        if isinstance(value, str):
            assert value.strip() and "\n" not in value, (name, value)


def test_each_run_is_counted_into_the_metadata(monkeypatch):
    needs_event(GETPPID)
    monkeypatch.setenv("PERFMONPY_PYPERF_EVENTS", GETPPID)
    hook = hook_class()()
    for calls in (100, 200, 300):
        with hook:
            for _ in range(calls):
                os.getppid()
    metadata = {}
    hook.teardown(metadata)
    check_like_pyperf(metadata)
    assert metadata["perfmon_events"] == GETPPID
    assert metadata[f"perfmon_{GETPPID}"] == 200
    assert metadata[f"perfmon_{GETPPID}_runs"] == "100 200 300"


def test_by_default_instructions_where_counted_else_task_clock(monkeypatch):
    monkeypatch.delenv("PERFMONPY_PYPERF_EVENTS", raising=False)
    hook = hook_class()()
    with hook:
        sum(range(10000))
    metadata = {}
    hook.teardown(metadata)
    check_like_pyperf(metadata)
    expected = "instructions:u" if perfmonpy.why_not("instructions:u") is None else "task-clock"
    assert metadata["perfmon_events"] == expected
    assert metadata[f"perfmon_{expected}"] > 0


def test_under_the_emulated_cpu_each_run_gets_its_instructions():
    """A benchmark run under perfmon stat --emulate: the hook counts the emulated CPU's instructions
    of each run, the same work the same count to 0.1 % (wall time varies by percents)."""
    import subprocess
    import sys
    from conftest import perfmon
    if not perfmonpy.emulator()["available"]:
        import pytest
        pytest.skip(f"no emulated CPU here: {perfmonpy.emulator()['reason']}")
    script = ("import perfmonpy.pyperf_hook as hooks\n"
              "hook = hooks.perfmon()\n"
              "for n in (1000, 2000, 2000):\n"
              "    with hook:\n"
              "        sum(range(n))\n"
              "metadata = {}\n"
              "hook.teardown(metadata)\n"
              "print(metadata['perfmon_events'], metadata['perfmon_instructions:u_runs'])\n")
    environment = dict(os.environ, PYTHONHASHSEED="0")
    environment.pop("PERFMONPY_PYPERF_EVENTS", None)
    ran = subprocess.run([perfmon(), "stat", "--emulate", "-x,", "-e", "instructions:u", "--", sys.executable, "-c",
                          script], capture_output=True, text=True, env=environment, timeout=300)
    assert ran.returncode == 0, ran.stderr
    events, *runs = ran.stdout.split()
    assert events == "instructions:u"
    small, large, again = (int(run) for run in runs)
    assert abs(large - again) <= large / 1000, runs
    assert large > 1.5 * small, runs
    whole = int(ran.stderr.split(",")[0])  # perfmon stat's count of the whole interpreter, its runs within it
    assert small + large + again < whole
