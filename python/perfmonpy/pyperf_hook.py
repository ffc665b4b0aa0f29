# SPDX-License-Identifier: Apache-2.0
"""A pyperf hook: each benchmark run counted by perfmon, the counts in the run's metadata.

pyperf finds it through the entry point group pyperf.hook (installed with perfmonpy):

    python3 bench.py --hook perfmon

Events: $PERFMONPY_PYPERF_EVENTS (perf's syntax), else instructions:u where this machine counts them
(on a PMU, or on perfmon's emulated CPU when the benchmark runs under perfmon stat --emulate), else
task-clock. For each event the run's metadata gets perfmon_<event> (the mean over the hooked
runs) and perfmon_<event>_runs (every run's count, space-separated), and perfmon_events the list.
"""

import os

from ._counting import counters
from .errors import PerfmonError, UnsupportedError

try:
    from pyperf._hooks import HookError
except ImportError:  # pyperf is not installed: the hook still works as pyperf documents hooks
    class HookError(Exception):
        pass


def _open_counters():
    chosen = os.environ.get("PERFMONPY_PYPERF_EVENTS")
    # Events that cannot be counted are refused, not kept: a benchmark's metadata holds counts only.
    if chosen:
        return counters(chosen, inherit=False, skip_unsupported=False)
    try:
        return counters("instructions:u", inherit=False, skip_unsupported=False)
    except UnsupportedError:
        return counters("task-clock", inherit=False)


class perfmon:
    """pyperf's hook interface: made once per worker process, entered and left around each run,
    torn down with the metadata to fill."""

    def __init__(self):
        try:
            self._counters = _open_counters()
        except PerfmonError as error:
            raise HookError(f"perfmon cannot count here: {error}") from error
        self._runs = []

    def __enter__(self):
        self._counters.__enter__()

    def __exit__(self, exc_type, exc_value, traceback):
        self._counters.__exit__(exc_type, exc_value, traceback)
        self._runs.append(self._counters.counts.as_dict())

    def teardown(self, metadata):
        if not self._runs:
            return
        names = list(self._runs[0])
        metadata["perfmon_events"] = ",".join(names)
        for name in names:
            counts = [run[name] for run in self._runs]
            mean = sum(counts) / len(counts)
            metadata[f"perfmon_{name}"] = int(mean) if all(isinstance(c, int) for c in counts) and mean.is_integer() \
                else float(mean)
            metadata[f"perfmon_{name}_runs"] = " ".join(str(count) for count in counts)
