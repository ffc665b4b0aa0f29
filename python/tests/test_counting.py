# SPDX-License-Identifier: Apache-2.0
"""Counting from Python: exact counts of what the test itself does, in every form the package gives."""

import mmap
import os
import threading

import numpy as np
import pytest

import perfmonpy
from conftest import needs_event, perfmon, ticks_while, worker

GETPPID = "syscalls:sys_enter_getppid"


def test_a_tracepoint_counts_every_call_made_in_the_block():
    needs_event(GETPPID)
    with perfmonpy.counters(f"task-clock,{GETPPID}") as c:
        for _ in range(1234):
            os.getppid()
    assert c[GETPPID] == 1234
    assert isinstance(c[GETPPID], int)  # counted all the time: a count, not an estimate
    assert c["task-clock"] > 0
    assert c.counts.as_dict()[GETPPID] == 1234


def test_page_faults_of_pages_touched_in_the_block_are_exact():
    pages = 2000
    memory = mmap.mmap(-1, pages * mmap.PAGESIZE)
    offsets = list(range(0, pages * mmap.PAGESIZE, mmap.PAGESIZE))  # made before: no allocation inside
    with perfmonpy.counters("page-faults,minor-faults", inherit=False) as c:
        for offset in offsets:
            memory[offset] = 1
    assert c["page-faults"] == pages
    assert c["minor-faults"] == pages


def test_values_are_a_structured_array_one_row_an_event():
    needs_event(GETPPID)
    with perfmonpy.counters(f"{{task-clock,{GETPPID}}},page-faults") as c:
        for _ in range(10):
            os.getppid()
    values = c.values
    assert list(values["event"]) == ["task-clock", GETPPID, "page-faults"]
    assert values.dtype.names == ("event", "part", "value", "enabled", "running", "scaled", "stderr", "supported",
                                  "emulated")
    assert not values["emulated"].any()
    assert list(values["part"]) == ["", "", ""]  # one part: no sets, no passes
    row = values[1]
    assert row["value"] == 10 and row["scaled"] == 10.0 and row["stderr"] == 0.0 and row["supported"]
    assert row["enabled"] > 0 and row["running"] == row["enabled"]


def test_a_block_entered_again_counts_afresh():
    needs_event(GETPPID)
    counting = perfmonpy.counters(GETPPID)
    for calls in (5, 50, 0):
        with counting:
            for _ in range(calls):
                os.getppid()
        assert counting[GETPPID] == calls


def test_the_decorator_counts_each_call():
    needs_event(GETPPID)

    @perfmonpy.counters(GETPPID)
    def calls(n):
        for _ in range(n):
            os.getppid()
        return n * 2

    assert calls(30) == 60
    assert calls.counts[GETPPID] == 30
    assert calls(7) == 14
    assert calls.counts[GETPPID] == 7
    assert calls.__name__ == "calls"


def test_measure_repeats_and_gives_an_array_per_event():
    needs_event(GETPPID)
    sizes = iter([3, 4, 5, 6])

    def work():
        for _ in range(next(sizes)):
            os.getppid()

    runs = perfmonpy.measure(work, GETPPID, repeat=4)
    assert len(runs) == 4
    np.testing.assert_array_equal(runs[GETPPID], [3, 4, 5, 6])
    assert runs.values.shape == (4, 1)


def test_a_thread_of_this_process_counted_by_tid():
    needs_event(GETPPID)
    ready, go, done = threading.Event(), threading.Event(), threading.Event()
    tid = []

    def other():
        tid.append(threading.get_native_id())
        ready.set()
        go.wait()
        for _ in range(400):
            os.getppid()
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    ready.wait()
    with perfmonpy.counters(GETPPID, tid=tid[0]) as c:
        for _ in range(99):  # this thread's calls are not counted
            os.getppid()
        go.set()
        done.wait()
    thread.join()
    assert c[GETPPID] == 400


def test_a_process_counted_by_pid():
    needs_event(GETPPID)
    import subprocess
    child = subprocess.Popen([worker(), "getppid", "700", "--wait-stdin"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().startswith("ready")
    with perfmonpy.counters(GETPPID, pid=child.pid) as c:
        child.communicate("go\n")
    assert c[GETPPID] == 700


def test_cpus_count_every_process_on_them():
    needs_event(GETPPID)
    with perfmonpy.counters(GETPPID, cpus=range(os.cpu_count())) as c:
        for _ in range(300):
            os.getppid()
    assert c[GETPPID] >= 300  # and whatever else ran on them


def test_a_cgroup_counted_on_every_cpu():
    """A container's or a service's events: the cgroup's processes, whichever CPU they ran on."""
    needs_event(GETPPID)
    base = "/sys/fs/cgroup/unified" if os.path.exists("/sys/fs/cgroup/unified/cgroup.procs") else "/sys/fs/cgroup"
    if os.geteuid() != 0 or not os.path.exists(f"{base}/cgroup.procs"):
        pytest.skip("needs root and a cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified")
    import subprocess
    name = f"perfmonpy-test-{os.getpid()}"
    os.mkdir(f"{base}/{name}")
    try:
        with perfmonpy.counters(GETPPID, cgroup=name) as c:
            for _ in range(50):  # not in the cgroup: not counted
                os.getppid()
            subprocess.run(["/bin/sh", "-c", f"echo $$ > {base}/{name}/cgroup.procs && exec {worker()} getppid 444"],
                           check=True)
        assert c[GETPPID] == 444
    finally:
        os.rmdir(f"{base}/{name}")


def test_a_command_is_counted_from_its_exec_to_its_end():
    needs_event(GETPPID)
    counts = perfmonpy.stat([worker(), "getppid", "321"], f"{GETPPID},task-clock")
    assert counts[GETPPID] == 321
    assert counts.exit_code == 0
    assert perfmonpy.stat([worker(), "exit", "7"], "task-clock").exit_code == 7
    runs = perfmonpy.stat([worker(), "getppid", "55"], GETPPID, repeat=3)
    np.testing.assert_array_equal(runs[GETPPID], [55, 55, 55])
    assert runs.exit_codes == [0, 0, 0]


def test_other_python_threads_run_while_a_command_runs():
    _, ticks = ticks_while(lambda: perfmonpy.stat([worker(), "sleep", "500"], "task-clock"), interval=0.01)
    assert ticks >= 10, "the GIL was held while the command ran"


def test_emulated_instructions_are_exact_and_marked_emulated():
    if not perfmonpy.emulator()["available"]:
        pytest.skip(f"no emulated CPU here: {perfmonpy.emulator()['reason']}")
    first = perfmonpy.stat([worker(), "loop", "100000"], "instructions:u", emulate=True)
    again = perfmonpy.stat([worker(), "loop", "100000"], "instructions:u", emulate=True)
    longer = perfmonpy.stat([worker(), "loop", "200000"], "instructions:u", emulate=True)
    assert first.emulated and first.values["emulated"].all()
    assert first["instructions:u"] == again["instructions:u"]  # the same, run after run
    assert first["instructions:u"] > 100000
    # The loop's instructions alone: the same per iteration, the program's start and end cancel.
    per_loop = (longer["instructions:u"] - first["instructions:u"]) / 100000
    assert per_loop == int(per_loop) and per_loop >= 1
    # What perfmon stat --emulate counts of the same command.
    import subprocess
    shown = subprocess.run([perfmon(), "stat", "--emulate", "-x,", "-e", "instructions:u", "--", worker(), "loop",
                            "100000"], capture_output=True, text=True, check=True).stderr
    assert f"{first['instructions:u']},,instructions:u" in shown, shown


def test_event_sets_take_turns_and_every_call_is_counted_by_the_set_on_the_pmu():
    """Exactly one set is on the PMU at a time: a tracepoint in both sets counts every call once,
    split between them by their turns."""
    needs_event(GETPPID)
    import time
    with perfmonpy.event_sets([f"{{{GETPPID},task-clock}}", f"{{{GETPPID},page-faults}}"], switch_ms=1) as sets:
        calls = 0
        began = time.thread_time()
        while time.thread_time() - began < 0.03:  # 30 turns of 1 ms of this thread's CPU time
            os.getppid()
            calls += 1
    values = sets.values
    assert list(values["part"]) == ["set0", "set0", "set1", "set1"]
    counted = values[values["event"] == GETPPID]
    assert counted["value"].sum() == calls
    assert all(value > 0 for value in counted["value"]), "both sets had turns"
    assert all(turn["runs"] >= 5 for turn in sets.turns), sets.turns
    with pytest.raises(KeyError, match="counted in 2 parts"):
        sets[GETPPID]
    assert isinstance(sets["task-clock"], float)  # an estimate from its set's share of the time


def test_passes_split_what_the_counters_cannot_hold_at_once():
    """Without a PMU every event here needs no counter: one pass, all of them in it."""
    needs_event(GETPPID)
    counts = perfmonpy.stat([worker(), "getppid", "66"], f"{GETPPID},task-clock", passes=True)
    assert list(counts.values["part"]) == ["pass1", "pass1"]
    assert counts[GETPPID] == 66 and counts.exit_codes == [0]
    assert "pass 1:" in counts.plan and "task-clock (none)" in counts.plan, counts.plan


def test_passes_of_hardware_events():
    reason = perfmonpy.why_not("instructions")
    if reason:
        pytest.skip(f"passes of hardware events need a PMU: {reason}")
    counts = perfmonpy.stat([worker(), "loop", "1000000"],
                            "instructions,cycles,branches,branch-misses,cache-references,cache-misses,"
                            "instructions:u,cycles:u,branches:u,branch-misses:u", passes=True)
    assert len(counts.exit_codes) >= 2, counts.plan
    assert (counts.values["running"] == counts.values["enabled"]).all(), "no event multiplexed"


def test_passes_without_a_pmu_say_why():
    reason = perfmonpy.why_not("instructions")
    if reason is None:
        pytest.skip("this machine counts instructions")
    with pytest.raises(perfmonpy.UnsupportedError) as raised:
        perfmonpy.stat([worker(), "exit", "0"], "instructions,task-clock", passes=True)
    assert str(raised.value) == reason


def test_event_sets_over_a_command_are_switched_while_it_runs():
    needs_event(GETPPID)
    counts = perfmonpy.stat([worker(), "getppid", "200000"],
                            sets=[f"{{{GETPPID},task-clock}}", f"{{{GETPPID},page-faults}}"], switch_ms=1)
    assert counts.exit_code == 0
    counted = counts.values[counts.values["event"] == GETPPID]
    assert list(counted["part"]) == ["set0", "set1"]
    # One set on the PMU at a time: no call counted twice; a few go uncounted between one set's
    # end and the next one's start, as perfmon switches from another process (docs/benchmarks.md,
    # "the blind spot").
    assert 0.8 * 200000 < counted["value"].sum() <= 200000
    assert all(value > 0 for value in counted["value"]), counts.summary


def test_event_sets_over_another_thread_are_switched_by_perfmons_own():
    needs_event(GETPPID)
    import time
    ready, go, done = threading.Event(), threading.Event(), threading.Event()
    tid, calls = [], []

    def other():
        tid.append(threading.get_native_id())
        ready.set()
        go.wait()
        made = 0
        began = time.thread_time()
        while time.thread_time() - began < 0.05:  # 50 turns of 1 ms of its CPU time
            os.getppid()
            made += 1
        calls.append(made)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    ready.wait()
    with perfmonpy.event_sets([f"{{{GETPPID},task-clock}}", f"{{{GETPPID},page-faults}}"], switch_ms=1,
                              tid=tid[0]) as sets:
        go.set()
        done.wait()
    thread.join()
    counted = sets.values[sets.values["event"] == GETPPID]
    assert 0.8 * calls[0] < counted["value"].sum() <= calls[0]  # never twice; the blind spot's few not at all
    assert all(value > 0 for value in counted["value"]), sets.turns
    assert all(turn["runs"] >= 3 for turn in sets.turns), sets.turns


def test_blocks_nest_and_the_outermost_counts_all():
    needs_event(GETPPID)
    c = perfmonpy.counters(GETPPID)
    with c:
        os.getppid()
        with c:
            for _ in range(3):
                os.getppid()
        os.getppid()
    assert c[GETPPID] == 5

    @perfmonpy.counters(GETPPID)
    def recurse(depth):
        os.getppid()
        if depth > 0:
            recurse(depth - 1)

    recurse(50)
    assert recurse.counts[GETPPID] == 51


def test_a_command_is_interrupted_by_ctrl_c_at_once():
    """SIGINT to the interpreter while stat() waits: the command gets it and ends, and
    KeyboardInterrupt comes at once, not when the command would have ended."""
    program = ("import signal, threading, time, os, perfmonpy\n"
               "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
               "began = time.monotonic()\n"
               "try:\n"
               "    perfmonpy.stat(['sleep', '8'], 'task-clock')\n"
               "except KeyboardInterrupt:\n"
               "    print('interrupted after %.1f s' % (time.monotonic() - began))\n")
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=30,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    seconds = float(done.stdout.split()[2])
    assert seconds < 3, done.stdout


def test_ids_out_of_range_are_refused_not_wrapped():
    for wrong in (2**32 + os.getpid(), 0, -1, 2**22 + 1, True, "12"):
        with pytest.raises(ValueError, match="is a process id from 1 to 4194304"):
            perfmonpy.counters("task-clock", pid=wrong)
    with pytest.raises(ValueError, match="tid= is a thread id from 1 to 4194304"):
        perfmonpy.counters("task-clock", tid=0)
    with perfmonpy.counters("task-clock", tid=np.int64(threading.get_native_id())) as c:
        pass
    assert c["task-clock"] >= 0


def test_a_nul_in_the_events_is_said_not_cut():
    with pytest.raises(perfmonpy.EventError) as raised:
        perfmonpy.counters("task-clock\0page-faults")
    assert "task-clock\\x00page-faults': it holds a control character at column 11" in str(raised.value)
