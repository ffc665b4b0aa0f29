# SPDX-License-Identifier: Apache-2.0
"""Sessions opened and closed by the thousand leave nothing behind: descriptors and memory flat."""

import gc
import os

import perfmonpy


def held():
    with open("/proc/self/status") as status:
        resident = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return len(os.listdir("/proc/self/fd")), resident


def test_ten_thousand_sessions_leave_descriptors_and_memory_flat():
    def rounds(count):
        for _ in range(count):
            with perfmonpy.counters("task-clock,page-faults") as c:
                pass
            assert c["task-clock"] >= 0
            c = None
        gc.collect()
        return held()

    descriptors_before, resident_before = rounds(1000)  # the allocator's high water first
    descriptors_after, resident_after = rounds(10000)
    assert descriptors_after == descriptors_before
    assert resident_after <= resident_before + 1024, f"KiB, from {resident_before}"


def test_an_exception_in_the_block_stops_the_counters_and_goes_on():
    counting = perfmonpy.counters("task-clock")
    try:
        with counting:
            raise KeyError("from the block")
    except KeyError:
        pass
    first = counting.values["value"][0]
    assert first > 0
    assert counting.read().values["value"][0] == first, "stopped at the block's end"
