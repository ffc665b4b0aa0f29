# SPDX-License-Identifier: Apache-2.0
"""perfmonpy's costs beside the C++ API's and the usual ways, alternately in one run (docs/benchmarks.md):

1. `with counters(...)` around an empty block, against the same region through the C++ API
   (read_bench's BM_SessionRegion: reset, start, stop, one read of the same group) and against a
   bare Python function call.
2. A perf.data file of SAMPLES samples with call chains read into numpy arrays, against
   `perfmon report` of the same file and against `perf script` piped into Python's own parsing of
   its text (the usual way today).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_cpp.py [build-dir] [rounds] [samples]
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import perfmonpy

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
GROUP = "{task-clock,page-faults,context-switches,minor-faults}"


def cpp_region_ns():
    shown = subprocess.run([f"{build}/bench/read_bench", "--benchmark_filter=BM_SessionRegion$",
                            "--benchmark_min_time=0.3", "--benchmark_format=csv"], capture_output=True, text=True,
                           check=True).stdout
    line = next(line for line in shown.splitlines() if line.startswith('"BM_SessionRegion"'))
    return float(line.split(",")[2])  # real_time, ns


def python_ns(statement, number=50000, **names):
    return timeit.timeit(statement, number=number, globals=names) / number * 1e9


def median_table(results, digits=1):
    for name, values in results.items():
        print(f"  {name:58s} median {statistics.median(values):9.{digits}f}  "
              f"(min {min(values):.{digits}f}, max {max(values):.{digits}f})")


counting = perfmonpy.counters(GROUP, inherit=False)


def nothing():
    pass


region = {"cpp": [], "py": [], "call": [], "index": []}
for _ in range(rounds):
    region["cpp"].append(cpp_region_ns())
    region["py"].append(python_ns("with c:\n    pass", c=counting))
    region["call"].append(python_ns("f()", f=nothing))
    region["index"].append(python_ns("c.counts; c._counts = None", number=20000, c=counting))
print(f"== an empty region, ns ({rounds} alternating rounds; {GROUP}, inherit off)")
median_table({"C++: reset, start, stop, read (BM_SessionRegion)": region["cpp"],
              "Python: with counters(...): pass": region["py"],
              "Python: a bare function call": region["call"],
              "Python: the reading as Counts (c.counts, once a region)": region["index"]})
added = [py - cpp for py, cpp in zip(region["py"], region["cpp"])]
print(f"  the binding adds {statistics.median(added):.0f} ns a region over the C++ API (median of the rounds' differences)")

perfmon = f"{build}/tools/perfmon/perfmon"
worker = f"{build}/tests/perfmon-test-worker"
with tempfile.TemporaryDirectory() as scratch:
    path = os.path.join(scratch, "perf.data")
    subprocess.run([perfmon, "record", "-q", "-g", "-m", "4096", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o",
                    path, "--", worker, "tree-getppid", str(samples // 4)], check=True)
    data = perfmonpy.read_perf_data(path)
    print(f"== {os.path.getsize(path) / 1e6:.0f} MB, {len(data)} samples ({data.lost} lost), "
          f"{len(data.frame_ips)} frames, s ({rounds} alternating rounds)")

    def perf_script_parsed():
        # The usual way: perf script's text, parsed line by line into lists.
        script = subprocess.Popen(["perf", "script", "-i", path, "-F", "comm,tid,time,ip,sym"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        header = re.compile(r"^\s*(\S+)\s+(\d+)\s+([\d.]+):")
        rows, frames = [], []
        for line in script.stdout:
            found = header.match(line)
            if found:
                rows.append((found.group(1), int(found.group(2)), float(found.group(3))))
            elif line.strip():
                words = line.split()
                frames.append((int(words[0], 16), words[1] if len(words) > 1 else ""))
        script.wait()
        return len(rows)

    times = {"numpy": [], "numpy, no chains": [], "report": [], "report -g": [], "script": []}
    for _ in range(rounds):
        began = time.perf_counter()
        perfmonpy.read_perf_data(path)
        times["numpy"].append(time.perf_counter() - began)
        began = time.perf_counter()
        perfmonpy.read_perf_data(path, callchains=False)
        times["numpy, no chains"].append(time.perf_counter() - began)
        began = time.perf_counter()
        subprocess.run([perfmon, "report", "-i", path, "--sort", "comm,dso,sym"], stdout=subprocess.DEVNULL,
                       check=True)
        times["report"].append(time.perf_counter() - began)
        began = time.perf_counter()
        subprocess.run([perfmon, "report", "-i", path, "--sort", "comm,dso,sym", "-g"], stdout=subprocess.DEVNULL,
                       check=True)
        times["report -g"].append(time.perf_counter() - began)
        if rounds <= 3 or len(times["script"]) < 3:  # perf script takes tens of seconds: three rounds
            began = time.perf_counter()
            assert perf_script_parsed() == len(data)
            times["script"].append(time.perf_counter() - began)
    median_table({"read_perf_data (call chains and names)": times["numpy"],
                  "read_perf_data(callchains=False)": times["numpy, no chains"],
                  "perfmon report --sort comm,dso,sym -g (a process)": times["report -g"],
                  "perfmon report --sort comm,dso,sym (a process)": times["report"],
                  "perf script | Python's parsing of its lines (3 rounds)": times["script"]}, digits=3)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"  read_perf_data / perfmon report -g: {median['numpy'] / median['report -g']:.2f}; "
          f"read_perf_data(callchains=False) / perfmon report: {median['numpy, no chains'] / median['report']:.2f}; "
          f"perf script parsed / read_perf_data: {median['script'] / median['numpy']:.0f}")
