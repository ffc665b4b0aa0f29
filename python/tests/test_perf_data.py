# SPDX-License-Identifier: Apache-2.0
"""perf.data files, perfmon's and perf's, read into numpy arrays: every sample, its call chain and
its names, the same as perf and perfmon report say."""

import errno
import re
import subprocess

import numpy as np
import pytest

import perfmonpy
from conftest import needs_event, needs_program, perfmon, ticks_while, worker

GETPPID = "syscalls:sys_enter_getppid"


def recorded_by_perfmon(tmp_path, calls=500):
    needs_event(GETPPID)
    path = tmp_path / "perfmon.data"
    subprocess.run([perfmon(), "record", "-q", "-m", "1024", "-e", GETPPID, "-c", "1", "-g", "-o", str(path), "--",
                    worker(), "tree-getppid", str(calls)], check=True)
    return path


def test_perfs_file_holds_as_many_samples_as_perf_report_stats_says(tmp_path):
    needs_event(GETPPID)
    perf = needs_program("perf", "linux-perf")
    path = tmp_path / "perf.data"
    subprocess.run([perf, "record", "-q", "-m", "1024", "-e", GETPPID, "-c", "1", "-g", "-o", str(path), "--", worker(),
                    "tree-getppid", "1000"], check=True, capture_output=True)
    stats = subprocess.run([perf, "report", "--stats", "-i", str(path)], capture_output=True, text=True).stdout
    said = int(re.search(r"SAMPLE events:\s+(\d+)", stats).group(1))
    data = perfmonpy.read_perf_data(path)
    assert len(data) == said
    assert len(data) + data.lost == 4000  # tree-getppid: 4 calls an iteration; perf's LOST records say the rest
    assert data.events == [GETPPID]
    assert set(data.comms[i] for i in np.unique(data.samples["comm"])) == {"perfmon-test-wo"}


def test_every_sample_with_its_call_chain_and_names(tmp_path):
    data = perfmonpy.read_perf_data(recorded_by_perfmon(tmp_path))
    assert len(data) == 2000 and data.lost == 0
    samples = data.samples
    assert samples.dtype.names == ("time", "pid", "tid", "cpu", "event", "mapping", "ip", "period", "symbol", "dso",
                                   "comm", "chain_length", "chain_begin")
    # Each sample's mapping holds its address, in the sample's file, of its process.
    mapping = data.mappings[samples["mapping"]]
    assert (samples["mapping"] >= 0).all()
    assert ((mapping["start"] <= samples["ip"]) & (samples["ip"] < mapping["end"])).all()
    assert (mapping["dso"] == samples["dso"]).all() and (mapping["pid"] == samples["pid"]).all()
    assert (np.diff(samples["time"].astype(np.int64)) >= 0).all(), "in the order they happened"
    assert (samples["period"] == 1).all()
    assert (samples["chain_begin"][1:] == samples["chain_begin"][:-1] + samples["chain_length"][:-1]).all()
    assert len(data.frame_ips) == samples["chain_length"].sum()
    # Each call chain passes through the worker's branches: 3 of 4 samples through branch_a.
    through = {"perfmon_branch_a": 0, "perfmon_branch_b": 0}
    for index in range(len(data)):
        ips, symbols = data.callchain(index)
        names = {data.symbol_name(symbol) for symbol in symbols}
        assert "main" in names
        for branch in through:
            through[branch] += branch in names
    assert through == {"perfmon_branch_a": 1500, "perfmon_branch_b": 500}
    assert np.array_equal(data.frame_ips[samples["chain_begin"]], samples["ip"]), "the leaf is the sample's ip"


def report_table(path):
    table = subprocess.run([perfmon(), "report", "-i", str(path), "--sort", "comm,dso,sym"], capture_output=True,
                           text=True, check=True).stdout
    shown = []
    for line in table.splitlines():
        match = re.match(r"\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[.\]\s+(.+?)\s*$", line)
        if match:
            shown.append((float(match.group(1)), match.group(2), match.group(3), match.group(4)))
    assert shown, table
    return shown


def test_rows_are_perfmon_reports_table(tmp_path):
    path = recorded_by_perfmon(tmp_path)
    rows = perfmonpy.read_perf_data(path).rows()
    assert [(round(row["overhead"], 2), row["comm"], row["dso"], row["symbol"]) for row in rows] == report_table(path)


def test_rows_of_a_varied_profile_are_perfmon_reports_table_row_for_row(tmp_path):
    """task-clock samples of the worker's call tree, the loader and the kernel: many rows, ties
    among them ordered as perf orders them."""
    path = tmp_path / "clock.data"
    subprocess.run([perfmon(), "record", "-q", "-m", "1024", "-e", "task-clock", "-c", "50000", "-o", str(path), "--",
                    worker(), "tree", "20000000"], check=True)
    data = perfmonpy.read_perf_data(path)
    rows = data.rows()
    named = [(round(row["overhead"], 2), row["comm"], row["dso"], row["symbol"]) for row in rows]
    # perfmon report names an address no symbol covers by the address: those rows are left out.
    shown = [row for row in report_table(path) if not row[3].startswith("0x")]
    assert [row for row in named if row[3] != "[unknown]"] == shown
    assert sum(row["samples"] for row in rows) == len(data)
    # Read by two threads, a share each, the same arrays and tables, id for id.
    shared = perfmonpy.read_perf_data(path, threads=2)
    for name in ("samples", "frame_ips", "frame_symbols", "symbols", "mappings"):
        assert np.array_equal(getattr(shared, name), getattr(data, name)), name
    assert (shared.dsos, shared.comms, shared.lost) == (data.dsos, data.comms, data.lost)


def test_other_python_threads_run_while_a_file_is_read(tmp_path):
    """The GIL is let go while a file is read: another Python thread runs meanwhile."""
    path = recorded_by_perfmon(tmp_path, calls=25000)  # 100,000 samples
    data, ticks = ticks_while(lambda: perfmonpy.read_perf_data(path))
    assert len(data) == 100000
    assert ticks >= 2


def test_a_file_that_is_not_perf_data(tmp_path):
    path = tmp_path / "not.data"
    path.write_bytes(b"PERFILE2" + b"\0" * 20)
    with pytest.raises(perfmonpy.PerfmonError) as raised:
        perfmonpy.read_perf_data(path)
    assert str(path) in str(raised.value)
    with pytest.raises(perfmonpy.PerfmonOSError, match="No such file") as missing:
        perfmonpy.read_perf_data(tmp_path / "missing.data")
    assert isinstance(missing.value, OSError) and missing.value.errno == errno.ENOENT
    assert "-i FILE" not in str(missing.value)  # the CLI's flag, not Python's
    with pytest.raises(ValueError, match="threads is from 1 to 64"):
        perfmonpy.read_perf_data(path, threads=100000)


def test_truncated_files_raise_and_never_crash(tmp_path):
    whole = recorded_by_perfmon(tmp_path, calls=50).read_bytes()
    for size in range(0, len(whole), max(1, len(whole) // 97)):
        cut = tmp_path / "cut.data"
        cut.write_bytes(whole[:size])
        try:
            perfmonpy.read_perf_data(cut)
        except perfmonpy.PerfmonOSError as error:  # an OSError, as docs/python.md says
            assert str(error)


def test_rows_are_the_same_when_the_keys_do_not_fit_one_integer(tmp_path, monkeypatch):
    data = perfmonpy.read_perf_data(recorded_by_perfmon(tmp_path, calls=50))
    fitting = data.rows(sort=("pid", "comm", "dso", "sym"))
    import perfmonpy._profiles as profiles
    monkeypatch.setattr(profiles.math, "prod", lambda values: 2**64)
    assert data.rows(sort=("pid", "comm", "dso", "sym")) == fitting
