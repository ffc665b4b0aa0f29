"""Counting from Python: counters(...) around a block or a function, measure() over repeated runs,
stat() of a command, probe() of what this machine can count."""

import functools

import numpy as np

from . import _perfmonpy as _native

# One row an event of a reading.
#   value     the count the kernel accumulated while the event was on the PMU
#   enabled   ns the event was enabled; running: ns it was counting (less when multiplexed)
#   scaled    value * enabled / running: the count over the whole enabled time
#   stderr    the standard error of scaled (0: exact; NaN: unknown, without error_bars)
#   supported False where this machine cannot count the event (reasons say why)
_COLUMNS = [("value", np.uint64), ("enabled", np.uint64), ("running", np.uint64), ("scaled", np.float64),
            ("stderr", np.float64), ("supported", np.bool_)]


def _table(names, counts, estimates, supported):
    width = max([len(name) for name in names] + [1])
    table = np.zeros(len(names), dtype=[("event", f"U{width}")] + _COLUMNS)
    table["event"] = names
    table["value"], table["enabled"], table["running"] = counts[:, 0], counts[:, 1], counts[:, 2]
    table["scaled"], table["stderr"] = estimates[:, 0], estimates[:, 1]
    table["supported"] = supported
    return table


def _count_of(row):
    """An int where the event counted all the time it was enabled; else the float estimate."""
    if row["running"] == row["enabled"]:
        return int(row["value"])
    return float(row["scaled"])


def _target(pid, tid, cpus, cgroup, command, emulate):
    target = _native.TargetSpec()
    chosen = [name for name, value in (("pid", pid), ("tid", tid), ("cgroup", cgroup), ("command", command))
              if value is not None]
    if len(chosen) > 1:
        raise ValueError(f"count one target at a time, not {' and '.join(chosen)}.")
    if command is not None:
        target.kind, target.command = "command", [str(word) for word in command]
    elif pid is not None:
        target.kind, target.id = "process", int(pid)
    elif tid is not None:
        target.kind, target.id = "thread", int(tid)
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


class Counts:
    """What a measurement counted: counts["page-faults"] (an int where the event counted all the
    time, else the float estimate), .values (a numpy structured array, one row an event), and what
    perfmon did and saw (.notes, .summary, .reasons for events it could not count)."""

    def __init__(self, session):
        self._session = session
        self.values = _table(session.names, *session.value_arrays())
        self.emulated = session.emulated
        self.notes = session.notes
        self.summary = session.summary

    @property
    def names(self):
        return list(self.values["event"])

    @property
    def reasons(self):
        """Why each event this machine cannot count is not counted, by name."""
        return {name: reason for name, reason in zip(self._session.names, self._session.unsupported_reasons) if reason}

    def __getitem__(self, event):
        if isinstance(event, int):
            return _count_of(self.values[event])
        for row in self.values:
            if row["event"] == event:
                if not row["supported"]:
                    raise KeyError(f"'{event}' was not counted: {self.reasons.get(event, '')}")
                return _count_of(row)
        raise KeyError(f"'{event}' is not one of the events counted: {', '.join(self.names)}.")

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


class counters(_native.Session):
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
    CPU). An event this machine cannot count raises UnsupportedError naming why, unless
    skip_unsupported=True (then it is kept, not counted, and .reasons says why). strict=True
    refuses a measurement the kernel would multiplex; error_bars=True keeps what stderr needs
    (read while it runs, with .read()).

    Entering resets and starts the counters, leaving stops and reads them, both in the compiled
    module: a block costs the C++ API's region and little more (docs/benchmarks.md).
    """

    def __init__(self, events, *, pid=None, tid=None, cpus=None, cgroup=None, inherit=True, strict=False,
                 skip_unsupported=False, error_bars=False):
        super().__init__(events, _target(pid, tid, cpus, cgroup, None, False), inherit, strict, skip_unsupported,
                         error_bars)
        self._made = (-1, None)  # the Counts of which reading

    def read(self):
        """Reads the counters now, running or not: the counts so far."""
        _native.Session.read(self)
        return self.counts

    @property
    def counts(self):
        """The last reading, as Counts."""
        if self._made[0] != self.readings:
            self._made = (self.readings, Counts(self))
        return self._made[1]

    def __getitem__(self, event):
        """The last count of an event (its name as written, or its index): an int where it counted
        all the time, else the float estimate."""
        return self.count(event)

    @property
    def values(self):
        return self.counts.values

    @property
    def reasons(self):
        return self.counts.reasons

    def __call__(self, function):
        return _Counted(function, self)


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
    """Counts of a command: also its exit code (128 + signal where a signal ended it) and pid."""

    def __init__(self, session, exit_code):
        super().__init__(session)
        self.exit_code = exit_code
        self.pid = session.command_pid


def stat(command, events, *, emulate=False, inherit=True, strict=False, skip_unsupported=False):
    """Runs a command (a list of words, as for subprocess) to its end, counting it from its exec:
    CommandCounts. emulate=True runs it on perfmon's emulated CPU (QEMU with perfmon's plugin),
    whose instructions and branches are counted exactly where the machine has no PMU; its counts
    are marked emulated. Other Python threads run while it does."""
    if isinstance(command, str):
        raise ValueError("give the command as a list of words, as for subprocess: ['ls', '-l'].")
    session = _native.Session(events, _target(None, None, None, None, command, emulate), inherit, strict,
                              skip_unsupported, False)
    exit_code = session.run_command()
    return CommandCounts(session, exit_code)


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
