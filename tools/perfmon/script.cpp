// SPDX-License-Identifier: Apache-2.0
// perfmon script: one line per sample of a perf.data file, as perf script prints them; JSON lines
// with --json.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/script_output.hpp"
#include "perfmon/symbolizer.hpp"
#include "perfmon/target.hpp"
#include "recording_header.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis =
    "perfmon script [-i FILE] [-F FIELDS] [--comms|--pid|--tid NAMES] [-C CPUS] [--header | --header-only] [--json] "
    "[-G]";

struct ScriptOptions {
  std::string input = "perf.data";
  bool json = false;
  bool callchains = true;  // printed where the samples have them, as perf script does
  ScriptFields fields;
  bool cpu_asked = false;  // -F names cpu
  bool header = false, header_only = false;
  // --comms, --pid, --tid, -C: only the samples of these (each empty: all).
  std::vector<std::string> comms;
  std::vector<std::uint32_t> pids, tids;
  std::vector<int> cpus;
};

std::vector<std::uint32_t> ids_of(std::string_view text, std::string_view option) {
  std::vector<std::uint32_t> ids;
  for (const std::string& word : comma_list(text))
    ids.push_back(static_cast<std::uint32_t>(parse_long(word, option, 0, 1L << 30)));
  return ids;
}

template <class T>
bool listed(const std::vector<T>& list, const T& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

class Printer : public SampleHandler {
 public:
  Printer(const PerfDataReader& file, const ScriptOptions& options) : file_(file), options_(options) {
    for (std::size_t e = 0; e < file.events().size(); ++e) {
      const perf_event_attr& attr = file.events()[e].attr;
      const std::uint64_t copied = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      if (options.callchains && (attr.sample_type & copied) == copied)
        symbolizer_.unwind_user_stacks(e, attr.sample_regs_user);
    }
  }

  void record(const perf_event_header& record) override { symbolizer_.record(record); }

  void sample(std::size_t event, const Sample& sample) override {
    if (!listed(options_.pids, sample.pid) || !listed(options_.tids, sample.tid) ||
        !listed(options_.cpus, static_cast<int>(sample.cpu)) ||
        !listed(options_.comms, symbolizer_.spaces().command(sample.tid)))
      return;
    const PerfDataEvent& source = file_.events()[event];
    const bool kernel_leaf =
        sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    shown_.frames.clear();
    if (options_.callchains)
      Symbolizer::for_each_frame(
          symbolizer_.callchain(event, sample), kernel_leaf,
          [&](std::uint64_t address, bool kernel) { add_frame(sample.pid, address, kernel, true); });
    const bool with_chain = !shown_.frames.empty();
    if (!with_chain) add_frame(sample.pid, sample.ip, kernel_leaf, false);
    const perf_event_attr& attr = source.attr;
    shown_.command = symbolizer_.spaces().command(sample.tid);
    shown_.pid = sample.pid;
    shown_.tid = sample.tid;
    shown_.cpu = sample.cpu;
    shown_.time = sample.time;
    shown_.period = sample.period;
    shown_.ip = sample.ip;
    shown_.event = source.name;
    shown_.cpu_recorded = (attr.sample_type & PERF_SAMPLE_CPU) != 0;
    shown_.period_shown = (attr.sample_type & PERF_SAMPLE_PERIOD) && attr.type != PERF_TYPE_TRACEPOINT;
    shown_.with_chain = with_chain;
    const std::string line = options_.json ? format_script_json(shown_) : format_script_text(shown_, options_.fields);
    std::fwrite(line.data(), 1, line.size(), stdout);
  }

 private:
  // An address named, after the functions inlined at it where `inlined` (a call chain's). perf
  // script prints a frame in a file at its offset there, and any other at its address.
  void add_frame(std::uint32_t pid, std::uint64_t address, bool kernel, bool inlined) {
    const NamedAddress named = symbolizer_.name(pid, address, kernel);
    const bool in_file = !named.place.file.empty() && named.place.file.front() == '/';
    const std::uint64_t shown = in_file ? named.place.offset : address;
    // A caller's address is a return address: one byte back is the call, inside what inlined it.
    const SourcePlace* place =
        inlined && in_file
            ? symbolizer_.source(shown_.frames.empty() ? named : symbolizer_.name(pid, address - 1, kernel))
            : nullptr;
    if (place != nullptr)
      for (const std::string& function : place->inlined) shown_.frames.push_back({shown, function, 0, ""});
    shown_.frames.push_back(
        {shown, std::string(named.function != nullptr ? *named.function : ""), named.into, named.place.file});
  }

  const PerfDataReader& file_;
  const ScriptOptions& options_;
  Symbolizer symbolizer_;
  ScriptSample shown_;  // the sample at hand (its frames leaf first), as the shapes take it
};

}  // namespace

int run_script(std::span<char* const> args) {
  ScriptOptions o;
  std::vector<std::string> rest;
  std::vector<Option> options = {
      {'i', "input", "file", "the perf.data file to read (default perf.data)",
       [&](std::string_view v) { o.input = std::string(v); }},
      {0, "json", "", "print one JSON object per sample", [&](std::string_view) { o.json = true; }},
      {'G', "hide-call-graph", "", "print each sample's own address only, not its call chain",
       [&](std::string_view) { o.callchains = false; }},
      {'F', "fields", "fields",
       "the columns, as perf's -F: comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso (the frame comes "
       "with ip); '+pid,-time' changes the default ones",
       [&](std::string_view v) {
         o.fields = parse_script_fields(std::string(v));
         // A column asked for by name must be in the samples (the defaults show the CPU where it is).
         const std::string list = "," + std::string(v) + ",";
         o.cpu_asked = list.find(",cpu,") != std::string::npos || list.find(",+cpu,") != std::string::npos;
       }},
      {0, "header", "", "the file's header first: the machine, the command line and each event's attributes",
       [&](std::string_view) { o.header = true; }},
      {0, "header-only", "", "the file's header alone", [&](std::string_view) { o.header = o.header_only = true; }},
      {'c', "comms", "names", "only the samples of these commands (comma-separated)",
       [&](std::string_view v) { o.comms = comma_list(v); }},
      {0, "pid", "pids", "only the samples of these processes (comma-separated)",
       [&](std::string_view v) { o.pids = ids_of(v, "--pid"); }},
      {0, "tid", "tids", "only the samples of these threads (comma-separated)",
       [&](std::string_view v) { o.tids = ids_of(v, "--tid"); }},
      {'C', "cpu", "cpus", "only the samples taken on these CPUs (0-3,5)",
       [&](std::string_view v) {
         try {
           o.cpus = parse_cpu_list(v);
         } catch (const Error& error) {
           throw UsageError(std::string("-C: ") + error.what());
         }
       }},
  };
  auto check = [&, only_a_file = reads_a_file_only("script")](const std::vector<std::string>& words) {
    only_a_file(words);
    if (o.json && o.header) throw UsageError("--header prints text: give it without --json");
  };
  if (auto status = parse_command_line(args, "script", kSynopsis, options, rest, check)) return *status;
  try {
    const PerfDataReader file(o.input);
    for (const PerfDataEvent& event : file.events())
      if (o.cpu_asked && !(event.attr.sample_type & PERF_SAMPLE_CPU))
        throw Error(ErrorKind::InvalidArgument, "the samples of '" + printable(event.name) +
                                                    "' do not carry their CPU (perfmon record --sample-cpu records "
                                                    "it): leave cpu out of -F.");
    if (o.header) {
      const std::string header = format_recording_header(file, o.input);
      std::fwrite(header.data(), 1, header.size(), stdout);
      if (o.header_only) return 0;
    }
    if (!o.cpus.empty() && !(file.events().front().attr.sample_type & PERF_SAMPLE_CPU))
      throw Error(ErrorKind::InvalidArgument,
                  "the samples do not carry their CPU (perfmon record --sample-cpu records "
                  "it): leave out -C.");
    Printer printer(file, o);
    file.read(printer);
    return 0;
  } catch (const Error& error) {
    return report_error("script", error, 1);
  }
}

}  // namespace perfmon::cli
