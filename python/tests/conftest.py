# SPDX-License-Identifier: Apache-2.0
"""What the tests of perfmonpy share: the build's perfmon and test worker (ctest passes their paths),
and skips that say what is missing."""

import os
import shutil
import threading
import time

import pytest

import perfmonpy

WORKER = os.environ.get("PERFMON_TEST_WORKER", "")
PERFMON = os.environ.get("PERFMON", "")


def worker():
    if not WORKER or not os.access(WORKER, os.X_OK):
        pytest.skip("the test worker is not built (ctest passes PERFMON_TEST_WORKER)")
    return WORKER


def perfmon():
    if not PERFMON or not os.access(PERFMON, os.X_OK):
        pytest.skip("perfmon is not built (ctest passes PERFMON)")
    return PERFMON


def needs_event(event):
    reason = perfmonpy.why_not(event)
    if reason:
        pytest.skip(f"{event} cannot be counted here: {reason}")


def needs_program(path, package):
    if not shutil.which(path):
        pytest.skip(f"{path} is not installed (Debian's {package}; scripts/install-deps installs it)")
    return shutil.which(path)


def ticks_while(run, interval=0.001):
    """Calls run() while another Python thread ticks every `interval` s: (run's result, how many
    ticks fell while it ran) — none where run() held the GIL throughout."""
    ticks = []
    stop = threading.Event()

    def ticking():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(interval)

    thread = threading.Thread(target=ticking)
    thread.start()
    began = time.monotonic()
    try:
        result = run()
    finally:
        ended = time.monotonic()
        stop.set()
        thread.join()
    return result, sum(began < tick < ended for tick in ticks)
