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
