// SPDX-License-Identifier: Apache-2.0
// perfmon: one sample of a recording as perf script shows it (perf 6.1) — its columns, then its
// frame on the same line or its call chain below it, one frame a line — or as one JSON line.
//
//   perfmon::ScriptSample sample;  // filled from a recording's sample and its names
//   std::fputs(perfmon::format_script_text(sample).c_str(), stdout);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfmon {

// One frame: its address (its offset in its file, where it lies in one), the function and the
// offset into it, and the file. A function inlined at the frame has no file of its own.
struct ScriptFrame {
  std::uint64_t address = 0;
  std::string function;  // "" where no symbol covers it
  std::uint64_t into = 0;
  std::string file;  // "" for an inlined function
};

struct ScriptSample {
  std::string command;  // the thread's name; "" where the recording never named it
  std::uint32_t pid = 0, tid = 0, cpu = 0;
  std::uint64_t time = 0, period = 0, ip = 0;
  std::string event;
  bool cpu_recorded = false;  // the event recorded the CPU: a column for it
  bool period_shown = false;  // the event recorded its period and is not a tracepoint: a column for it
  // Leaf first: the call chain's frames (the functions inlined at each before it), or the sample's
  // own frame alone.
  std::vector<ScriptFrame> frames;
  bool with_chain = false;
};

// The columns of perf script's text (its -F): by default those perf shows, the CPU and the period
// where the sample has them.
struct ScriptFields {
  bool comm = true, pid = false, tid = true, cpu = true, time = true, period = true, event = true;
  bool ip = true, sym = true, symoff = true, dso = true;  // the frame: address, function+offset, (file)
};

// perf script -F: "comm,tid,time" (those columns alone) or "+pid,-time" (the defaults changed);
// throws perfmon::Error naming a field it does not know.
ScriptFields parse_script_fields(const std::string& text);

// perf script's text: the command (in 16 columns unless a call chain follows), tid, [cpu], time
// in seconds.microseconds, the period, the event; then the frame, or the chain and a blank line.
std::string format_script_text(const ScriptSample& sample, const ScriptFields& fields = {});
// One JSON object on one line: comm, pid, tid, cpu, time, event, period, ip, the sample's own
// function (sym, symoff, dso, offset: past the functions inlined at its address), and the chain.
std::string format_script_json(const ScriptSample& sample);

}  // namespace perfmon
