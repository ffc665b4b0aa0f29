// SPDX-License-Identifier: Apache-2.0
// perf script's lines (perf 6.1).
#include <cinttypes>
#include <cstdio>

#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/script_output.hpp"

namespace perfmon {

namespace {

// An address named: an inlined function, a function at an offset in its file, or the file alone;
// the parts that `fields` asks for, as perf's sample__fprintf_sym prints them.
void append_frame(std::string& text, const ScriptFrame& frame, std::uint64_t address, const ScriptFields& fields) {
  char hex[32];
  if (fields.ip) {
    std::snprintf(hex, sizeof hex, "%16" PRIx64, address);
    text += hex;
  }
  if (fields.sym) {
    text += fields.ip ? " " : "";
    text += frame.function.empty() ? "[unknown]" : printable(frame.function);
    if (frame.file.empty()) {
      text += " (inlined)";
    } else if (fields.symoff && !frame.function.empty()) {
      std::snprintf(hex, sizeof hex, "+0x%" PRIx64, frame.into);
      text += hex;
    }
  }
  if (fields.dso && !frame.file.empty()) text += " (" + printable(frame.file) + ")";
  text += "\n";
}

}  // namespace

ScriptFields parse_script_fields(const std::string& text) {
  const bool changes = !text.empty() && (text.front() == '+' || text.front() == '-');
  ScriptFields fields;
  if (!changes) fields = {false, false, false, false, false, false, false, false, false, false, false};
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    bool on = true;
    if (changes && !name.empty() && (name.front() == '+' || name.front() == '-')) {
      on = name.front() == '+';
      name.erase(0, 1);
    }
    bool* field = name == "comm"     ? &fields.comm
                  : name == "pid"    ? &fields.pid
                  : name == "tid"    ? &fields.tid
                  : name == "cpu"    ? &fields.cpu
                  : name == "time"   ? &fields.time
                  : name == "period" ? &fields.period
                  : name == "event"  ? &fields.event
                  : name == "ip"     ? &fields.ip
                  : name == "sym"    ? &fields.sym
                  : name == "symoff" ? &fields.symoff
                  : name == "dso"    ? &fields.dso
                                     : nullptr;
    if (field == nullptr)
      throw Error(ErrorKind::InvalidArgument,
                  "-F takes comm, pid, tid, cpu, time, period, event, ip, sym, symoff and dso, such as "
                  "'comm,tid,time,ip,sym' (or '+pid,-time' to change the default columns); not '" +
                      printable(name) + "'.");
    *field = on;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (fields.symoff) fields.sym = true;  // perf: the offset is the symbol's
  return fields;
}

std::string format_script_text(const ScriptSample& sample, const ScriptFields& fields) {
  std::string text;
  char field[64];
  if (fields.comm) {
    const std::string command = printable(sample.command.empty() ? ":" + std::to_string(sample.tid) : sample.command);
    // In 16 columns (%16s) unless a call chain follows.
    if (!(sample.with_chain && fields.ip) && command.size() < 16) text.append(16 - command.size(), ' ');
    text += command + " ";
  }
  if (fields.pid && fields.tid)
    std::snprintf(field, sizeof field, "%5u/%-5u ", sample.pid, sample.tid);
  else if (fields.pid || fields.tid)
    std::snprintf(field, sizeof field, "%5u ", fields.pid ? sample.pid : sample.tid);
  else
    field[0] = '\0';
  text += field;
  if (fields.cpu && sample.cpu_recorded) {
    std::snprintf(field, sizeof field, "[%03u] ", sample.cpu);
    text += field;
  }
  char seconds[32];  // right-aligned in 12 columns, as perf script pads them (%12s)
  std::snprintf(seconds, sizeof seconds, "%llu.%06llu", static_cast<unsigned long long>(sample.time / 1'000'000'000),
                static_cast<unsigned long long>(sample.time % 1'000'000'000 / 1000));
  if (fields.time) {
    std::snprintf(field, sizeof field, "%12s: ", seconds);
    text += field;
  }
  if (fields.period && sample.period_shown) {
    std::snprintf(field, sizeof field, "%10llu ", static_cast<unsigned long long>(sample.period));
    text += field;
  }
  if (fields.event) text += printable(sample.event) + ": ";
  // The frame or the chain comes with the address, as perf prints them (under its ip field).
  if (sample.frames.empty() || !fields.ip) return text + "\n";
  if (!sample.with_chain) {
    text += " ";  // perf script separates the address by one more space on this line
    append_frame(text, sample.frames.front(), sample.ip, fields);
    return text;
  }
  text += "\n";
  for (const ScriptFrame& frame : sample.frames) {
    if (frame.file.empty() && !fields.sym) continue;  // an inlined function is a name only
    text += "\t";
    append_frame(text, frame, frame.address, fields);
  }
  return text + "\n";
}

}  // namespace perfmon
