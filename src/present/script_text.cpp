// SPDX-License-Identifier: Apache-2.0
// perf script's lines (perf 6.1).
#include <cinttypes>
#include <cstdio>

#include "perfmon/printable.hpp"
#include "perfmon/script_output.hpp"

namespace perfmon {

namespace {

// An address named: an inlined function, a function at an offset in its file, or the file alone.
void append_frame(std::string& text, const ScriptFrame& frame, std::uint64_t address) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%16" PRIx64 " ", address);
  text += hex;
  if (frame.file.empty()) {
    text += printable(frame.function) + " (inlined)\n";
  } else if (frame.function.empty()) {
    text += "[unknown] (" + printable(frame.file) + ")\n";
  } else {
    std::snprintf(hex, sizeof hex, "+0x%" PRIx64, frame.into);
    text += printable(frame.function) + hex + " (" + printable(frame.file) + ")\n";
  }
}

}  // namespace

std::string format_script_text(const ScriptSample& sample) {
  std::string text;
  char field[64];
  const std::string command = printable(sample.command.empty() ? ":" + std::to_string(sample.tid) : sample.command);
  // In 16 columns (%16s) unless a call chain follows.
  if (!sample.with_chain && command.size() < 16) text.append(16 - command.size(), ' ');
  text += command;
  std::snprintf(field, sizeof field, " %5u ", sample.tid);
  text += field;
  if (sample.cpu_recorded) {
    std::snprintf(field, sizeof field, "[%03u] ", sample.cpu);
    text += field;
  }
  char seconds[32];  // right-aligned in 12 columns, as perf script pads them (%12s)
  std::snprintf(seconds, sizeof seconds, "%llu.%06llu", static_cast<unsigned long long>(sample.time / 1'000'000'000),
                static_cast<unsigned long long>(sample.time % 1'000'000'000 / 1000));
  std::snprintf(field, sizeof field, "%12s: ", seconds);
  text += field;
  if (sample.period_shown) {
    std::snprintf(field, sizeof field, "%10llu ", static_cast<unsigned long long>(sample.period));
    text += field;
  }
  text += printable(sample.event) + ": ";
  if (sample.frames.empty()) return text + "\n";
  if (!sample.with_chain) {
    text += " ";  // perf script separates the address by one more space on this line
    append_frame(text, sample.frames.front(), sample.ip);
    return text;
  }
  text += "\n";
  for (const ScriptFrame& frame : sample.frames) {
    text += "\t";
    append_frame(text, frame, frame.address);
  }
  return text + "\n";
}

}  // namespace perfmon
