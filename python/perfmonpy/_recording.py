# SPDX-License-Identifier: Apache-2.0
"""Sampling from Python into a perf.data file: record(...) around a block, record_command(...) of a
command; the file is perfmon record's (perf report and perfmon report read it) and .data reads it
back into arrays."""

import sys

from . import _perfmonpy as _native
from ._counting import _held, _target, _Wrapper, why_not
from ._profiles import read_perf_data


def _default_events():
    """perf record's default: cycles where the machine counts them, else cpu-clock."""
    return "cycles" if why_not("cycles") is None else "cpu-clock"


def _options(period, frequency):
    if period is not None and frequency is not None:
        raise ValueError("give a period or a frequency, not both.")
    if period is not None:
        return int(period), 0
    return 0, int(frequency if frequency is not None else 4000)  # perf record's default frequency


def _pages(count):
    """perf record's -m: data pages of each ring buffer, a power of two (0: the default, 64)."""
    count = int(count)
    if count < 0 or (count & (count - 1)) != 0:
        raise ValueError(f"buffer_pages is a power of two (64, 1024, ...), not {count}.")
    return count


class record(_Wrapper):
    """Samples a block into a perf.data file.

        with perfmonpy.record("cpu-clock", "block.data", frequency=999, callchains=True) as r:
            work()
        r.samples, r.lost, r.data.rows()

    events: perf's syntax (default: cycles where counted, else cpu-clock); a sample every `period`
    events or about `frequency` a second (default 4000, as perf record); callchains=True records
    each sample's call stack. Without a target, the calling thread (and, with inherit, the threads
    it starts); or pid=, tid=, cpus=, cgroup= as for counters(). buffer_pages: each ring's data
    pages (perf record's -m; default 64, 256 KiB): more where samples come faster than a thread
    drains them every 100 ms (r.lost says how many were dropped). A thread of perfmon's own drains
    the samples while the block runs (it is not sampled). The file is written whole when the block
    ends, or not at all: an old file is replaced only then, a device or FIFO never.
    """

    def __init__(self, events=None, output="perf.data", *, period=None, frequency=None, callchains=False, pid=None,
                 tid=None, cpus=None, cgroup=None, inherit=True, buffer_pages=0):
        period, frequency = _options(period, frequency)
        self._wrap(_native.Recording(events or _default_events(), _target(pid, tid, cpus, cgroup, None, False),
                                     str(output), period, frequency, callchains, inherit, _pages(buffer_pages),
                                     list(sys.argv) or ["python3"]))
        self.output = str(output)

    samples = _held("samples", "The samples written so far.")
    lost = _held("lost", "The samples lost, by the events' own count (the records, on a kernel that does not count "
                 "them).")
    lost_records = _held("lost_records", "The records of any kind a full ring dropped.")
    notes = _held("notes")

    @property
    def data(self):
        """The recording read back (read_perf_data), once it has ended."""
        return read_perf_data(self.output)


class RecordedCommand:
    """A command's recording: its file (.output, .data), .samples, .lost (samples, by the events' own
    count), .lost_records (records of any kind a full ring dropped) and .exit_code."""

    def __init__(self, recording, output, exit_code):
        self.output = output
        self.samples = recording.samples
        self.lost = recording.lost
        self.lost_records = recording.lost_records
        self.notes = recording.notes
        self.exit_code = exit_code

    @property
    def data(self):
        return read_perf_data(self.output)


def record_command(command, events=None, output="perf.data", *, period=None, frequency=None, callchains=False,
                   inherit=True, buffer_pages=0):
    """Runs a command (a list of words) to its end, sampling it from its exec into a perf.data file,
    as perfmon record -- COMMAND does: RecordedCommand. Other Python threads run meanwhile."""
    if isinstance(command, str):
        raise ValueError("give the command as a list of words, as for subprocess: ['ls', '-l'].")
    period, frequency = _options(period, frequency)
    recording = _native.Recording(events or _default_events(), _target(None, None, None, None, command, False),
                                  str(output), period, frequency, callchains, inherit, _pages(buffer_pages),
                                  ["perfmonpy.record_command"] + [str(word) for word in command])
    exit_code = recording.run_command()
    return RecordedCommand(recording, str(output), exit_code)
