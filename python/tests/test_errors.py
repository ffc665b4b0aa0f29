# SPDX-License-Identifier: Apache-2.0
"""Every error a user can cause is an exception of its own class, with the library's sentence (what
went wrong and what to do) and the errno of the failed system call."""

import errno
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

import perfmonpy


def test_an_unknown_event_says_what_was_meant():
    with pytest.raises(perfmonpy.UnknownEventError) as raised:
        perfmonpy.counters("pagefaults")
    assert "did you mean 'page-faults'?" in str(raised.value)
    assert isinstance(raised.value, perfmonpy.EventError)
    assert isinstance(raised.value, ValueError)
    assert raised.value.kind == "UnknownEvent"


def test_a_malformed_event_is_an_event_error():
    with pytest.raises(perfmonpy.EventError) as raised:
        perfmonpy.counters("task-clock:zz")
    assert "task-clock" in str(raised.value)
    assert not isinstance(raised.value, perfmonpy.UnknownEventError)


def test_an_event_this_machine_cannot_count_is_refused_with_the_reason():
    reason = perfmonpy.why_not("instructions")
    if reason is None:
        pytest.skip("this machine counts instructions: nothing to refuse")
    with pytest.raises(perfmonpy.UnsupportedError) as raised:
        perfmonpy.counters("task-clock,instructions", skip_unsupported=False)
    assert str(raised.value) == reason
    # By default (as the C++ CounterSession and perfmon stat) kept, not counted, with the reason.
    with perfmonpy.counters("task-clock,instructions") as c:
        pass
    assert c.reasons == {"instructions": reason}
    assert not c.values["supported"][1]
    with pytest.raises(KeyError, match="was not counted"):
        c["instructions"]
    with pytest.raises(KeyError, match="was not counted"):
        c.counts["instructions"]
    with pytest.raises(KeyError, match="not one of the events counted: task-clock, instructions"):
        c["cycles"]
    assert c["task-clock"] > 0


def test_probe_says_what_can_be_counted_here_and_why_not():
    answers = perfmonpy.probe("task-clock,page-faults,instructions")
    assert answers["task-clock"] == "" and answers["page-faults"] == ""
    assert answers["instructions"] == (perfmonpy.why_not("instructions") or "")
    assert perfmonpy.why_not("task-clock") is None


def test_a_process_that_does_not_exist():
    with pytest.raises(perfmonpy.NoSuchTargetError) as raised:
        perfmonpy.counters("task-clock", pid=2**22)  # the largest id, never one a process has
    assert isinstance(raised.value, LookupError)
    assert "check the PID" in str(raised.value)
    assert raised.value.errno == errno.ESRCH


def test_a_command_that_cannot_start():
    with pytest.raises(perfmonpy.CommandError) as raised:
        perfmonpy.stat(["/nonexistent/program"], "task-clock")
    assert raised.value.errno == errno.ENOENT
    assert isinstance(raised.value, OSError)
    assert "cannot run '/nonexistent/program'" in str(raised.value)


def test_arguments_of_the_package_itself():
    with pytest.raises(ValueError, match="one target at a time"):
        perfmonpy.counters("task-clock", pid=1, tid=1)
    with pytest.raises(ValueError, match="list of words"):
        perfmonpy.stat("ls -l", "task-clock")
    with pytest.raises(ValueError, match="emulated CPU"):
        perfmonpy._counting._native.Session("task-clock", perfmonpy._counting._target(None, None, None, None, None, True),
                                            True, False, False, False)


def test_no_permission_names_the_setting_to_change():
    """As user nobody, at perf_event_paranoid 2 (Debian's default), another user's process cannot
    be counted: NoPermissionError (a PermissionError) with the sentence."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and util-linux's setpriv to run a test as nobody")
    with open("/proc/sys/kernel/perf_event_paranoid") as paranoid:
        if int(paranoid.read()) < 2:
            pytest.skip("perf_event_paranoid is below 2 here: nobody may count another user's process")
    package = os.path.dirname(os.path.dirname(perfmonpy.__file__))
    with tempfile.TemporaryDirectory() as stage:
        os.chmod(stage, 0o755)
        shutil.copytree(os.path.join(package, "perfmonpy"), os.path.join(stage, "perfmonpy"), symlinks=False)
        script = ("import perfmonpy\n"
                  "try:\n"
                  "    perfmonpy.counters('task-clock', pid=1)\n"
                  "except perfmonpy.NoPermissionError as error:\n"
                  "    print('refused', error.errno, isinstance(error, PermissionError), error)\n")
        ran = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                              sys.executable, "-c", script], capture_output=True, text=True,
                             env={"PYTHONPATH": stage, "PATH": os.environ.get("PATH", "")})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("refused 13 True ") or ran.stdout.startswith("refused 1 True "), ran.stdout
    assert "perf_event_paranoid" in ran.stdout or "CAP_PERFMON" in ran.stdout, ran.stdout


def test_a_source_tree_without_the_compiled_module_says_what_builds_it(tmp_path):
    """perfmonpy imported from its sources before the compiled half was built: one sentence naming
    the target, not Python's "partially initialized module". Nothing is written into the sources
    (no __pycache__: the .deb would ship it, and a root-owned one is left in a user's tree)."""
    sources = pathlib.Path(perfmonpy.__file__).resolve().parent.parent
    if any((sources / "perfmonpy").glob("_perfmonpy*.so")):
        pytest.skip(f"{sources} holds a compiled module: nothing to miss")
    tried = subprocess.run([sys.executable, "-c", "import perfmonpy"], capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(sources), "PYTHONDONTWRITEBYTECODE": "1"})
    assert tried.returncode != 0
    assert "cmake --build build --target _perfmonpy" in tried.stderr, tried.stderr
    assert "partially initialized" not in tried.stderr
