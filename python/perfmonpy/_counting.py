# SPDX-License-Identifier: Apache-2.0
"""Counting from Python: counters(...) around a block or a function, measure() over repeated runs,
stat() of a command, probe() of what this machine can count."""

import functools
import operator
import types

import numpy as np

from . import _perfmonpy as _native

# One row an event of a reading.
#   event     its name as written; part: the set or pass that counted it ("set1"), "" for one part
#   value     the count the kernel accumulated while the event was on the PMU
#   enabled   ns the event was enabled; running: ns it was counting (less when multiplexed)
#   scaled    value * enabled / running: the count over the whole enabled time
#   stderr    the standard error of scaled (0: exact; NaN: unknown, without error_bars)
#   supported False where this machine cannot count the event (reasons say why)
#   emulated  True where perfmon's emulated CPU counted it, not the host's PMU
_COLUMNS = [("value", np.uint64), ("enabled", np.uint64), ("running", np.uint64), ("scaled", np.float64),
            ("stderr", np.float64), ("supported", np.bool_), ("emulated", np.bool_)]


def _table(names, parts, counts, estimates, supported, emulated):
    width = max([len(name) for name in names] + [1])
    part_width = max([len(part) for part in parts] + [1])
    table = np.zeros(len(names), dtype=[("event", f"U{width}"), ("part", f"U{part_width}")] + _COLUMNS)
    table["event"], table["part"] = names, parts
    table["value"], table["enabled"], table["running"] = counts[:, 0], counts[:, 1], counts[:, 2]
    table["scaled"], table["stderr"] = estimates[:, 0], estimates[:, 1]
    table["supported"] = supported
    table["emulated"] = emulated
    return table


def _count_of(row):
    """An int where the event counted all the time it was enabled; else the float estimate, NaN
    where it was never on the PMU (not counted, which is not zero)."""
    if row["running"] == row["enabled"]:
        return int(row["value"])
    if row["running"] == 0:
        return float("nan")
    return float(row["scaled"])


# The kernel's largest process or thread id (PID_MAX_LIMIT): a larger int would wrap in pid_t.
_LARGEST_ID = 4194304


def _id_of(name, value):
    try:
        number = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        number = None
    if number is None or not 1 <= number <= _LARGEST_ID:
        whose = "process" if name == "pid" else "thread"
        raise ValueError(f"{name}= is a {whose} id from 1 to {_LARGEST_ID}, not {value!r}; leave it out to count "
                         f"the calling thread.")
    return number


def _target(pid, tid, cpus, cgroup, command, emulate):
    target = _native.TargetSpec()
    chosen = [name for name, value in (("pid", pid), ("tid", tid), ("cgroup", cgroup), ("command", command))
              if value is not None]
    if len(chosen) > 1:
        raise ValueError(f"count one target at a time, not {' and '.join(chosen)}.")
    if command is not None:
        target.kind, target.command = "command", [str(word) for word in command]
    elif pid is not None:
        target.kind, target.id = "process", _id_of("pid", pid)
    elif tid is not None:
        target.kind, target.id = "thread", _id_of("tid", tid)
    elif cgroup is not None:
        target.kind, target.cgroup = "cgroup", str(cgroup)
    elif cpus is not None:
        target.kind = "cpus"
    if cpus is not None:
        if target.kind not in ("cpus", "cgroup"):
            raise ValueError("cpus= goes with a cgroup or alone (system-wide on those CPUs).")
        target.cpus = [int(cpu) for cpu in cpus]
    target.emulate = bool(emulate)
    return target


# One row a metric (counters(metrics=...), stat(metrics=...)).
#   metric          its name, as the table spells it ("IPC")
#   value           scaled by its ScaleUnit (percent for "100%"); NaN where it cannot be computed
#   stderr          its standard error, propagated from the counts' (0 for exact counts)
#   unit            its ScaleUnit's unit ("%", "GHz", "/sec")
#   over_threshold  1 past its MetricThreshold (perf marks it), 0 not, -1 no threshold or no value
_METRIC_COLUMNS = [("value", np.float64), ("stderr", np.float64), ("over_threshold", np.int8)]


class Metrics:
    """The metrics of a reading: metrics["IPC"] (a float, names without case; NaN where it cannot
    be computed, and .reasons says why), .values (a numpy structured array, one row a metric)."""

    def __init__(self, names, values, errors, units, thresholds, reasons):
        width = max([len(name) for name in names] + [1])
        unit_width = max([len(unit) for unit in units] + [1])
        self.values = np.zeros(len(names), dtype=[("metric", f"U{width}")] + _METRIC_COLUMNS + [("unit", f"U{unit_width}")])
        self.values["metric"], self.values["value"], self.values["stderr"] = names, values, errors
        self.values["unit"], self.values["over_threshold"] = units, thresholds
        self.reasons = reasons

    @property
    def names(self):
        return list(self.values["metric"])

    def __getitem__(self, metric):
        for row in self.values:
            if row["metric"].lower() == str(metric).lower():
                return float(row["value"])
        raise KeyError(f"'{metric}' is not one of the metrics computed: {', '.join(self.names)}.")

    def __contains__(self, metric):
        return str(metric).lower() in (name.lower() for name in self.names)

    def __iter__(self):
        return iter(self.names)

    def as_dict(self):
        return {row["metric"]: float(row["value"]) for row in self.values}

    def __repr__(self):
        return "<perfmonpy metrics: " + ", ".join(f"{name}={value:.6g}" for name, value in self.as_dict().items()) + ">"


def _metrics_of(counts, metrics, duration_ns):
    """The chosen metrics from a reading's counts: each event's count (the estimate where it was
    multiplexed, NaN where it was not counted) and standard error, the wall time as duration_time."""
    values, errors, missing = {}, {}, {}
    for row in counts.values:
        name = str(row["event"])
        for spelled in (name, name[:-2] if name.endswith(":u") else None):
            if spelled is None:
                continue
            if row["supported"] and row["running"] > 0:
                values[spelled], errors[spelled] = float(row["scaled"]), float(row["stderr"])
            else:
                missing[spelled] = counts.reasons.get(name, "it was not counted")
    names, metric_values, metric_errors, units, thresholds = metrics.evaluate(values, errors, duration_ns / 1e9)
    reasons = {}
    for name, value in zip(names, metric_values):
        if np.isnan(value):
            lacking = [event for event in metrics.events if event not in values]
            reasons[name] = (f"{lacking[0]} was not counted: {missing.get(lacking[0], '')}".rstrip(": ") if lacking
                             else "its expression has no value for these counts (a division by zero)")
    return Metrics(names, metric_values, metric_errors, units, thresholds, reasons)


def _with_metric_events(events, metrics):
    """The event list with the events the metrics need and it does not name (Intel's topdown ones
    in one group led by slots, as the kernel counts them)."""
    if metrics is None:
        return events
    return metrics.event_list(events or "")


class Counts:
    """What a measurement counted: counts["page-faults"] (an int where the event counted all the
    time, else the float estimate), .values (a numpy structured array, one row an event), and what
    perfmon did and saw (.notes, .summary, .reasons for events it could not count); with metrics=,
    .metrics (Metrics)."""

    def __init__(self, session, metrics=None):
        names, parts, counts, estimates, supported, reasons = session.value_arrays()
        self.values = _table(names, parts, counts, estimates, supported, session.emulated)
        self.reasons = {name: reason for name, reason in zip(names, reasons) if reason}
        self.emulated = session.emulated
        self.notes = session.notes
        self.summary = session.summary
        self.metrics = _metrics_of(self, metrics, session.duration_ns) if metrics is not None else None

    @property
    def names(self):
        return list(self.values["event"])

    def __getitem__(self, event):
        if isinstance(event, int):
            return _count_of(self.values[event])
        rows = self.values[self.values["event"] == event]
        if len(rows) == 0:
            raise KeyError(f"'{event}' is not one of the events counted: {', '.join(self.names)}.")
        if len(rows) > 1:
            raise KeyError(f"'{event}' was counted in {len(rows)} parts ({', '.join(rows['part'])}): "
                           f"look it up in .values by part.")
        if not rows[0]["supported"]:
            raise KeyError(f"'{event}' was not counted: {self.reasons.get(event, '')}")
        return _count_of(rows[0])

    def __contains__(self, event):
        return event in self.names

    def __iter__(self):
        return iter(self.names)

    def as_dict(self):
        return {row["event"]: _count_of(row) for row in self.values if row["supported"]}

    def __repr__(self):
        kind = "emulated " if self.emulated else ""
        shown = ", ".join(f"{name}={value}" for name, value in self.as_dict().items())
        return f"<perfmonpy {kind}counts: {shown}>"


def _held(name, doc=None):
    """A property of the compiled object a wrapper holds."""
    return property(lambda self: getattr(self._native, name), doc=doc)


class _Wrapper:
    """A compiled class held, not derived from: a `with` block enters and leaves it (its begin and
    end in C++, called without arguments; the wrapper adds one Python call each)."""

    def _wrap(self, native):
        self._native = native
        self._begin, self._end = native.begin, native.end

    def __enter__(self):
        self._begin()
        return self

    def __exit__(self, kind, value, trace):
        return self._end()


class _Readings(_Wrapper):
    """A compiled measurement wrapped, what it leaves made once per reading: .counts (Counts),
    .values, .reasons, block[event]."""

    _made = (-1, None)  # the Counts of which reading
    readings = _held("readings", "How many readings so far.")
    notes = _held("notes")
    summary = _held("summary")
    emulated = _held("emulated")

    _metrics = None  # the native Metrics of metrics=, where asked

    @property
    def counts(self):
        """The last reading, as Counts."""
        if self._made[0] != self._native.readings:
            self._made = (self._native.readings, Counts(self._native, self._metrics))
        return self._made[1]

    @property
    def metrics(self):
        """The last reading's metrics (Metrics), where metrics= chose some."""
        return self.counts.metrics

    def __getitem__(self, event):
        """The last count of an event (its name as written, or its index): an int where it counted
        all the time, else the float estimate (NaN where it was never on the PMU)."""
        return self.counts[event]

    @property
    def values(self):
        return self.counts.values

    @property
    def reasons(self):
        return self.counts.reasons


class counters(_Readings):
    """Counts events around a block or each call of a function.

        with counters("task-clock,page-faults,syscalls:sys_enter_getppid") as c:
            work()
        c["page-faults"], c.values

        @counters("instructions:u")
        def solve(): ...
        solve(); solve.counts["instructions:u"]        # the last call's

    events: perf's syntax ("{cycles,instructions},page-faults"). Without a target, the thread that
    makes the counters (and the threads it starts later, with inherit); or pid=, tid=, cpus= (a
    list: system-wide on those CPUs), cgroup= (a path below the cgroup v2 mount, on cpus or every
    CPU). An event this machine cannot count is kept, not counted: .reasons says why and reading
    its count raises KeyError saying so (as the C++ CounterSession and perfmon stat keep it);
    skip_unsupported=False raises UnsupportedError naming why instead. strict=True
    refuses a measurement the kernel would multiplex; error_bars=True keeps what stderr needs
    (read while it runs, with .read()). metrics="IPC,CPUs_utilized" (names or groups, as perfmon
    stat -M takes them; metrics_dir= perf's pmu-events for this CPU's own) also counts the events
    they need and computes them at each reading: c.metrics["IPC"], c.metrics.values.

    Entering resets and starts the counters, leaving stops and reads them, both in the compiled
    module: a block costs the C++ API's region and little more (docs/benchmarks.md).
    """

    def __init__(self, events=None, *, pid=None, tid=None, cpus=None, cgroup=None, inherit=True, strict=False,
                 skip_unsupported=True, error_bars=False, metrics=None, metrics_dir=None):
        if events is None and metrics is None:
            raise ValueError("give the events to count, or metrics= to count theirs.")
        self._metrics = _native.Metrics(metrics, metrics_dir or "") if metrics is not None else None
        self._wrap(_native.Session(_with_metric_events(events, self._metrics),
                                   _target(pid, tid, cpus, cgroup, None, False), inherit, strict, skip_unsupported,
                                   error_bars))

    def read(self):
        """Reads the counters now, running or not: the counts so far."""
        self._native.read()
        return self.counts

    def __call__(self, function):
        return _Counted(function, self)


def _set_lists(sets):
    if isinstance(sets, str):
        raise ValueError("give the sets as a list of event lists: ['{cycles,instructions}', 'branches'].")
    return [str(events) for events in sets]


class event_sets(_Readings):
    """More events than the PMU has counters, switched by perfmon rather than the kernel (perfmon2's
    event sets), over a block: one set on the PMU at a time, each giving way to the next after
    switch_ms of the target's CPU time.

        with perfmonpy.event_sets(["{cycles,instructions}", "{branches,branch-misses}"], switch_ms=2) as s:
            work()
        s["branches"]       # the float estimate over the whole block (its set's share scaled up)
        s.values            # one row an event; part says its set ("set0", "set1")
        s.turns             # [{"runs": ..., "active_ns": ...}, ...] a set

    Without a target, the calling thread: the switches run in a signal handler of the library's in
    the thread itself, so nothing of its work falls between two sets. With pid=, tid=, cpus= or
    cgroup= (as for counters), a thread of perfmon's own switches them while the block runs: the
    target runs on meanwhile, so a few of its events fall between one set and the next. Each set is
    a list in perf's syntax, groups kept whole.
    """

    def __init__(self, sets, *, switch_ms=10, inherit=False, pid=None, tid=None, cpus=None, cgroup=None):
        self._wrap(_native.Session("", _target(pid, tid, cpus, cgroup, None, False), inherit, False, True, False,
                                   _set_lists(sets), int(switch_ms * 1e6)))

    @property
    def turns(self):
        return [{"runs": runs, "active_ns": active} for runs, active in self._native.turns]


class _Counted:
    """A function counted on each call: .counts is the last call's."""

    def __init__(self, function, counting):
        self._function = function
        self.counters = counting
        functools.update_wrapper(self, function)

    def __call__(self, *args, **kwargs):
        with self.counters:
            return self._function(*args, **kwargs)

    @property
    def counts(self):
        return self.counters.counts


class Runs:
    """The counts of repeated runs: runs["instructions"] is a numpy array of one count a run (the
    scaled count, a float), .values a structured array of shape (runs, events)."""

    def __init__(self, values):
        self.values = values

    @property
    def names(self):
        return list(self.values[0]["event"]) if len(self.values) else []

    def __getitem__(self, event):
        column = [index for index, name in enumerate(self.names) if name == event]
        if not column:
            raise KeyError(f"'{event}' is not one of the events counted: {', '.join(self.names)}.")
        return self.values["scaled"][:, column[0]]

    def __len__(self):
        return len(self.values)


def measure(function, events, *, repeat=1, args=(), kwargs=None, **options):
    """Calls function(*args, **kwargs) `repeat` times, counting each call: Runs."""
    if repeat < 1:
        raise ValueError("repeat is at least 1.")
    counting = counters(events, **options)
    rows = []
    for _ in range(repeat):
        with counting:
            function(*args, **(kwargs or {}))
        rows.append(counting.values)
    return Runs(np.stack(rows))


class CommandCounts(Counts):
    """Counts of a command: also its exit code (128 + signal where a signal ended it)."""

    def __init__(self, session, exit_code, metrics=None):
        super().__init__(session, metrics)
        self.exit_code = exit_code


def stat(command, events=None, *, emulate=False, inherit=True, strict=False, skip_unsupported=True, repeat=None,
         passes=False, sets=None, switch_ms=10, metrics=None, metrics_dir=None):
    """Runs a command (a list of words, as for subprocess) to its end, counting it from its exec:
    CommandCounts. emulate=True runs it on perfmon's emulated CPU (QEMU with perfmon's plugin),
    whose instructions and branches are counted exactly where the machine has no PMU; its counts
    are marked emulated. Other Python threads run while it does. repeat=N runs it N times: Runs,
    one row a run, with .exit_codes. passes=True runs it once per pass of events that fit on the
    counters at once, so that none is multiplexed: each row's part says its pass ("pass1"),
    .exit_codes each pass's (None for a pass not run: none of its own events can be counted here,
    and their rows say why), .plan the plan as perfmon stat --plan prints it; events that need no
    counter are counted in every pass. sets=[...] counts event sets instead of events, each set on
    the PMU in turn for switch_ms of the command's CPU time (as event_sets does over a block).
    metrics="IPC,Default" (as perfmon stat -M) also counts their events and computes them from the
    run's counts and wall time: .metrics (Metrics), for one run of events."""
    if isinstance(command, str):
        raise ValueError("give the command as a list of words, as for subprocess: ['ls', '-l'].")
    if repeat is not None and repeat < 1:
        raise ValueError("repeat is at least 1.")
    if metrics is not None and (sets is not None or passes or repeat is not None):
        raise ValueError("metrics= are computed from one run of events: without sets=, passes= or repeat=.")
    chosen = _native.Metrics(metrics, metrics_dir or "") if metrics is not None else None
    if chosen is not None:
        events = _with_metric_events(events, chosen)
    if (events is None) == (sets is None):
        raise ValueError("give the events, or sets=[...] of them: one of the two.")
    if sets is not None:
        if repeat is not None or emulate or passes:
            raise ValueError("sets=[...] counts one run on the host: without repeat=, emulate= or passes=.")
        counting = _native.Session("", _target(None, None, None, None, command, False), inherit, False, True, False,
                                   _set_lists(sets), int(switch_ms * 1e6))
        return CommandCounts(counting, counting.run_command())
    if passes:
        if repeat is not None or emulate:
            raise ValueError("passes=True runs the command once per pass: without repeat= or emulate=.")
        arrays, exit_codes, plan = _native.stat_passes(events, [str(word) for word in command], inherit)
        reading = types.SimpleNamespace(value_arrays=lambda: arrays, emulated=False, notes=[], summary=[])
        counts = Counts(reading)
        counts.exit_codes, counts.plan = exit_codes, plan
        return counts

    def once():
        session = _native.Session(events, _target(None, None, None, None, command, emulate), inherit, strict,
                                  skip_unsupported, False)
        return CommandCounts(session, session.run_command(), chosen)

    if repeat is None:
        return once()
    counted = [once() for _ in range(repeat)]
    runs = Runs(np.stack([counts.values for counts in counted]))
    runs.exit_codes = [counts.exit_code for counts in counted]
    return runs


def probe(events):
    """What this machine can count of an event list: {event: ""} where it can, else the reason and
    what to do, one sentence. Raises EventError / UnknownEventError for a list that does not parse."""
    return dict(_native.probe(events))


def why_not(event):
    """None where this machine can count the event; else the reason and what to do."""
    reasons = probe(event)
    reason = next(iter(reasons.values()), "")
    return reason or None


def emulator():
    """Whether commands can run on perfmon's emulated CPU here (stat(..., emulate=True)):
    {"available", "qemu", "plugin", "reason"} (reason: what is missing and what to do)."""
    return dict(_native.emulator())
