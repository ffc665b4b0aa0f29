# SPDX-License-Identifier: Apache-2.0
"""Sampling from Python into perf.data files that perf reads: a block, a command."""

import os
import re
import stat
import subprocess
import threading
import time

import numpy as np
import pytest

import perfmonpy
from conftest import needs_event, needs_program, worker

GETPPID = "syscalls:sys_enter_getppid"


def test_a_block_sampled_at_every_call_and_read_back(tmp_path):
    needs_event(GETPPID)
    output = tmp_path / "block.data"
    with perfmonpy.record(GETPPID, output, period=1, callchains=True, buffer_pages=1024) as recording:
        for _ in range(3000):
            os.getppid()
    assert recording.samples == 3000 and recording.lost == 0
    data = recording.data
    assert len(data) == 3000
    assert set(data.samples["tid"]) == {threading.get_native_id()}
    assert data.rows()[0]["symbol"].endswith("getppid")
    perf = needs_program("perf", "linux-perf")
    stats = subprocess.run([perf, "report", "--stats", "-i", str(output)], capture_output=True, text=True).stdout
    assert int(re.search(r"SAMPLE events:\s+(\d+)", stats).group(1)) == 3000, stats


def test_the_thread_that_drains_is_not_sampled(tmp_path):
    """Its poll(2) every 100 ms would be sampled as a thread the block started, with inherit."""
    needs_event("syscalls:sys_enter_poll")
    output = tmp_path / "poll.data"
    with perfmonpy.record("syscalls:sys_enter_poll", output, period=1, inherit=True) as recording:
        time.sleep(0.5)
    assert recording.samples == 0, set(recording.data.samples["tid"])


def test_a_command_sampled_from_its_exec(tmp_path):
    needs_event(GETPPID)
    recorded = perfmonpy.record_command([worker(), "tree-getppid", "250"], GETPPID, tmp_path / "command.data",
                                        period=1, callchains=True, buffer_pages=1024)
    assert recorded.exit_code == 0 and recorded.samples == 1000 and recorded.lost == 0
    data = recorded.data
    assert len(data) == 1000
    assert data.comms == ["perfmon-test-wo"]
    names = {data.symbol_name(symbol) for symbol in data.frame_symbols}
    assert {"perfmon_branch_a", "perfmon_branch_b", "main"} <= names


def test_an_old_file_is_replaced_only_when_the_recording_is_whole(tmp_path):
    needs_event(GETPPID)
    output = tmp_path / "kept.data"
    output.write_text("the old file")
    recording = perfmonpy.record(GETPPID, output, period=1)
    with pytest.raises(RuntimeError):
        with recording:
            assert output.read_text() == "the old file", "not replaced while recording"
            raise RuntimeError("the block failed")
    assert output.read_bytes().startswith(b"PERFILE2")


def test_buffer_pages_is_a_power_of_two(tmp_path):
    with pytest.raises(ValueError, match="power of two"):
        perfmonpy.record("task-clock", tmp_path / "x.data", buffer_pages=100)


def test_a_fifo_or_a_device_is_refused_and_left_as_it_is(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(perfmonpy.PerfmonError, match="it is a FIFO that no process is reading"):
        perfmonpy.record("task-clock", fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    if os.geteuid() != 0:
        pytest.skip("a private device node needs root (mknod)")
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # this test's own, never the system's
    with pytest.raises(perfmonpy.PerfmonError, match="needs a regular file"):
        perfmonpy.record("task-clock", device)
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_a_recording_read_back_agrees_with_its_own_counts(tmp_path):
    needs_event(GETPPID)
    with perfmonpy.record(GETPPID, tmp_path / "a.data", period=1, buffer_pages=1024) as recording:
        with perfmonpy.counters(GETPPID) as counted:
            for _ in range(777):
                os.getppid()
    assert len(recording.data) == counted[GETPPID] == 777
    assert np.all(recording.data.samples["period"] == 1)


def test_a_child_forked_in_the_block_owns_nothing_of_the_recording(tmp_path):
    needs_event(GETPPID)
    output = tmp_path / "forked.data"
    with perfmonpy.record(GETPPID, output, period=1) as recording:
        os.getppid()
        child = os.fork()
        if child == 0:  # leaves the block too: nothing of the parent's may be stopped or written
            os.getppid()
    if child == 0:
        os._exit(0)
    _, status = os.waitpid(child, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert recording.samples >= 1 and len(recording.data) >= 1


def test_a_finished_recording_is_not_used_again(tmp_path):
    needs_event(GETPPID)
    recording = perfmonpy.record(GETPPID, tmp_path / "once.data", period=1)
    with recording:
        os.getppid()
    with pytest.raises(perfmonpy.InvalidArgumentError, match="this recording is finished and its file written"):
        with recording:
            pass


def test_a_command_named_in_latin1_is_read_back(tmp_path):
    needs_event(GETPPID)
    # The program's name in Latin-1 bytes, reached by a shell's glob (a str argument is UTF-8).
    os.mkdir(tmp_path / "bin")
    os.symlink(worker(), os.path.join(bytes(tmp_path / "bin"), b"caf\xe9"))
    recorded = perfmonpy.record_command(["/bin/sh", "-c", f"cd '{tmp_path / 'bin'}' && exec ./caf* getppid 5"], GETPPID,
                                        tmp_path / "latin1.data", period=1)
    assert recorded.exit_code == 0
    assert "caf\udce9" in recorded.data.comms
