# SPDX-License-Identifier: Apache-2.0
"""The examples of README.md and docs/*.md, run as a reader would type them (issue 46).

Every fenced block of a language a reader runs (sh, console, python, cpp, c) carries a marker on
the line before it, so that no doc gains an example the suite does not know of:

  <!-- example -->            the suite runs it (a C++ or Python fragment inside a program that
                              defines work(); C++ without main() inside main())
  <!-- example needing a PMU --> run where the machine has a hardware PMU (cycles counts), else
                              skipped with that reason printed
  <!-- not run: WHY -->       it is not run, and WHY says why (Ctrl-C, another machine, a fragment)
  <!-- example output -->     (before any block) the lines the previous example must print, in
                              order: numbers and runs of blanks may differ, "..." skips lines

A console block's "$ " lines are its commands and its other lines their output, checked as an
output block is. The examples of one file run in order in one directory, where `build` is the
build tree, `perfmon` and the example programs are on PATH, and ./my-program and the other
names in STAND_INS stand for the reader's own program (perfmon-workload).

  doc_examples.py --repo DIR --build DIR --library DIR [--list] [FILE...]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

RUN_LANGUAGES = {"sh", "console", "python", "cpp", "c"}
MARKER = re.compile(r"^<!--\s*(example output|example needing a PMU|example|not run:\s*(?P<why>.+?))\s*-->$")
NUMBER = re.compile(r"[-+]?\d[\d,.]*")
TIMEOUT_S = 120
# The reader's own programs, as the docs name them: perfmon-workload stands for each.
STAND_INS = ("my-program", "program", "program-before", "program-after", "my-benchmark", "solver", "app")

PYTHON_PRELUDE = """\
import os
import perfmonpy
def work():
    for _ in range(1000):
        os.getppid()
"""

CPP_PRELUDE = """\
#include <unistd.h>
#include <cstdio>
#include <perfmon/perfmon.hpp>
static void work() {
  for (int i = 0; i < 1000; ++i) getppid();
}
"""


class Block:
    def __init__(self, path, line, language, marker, why, text):
        self.path, self.line, self.language = path, line, language
        self.marker, self.why, self.text = marker, why, text

    def where(self):
        return f"{self.path}:{self.line}"


def blocks_of(path):
    lines = pathlib.Path(path).read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = re.match(r"^(```+)(\S*)", lines[i])
        if not fence:
            i += 1
            continue
        start, ticks, language = i, fence.group(1), fence.group(2)
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(ticks):
            body.append(lines[i])
            i += 1
        i += 1
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marked = MARKER.match(lines[previous].strip()) if previous >= 0 else None
        marker = None if not marked else "not run" if marked.group("why") else marked.group(1)
        blocks.append(Block(path, start + 1, language, marker, marked and marked.group("why"), "\n".join(body) + "\n"))
    return blocks


def normalised(line):
    return " ".join(NUMBER.sub("#", line).split())


def check_output(expected_lines, output, where):
    """Each expected line, in order, among the output's lines (numbers and blanks aside)."""
    got = [normalised(line) for line in output.splitlines()]
    at = 0
    for expected in expected_lines:
        wanted = normalised(expected)
        if not wanted or wanted == "...":
            continue
        while at < len(got) and got[at] != wanted:
            at += 1
        if at == len(got):
            return f"{where}: the example does not print, in order, the line shown:\n  {expected}\nit printed:\n{output}"
        at += 1
    return None


class Runner:
    def __init__(self, args, workdir):
        self.args, self.workdir = args, workdir
        build = pathlib.Path(args.build)
        self.env = dict(os.environ)
        # python3 is the Python the build made perfmonpy for (another may come first on PATH).
        (workdir / "bin").mkdir()
        (workdir / "bin/python3").symlink_to(args.python)
        self.env["PATH"] = os.pathsep.join([str(workdir / "bin"), str(build / "tools/perfmon"), str(build / "examples"),
                                            str(build / "tests"), self.env.get("PATH", "")])
        self.env["PYTHONPATH"] = str(build / "python")
        (workdir / "build").symlink_to(build.resolve())
        for name in STAND_INS:
            shutil.copy(build / "examples/perfmon-workload", workdir / name)

    def run(self, command, where):
        try:
            done = subprocess.run(command, cwd=self.workdir, env=self.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, f"{where}: the example ran past {TIMEOUT_S} s"
        if done.returncode != 0:
            return done.stdout, f"{where}: the example exited {done.returncode}:\n{done.stdout}"
        return done.stdout, None

    def compile(self, block, compiler, standard, source):
        suffix = ".cpp" if compiler == "c++" else ".c"
        name = f"example_{block.line}"
        (self.workdir / (name + suffix)).write_text(source)
        library = self.args.library
        command = [compiler, standard, "-I", str(pathlib.Path(self.args.repo).resolve() / "include"), name + suffix,
                   "-o", name, "-L", library, "-lperfmon", f"-Wl,-rpath,{library}", "-pthread"]
        output, failure = self.run(command, block.where() + " (compiled)")
        if failure:
            return output, failure
        return self.run([f"./{name}"], block.where())

    def example(self, block):
        """Runs one example; returns (output, failure)."""
        text = block.text
        if block.language in ("sh", "console"):
            script = text
            if block.language == "console":
                script = "\n".join(line[2:] for line in text.splitlines() if line.startswith("$ ")) + "\n"
            (self.workdir / "example.sh").write_text("set -eo pipefail\n" + script)
            return self.run(["bash", "example.sh"], block.where())
        if block.language == "python":
            source = PYTHON_PRELUDE + text
            (self.workdir / "example.py").write_text(source)
            return self.run([self.args.python, "example.py"], block.where())
        if block.language == "cpp":
            source = text if "int main" in text else CPP_PRELUDE + "int main() {\n" + text + "  return 0;\n}\n"
            if "int main" in text and "work()" in text and "void work" not in text:
                source = CPP_PRELUDE + text
            return self.compile(block, "c++", "-std=c++20", source)
        return self.compile(block, "cc", "-std=c11", text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--library", required=True, help="the directory of libperfmon.so")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--list", action="store_true", help="list the blocks and their markers, run nothing")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    repo = pathlib.Path(args.repo)
    files = args.files or [str(repo / "README.md")] + sorted(str(p) for p in (repo / "docs").glob("*.md"))
    failures, ran, not_run, checked, skipped = [], 0, 0, 0, 0
    perfmon = pathlib.Path(args.build) / "tools/perfmon/perfmon"
    counted = subprocess.run([str(perfmon), "stat", "-x,", "-e", "cycles", "true"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    has_pmu = counted.returncode == 0 and "<not supported>" not in counted.stderr
    for path in files:
        blocks = blocks_of(path)
        shown = os.path.relpath(path, repo)
        for block in blocks:
            block.path = shown
        if args.list:
            for block in blocks:
                if block.language in RUN_LANGUAGES or block.marker:
                    print(f"{block.where()} {block.language or '-'} {block.marker or 'UNMARKED'} {block.why or ''}")
            continue
        with tempfile.TemporaryDirectory(prefix="perfmon-doc-") as workdir:
            runner = Runner(args, pathlib.Path(workdir))
            last_output = None
            for block in blocks:
                if block.marker == "example output":
                    if last_output is None:
                        failures.append(f"{block.where()}: an output block follows no example that ran")
                        continue
                    failure = check_output(block.text.splitlines(), last_output, block.where())
                    checked += 1
                    if failure:
                        failures.append(failure)
                    continue
                if block.language not in RUN_LANGUAGES:
                    continue
                if block.marker is None:
                    failures.append(f"{block.where()}: a ```{block.language} block is neither an example the suite "
                                    "runs (<!-- example --> before it) nor said not to be (<!-- not run: why -->)")
                    continue
                if block.marker == "not run":
                    not_run += 1
                    last_output = None
                    continue
                if block.marker == "example needing a PMU" and not has_pmu:
                    print(f"{block.where()}: skipped: it needs a hardware PMU, and cycles cannot be counted here")
                    skipped += 1
                    last_output = None
                    continue
                output, failure = runner.example(block)
                ran += 1
                last_output = output
                if failure:
                    failures.append(failure)
                    continue
                if block.language == "console":
                    shown_output = [line for line in block.text.splitlines() if not line.startswith("$ ")]
                    failure = check_output(shown_output, output, block.where())
                    if failure:
                        failures.append(failure)
    if args.list:
        return 0
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"doc examples: {ran} run, {checked} outputs checked, {skipped} skipped (no PMU), {not_run} not run "
          f"(each says why), {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
