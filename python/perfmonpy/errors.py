# SPDX-License-Identifier: Apache-2.0
"""perfmonpy's exceptions: one class per cause, each with the library's sentence (what went wrong
and what to do), the errno of the failed system call (0 where none failed) and the library's kind.

    PerfmonError
    ├── EventError (ValueError)            an event string that is malformed, or its terms wrong
    │   └── UnknownEventError              a name no source of this machine knows ("did you mean")
    ├── UnsupportedError                   this machine cannot count it (no PMU, a feature missing)
    │   └── OtherCpuModelError             an event of another CPU model than this machine's
    ├── NoPermissionError (PermissionError) perf_event_paranoid, capabilities or ownership forbid it
    ├── NoSuchTargetError (LookupError)    the process, thread, CPU or cgroup does not exist
    ├── LimitError (OSError)               open files, counters, memory, group size
    ├── CommandError (OSError)             the command to measure could not be started
    ├── PerfmonOSError (OSError)           any other failed system call
    └── InvalidArgumentError (ValueError)  a value perfmon cannot use (a malformed CPU list, ...)
"""


class PerfmonError(Exception):
    """Something perfmon could not do; str() is its sentence."""

    def __init__(self, sentence, errno=0, kind=""):
        super().__init__(sentence)
        self.sentence = sentence
        self.errno = errno
        self.kind = kind

    def __str__(self):
        return self.sentence


class EventError(PerfmonError, ValueError):
    pass


class UnknownEventError(EventError):
    pass


class UnsupportedError(PerfmonError):
    pass


class OtherCpuModelError(UnsupportedError):
    pass


class NoPermissionError(PerfmonError, PermissionError):
    pass


class NoSuchTargetError(PerfmonError, LookupError):
    pass


class LimitError(PerfmonError, OSError):
    pass


class CommandError(PerfmonError, OSError):
    pass


class PerfmonOSError(PerfmonError, OSError):
    pass


class InvalidArgumentError(PerfmonError, ValueError):
    pass


_BY_KIND = {
    "InvalidEvent": EventError,
    "UnknownEvent": UnknownEventError,
    "Unsupported": UnsupportedError,
    "OtherCpuModel": OtherCpuModelError,
    "Permission": NoPermissionError,
    "NoSuchTarget": NoSuchTargetError,
    "Limit": LimitError,
    "InvalidArgument": InvalidArgumentError,
    "CommandFailed": CommandError,
    "System": PerfmonOSError,
}


def _raise_from_library(sentence, errno, kind):
    """The exception for a perfmon::Error (called by the compiled module)."""
    return _BY_KIND.get(kind, PerfmonOSError)(sentence, errno, kind)
