# SPDX-License-Identifier: Apache-2.0
"""Metrics from Python: counters(metrics=...) and stat(metrics=...) compute perfmon stat -M's
metrics from the reading's own counts; values checked against the formulas of those counts."""

import math
import os

import numpy as np
import pytest

import perfmonpy
from conftest import needs_event, worker

GETPPID = "syscalls:sys_enter_getppid"


def test_a_blocks_metrics_are_the_formulas_of_its_counts():
    memory = [None] * 300
    with perfmonpy.counters("page-faults", metrics="page_faults_per_second,CPUs_utilized", inherit=False) as c:
        for index in range(len(memory)):
            memory[index] = bytearray(4096 * 4)
    # The metrics' events are counted beside those named.
    assert c.counts.names == ["page-faults", "task-clock"]
    expected = c["page-faults"] * 1e9 / c["task-clock"]
    assert c.metrics["page_faults_per_second"] == pytest.approx(expected, rel=1e-12)
    assert c.metrics["PAGE_FAULTS_PER_SECOND"] == c.metrics["page_faults_per_second"]  # names without case
    assert 0 < c.metrics["CPUs_utilized"] <= 1.01  # the task clock over the block's wall time
    row = c.metrics.values[c.metrics.values["metric"] == "page_faults_per_second"][0]
    assert row["unit"] == "/sec" and row["stderr"] == 0 and row["over_threshold"] == -1
    assert "page_faults_per_second" in c.metrics and list(c.metrics) == ["page_faults_per_second", "CPUs_utilized"]


def test_a_metric_without_its_events_is_nan_and_says_why():
    with perfmonpy.counters(metrics="IPC") as c:
        sum(range(1000))
    if c.reasons.get("instructions"):
        assert math.isnan(c.metrics["IPC"])
        assert c.metrics.reasons["IPC"].startswith("instructions was not counted: ")
    else:
        assert c.metrics["IPC"] == pytest.approx(c["instructions"] / c["cycles"], rel=1e-12)


def test_a_tables_metrics_over_a_tracepoint_are_exact(tmp_path):
    needs_event(GETPPID)
    (tmp_path / "anycpu").mkdir()
    (tmp_path / "mapfile.csv").write_text("Family-model,Version,Filename,EventType\n.*,v1,anycpu,core\n")
    (tmp_path / "anycpu" / "metrics.json").write_text(
        '[{"MetricName": "calls_per_thousand", "MetricExpr": "syscalls:sys_enter_getppid / 1000",'
        ' "MetricThreshold": "calls_per_thousand > 1"}]')
    with perfmonpy.counters(metrics="calls_per_thousand", metrics_dir=str(tmp_path)) as c:
        for _ in range(1500):
            os.getppid()
    assert c[GETPPID] == 1500
    assert c.metrics["calls_per_thousand"] == 1.5
    assert c.metrics.values["over_threshold"][0] == 1


def test_a_commands_metrics():
    counted = perfmonpy.stat([worker(), "touch", "500"], metrics="page_faults_per_second")
    assert counted.exit_code == 0
    assert counted["page-faults"] >= 500
    assert counted.metrics["page_faults_per_second"] == pytest.approx(
        counted["page-faults"] * 1e9 / counted["task-clock"], rel=1e-12)
    with pytest.raises(ValueError, match="one run of events"):
        perfmonpy.stat(["/bin/true"], metrics="IPC", repeat=2)


def test_an_unknown_metric_is_refused_with_the_nearest():
    with pytest.raises(perfmonpy.InvalidArgumentError, match="did you mean 'IPC'"):
        perfmonpy.counters(metrics="ipcc")
    with pytest.raises(ValueError, match="give the events to count, or metrics="):
        perfmonpy.counters()
