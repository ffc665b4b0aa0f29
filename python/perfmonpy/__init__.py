# SPDX-License-Identifier: Apache-2.0
"""perfmonpy: perfmon for Python — count hardware and software events around a block, a function or
a command, sample them into perf.data files, and read perf.data files (perfmon's or perf's) into
numpy arrays. docs/python.md.

    import perfmonpy
    with perfmonpy.counters("task-clock,page-faults") as c:
        work()
    print(c["page-faults"], c.values)
"""

import importlib.util as _importlib_util

# The compiled half is built apart from these files (a source tree imported before it was built):
# said, with what builds it, instead of Python's "partially initialized module".
if _importlib_util.find_spec("perfmonpy._perfmonpy") is None:
    raise ImportError("perfmonpy's compiled module (_perfmonpy) is not built here: build it with "
                      "'cmake --build build --target _perfmonpy' and import perfmonpy from build/python "
                      "(PYTHONPATH=build/python).", name="perfmonpy._perfmonpy")

from ._counting import CommandCounts, Counts, Metrics, Runs, counters, emulator, event_sets, measure, probe, stat, why_not
from ._profiles import PerfData, read_perf_data
from ._recording import RecordedCommand, record, record_command
from .errors import (CommandError, EventError, InvalidArgumentError, LimitError, NoPermissionError,
                     NoSuchTargetError, OtherCpuModelError, PerfmonError, PerfmonOSError, UnknownEventError,
                     UnsupportedError)

__all__ = ["counters", "event_sets", "measure", "stat", "probe", "why_not", "emulator", "record", "record_command", "read_perf_data",
           "RecordedCommand", "Counts", "CommandCounts", "Metrics", "Runs",
           "PerfData", "PerfmonError", "EventError", "UnknownEventError", "UnsupportedError", "OtherCpuModelError",
           "NoPermissionError", "NoSuchTargetError", "LimitError", "CommandError", "PerfmonOSError",
           "InvalidArgumentError"]
