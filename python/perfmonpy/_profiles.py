# SPDX-License-Identifier: Apache-2.0
"""perf.data files (perfmon's or perf's) as numpy arrays: one row a sample, its call chain's frames
in one flat array, and the tables the rows point into."""

import math
import os

import numpy as np

from . import _perfmonpy as _native


class PerfData:
    """A perf.data file read whole.

    samples        structured array, one row a sample, in the order they happened: time (ns), pid,
                   tid, cpu, event (into .events), mapping (into .mappings; -1 where ip is in
                   none), ip, period, symbol (into .symbols; -1 where no symbol covers ip), dso
                   (into .dsos), comm (into .comms), chain_begin and chain_length (the sample's
                   frames in frame_ips / frame_symbols, leaf first)
    frame_ips      every sample's call chain, one after the other (no PERF_CONTEXT_* markers)
    frame_symbols  the symbol of each frame (-1: none)
    symbols        structured array: name, dso (into .dsos)
    mappings       structured array, the mappings samples fell in: pid (-1: the kernel's), dso,
                   start, end (addresses), offset (the file offset at start): a sample's offset
                   in its file is ip - start + offset
    dsos, comms, events   lists of str
    lost           the samples the kernel dropped (the file's PERF_RECORD_LOST_SAMPLES)
    lost_records   the records of any kind a full ring dropped (PERF_RECORD_LOST: samples and
                   side-band records alike)
    hostname, build_ids   what the file's header says
    changed_files  a sentence for each file rebuilt since the recording (its build id another):
                   its samples are left unnamed rather than named by code that never ran
    """

    def __init__(self, path, *, callchains=True, symbols=True, threads=0):
        if not 0 <= int(threads) <= 64:
            raise ValueError(f"threads is from 1 to 64 (0: chosen for the file, as perfmon report does), "
                             f"not {threads}.")
        read = _native.read_perf_data(str(path), callchains, symbols, int(threads))
        self.path = str(path)
        self.samples = read["samples"]
        self.frame_ips = read["frame_ips"]
        self.frame_symbols = read["frame_symbols"]
        self.mappings = read["mappings"]
        self.events = list(read["events"])
        self.dsos = list(read["dsos"])
        self.comms = list(read["comms"])
        names = [name for name, _ in read["symbols"]]
        width = max([len(name) for name in names] + [1])
        self.symbols = np.zeros(len(names), dtype=[("name", f"U{width}"), ("dso", np.int32)])
        self.symbols["name"] = names
        self.symbols["dso"] = [dso for _, dso in read["symbols"]]
        self.lost = read["lost"]
        self.lost_records = read["lost_records"]
        self.changed_files = list(read["changed_files"])
        self.hostname = read["hostname"]
        self.build_ids = dict(read["build_ids"])

    def __len__(self):
        return len(self.samples)

    def callchain(self, index):
        """Sample `index`'s frames, leaf first: (ips, symbols)."""
        row = self.samples[index]
        begin, end = int(row["chain_begin"]), int(row["chain_begin"]) + int(row["chain_length"])
        return self.frame_ips[begin:end], self.frame_symbols[begin:end]

    def symbol_name(self, symbol):
        return "[unknown]" if symbol < 0 else str(self.symbols["name"][symbol])

    def rows(self, sort=("comm", "dso", "sym"), event=None):
        """The report's rows without call chains, as perfmon report's table shows them: one dict a
        row (overhead in percent of the event's period, samples, period, and the keys sorted by:
        comm, pid, dso (its short name, as perf shows it), symbol),
        the largest first. sort: any of "comm", "pid", "dso", "sym"; event: a name of .events (the
        first by default). A sample that no symbol covers is "[unknown]"."""
        columns = {"comm": "comm", "pid": "pid", "dso": "dso", "sym": "symbol"}
        for key in sort:
            if key not in columns:
                raise ValueError(f"sort by {', '.join(columns)}, not '{key}'.")
        chosen = self.samples
        if len(self.events) > 1 or event is not None:
            index = self.events.index(event) if event is not None else 0
            chosen = chosen[chosen["event"] == index]
        if len(chosen) == 0:
            return []
        # The keys as one integer a sample (each key's values below its table's size), grouped by
        # one sort of a million integers rather than of a million tuples.
        limits = {"comm": len(self.comms), "pid": int(chosen["pid"].max()) + 1, "dso": len(self.dsos) + 1,
                  "sym": len(self.symbols) + 1}
        keys = [chosen[columns[key]].astype(np.int64) + (key in ("dso", "sym")) for key in sort]
        if math.prod(limits[key] for key in sort) < 2**62:
            combined = np.zeros(len(chosen), dtype=np.int64)
            for key, values in zip(sort, keys):
                combined = combined * limits[key] + values
            _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
        else:  # too many values to fit one integer
            _, first, inverse = np.unique(np.stack(keys, axis=1), axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        unique = np.stack([chosen[columns[key]][first].astype(np.int64) for key in sort], axis=1)
        periods = np.bincount(inverse, weights=chosen["period"].astype(np.float64), minlength=len(unique))
        counts = np.bincount(inverse, minlength=len(unique))
        total = periods.sum()
        rows = []
        for group in range(len(unique)):
            row = {"overhead": 100.0 * periods[group] / total if total else 0.0, "samples": int(counts[group]),
                   "period": int(periods[group])}
            for key, value in zip(sort, unique[group]):
                if key == "comm":
                    row["comm"] = self.comms[value]
                elif key == "pid":
                    row["pid"] = int(value)
                elif key == "dso":
                    row["dso"] = self.dsos[value] if value >= 0 else "[unknown]"
                else:
                    row["symbol"] = self.symbol_name(value)
            rows.append(row)
        # As perf orders them: the largest first, ties by the keys' text (a file by the name shown,
        # then its whole path).
        def tie_key(row, key):
            value = row[columns[key]]
            return (_short_name(value), value) if key == "dso" else value

        rows.sort(key=lambda row: (-row["period"],) + tuple(tie_key(row, key) for key in sort))
        for row in rows:
            if "dso" in row:
                row["dso"] = _short_name(row["dso"])
        return rows


def _short_name(path):
    """The name perf shows for a mapped file: its last component ("[kernel.kallsyms]" whole)."""
    return path if path.startswith("[") else os.path.basename(path)


def read_perf_data(path, *, callchains=True, symbols=True, threads=0):
    """Reads a perf.data file (perfmon record's or perf record's) into a PerfData. Raises
    PerfmonOSError for a file that cannot be read, naming the offset of a corrupt record.
    callchains=False leaves the frames out; symbols=False leaves names out (faster). threads: how
    many read it at once (0: as perfmon report chooses, more for a large file whose samples land in
    many places); the arrays are the same whatever the number. The GIL is let go meanwhile."""
    return PerfData(path, callchains=callchains, symbols=symbols, threads=threads)
