// perfmon script: one line per sample of a perf.data file, as perf script prints them; JSON lines
// with --json.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/symbolizer.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis = "perfmon script [-i FILE] [--json] [-G]";

struct ScriptOptions {
  std::string input = "perf.data";
  bool json = false;
  bool callchains = true;  // printed where the samples have them, as perf script does
};

// One frame of a sample as perf script prints it: the address (in its file where it lies in one),
// the function and offset, and the file; the functions inlined there first, marked "(inlined)".
struct ScriptFrame {
  std::uint64_t address;
  std::string function;  // "" where no symbol covers it
  std::uint64_t into;
  std::string file;  // "" for an inlined function
};

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
    const PerfDataEvent& source = file_.events()[event];
    const bool kernel_leaf =
        sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    frames_.clear();
    if (options_.callchains)
      Symbolizer::for_each_frame(
          symbolizer_.callchain(event, sample), kernel_leaf,
          [&](std::uint64_t address, bool kernel) { add_frame(sample.pid, address, kernel, true); });
    const bool with_chain = !frames_.empty();
    if (!with_chain) add_frame(sample.pid, sample.ip, kernel_leaf, false);
    const std::string& command = symbolizer_.spaces().command(sample.tid);

    if (options_.json) {
      nlohmann::ordered_json line = {{"comm", command},         {"pid", sample.pid},   {"tid", sample.tid},
                                     {"cpu", sample.cpu},       {"time", sample.time}, {"event", source.name},
                                     {"period", sample.period}, {"ip", sample.ip}};
      // The sample's own function, as the text without a chain names it: past the functions
      // inlined at its address, which the chain lists as frames of their own.
      const ScriptFrame& leaf = *std::find_if(frames_.begin(), frames_.end() - 1,
                                              [](const ScriptFrame& frame) { return !frame.file.empty(); });
      line["sym"] = leaf.function;
      line["symoff"] = leaf.into;
      line["dso"] = leaf.file;
      line["offset"] = leaf.address;
      if (with_chain) {
        nlohmann::ordered_json chain = nlohmann::ordered_json::array();
        for (const ScriptFrame& frame : frames_)
          chain.push_back({{"address", frame.address},
                           {"sym", frame.function},
                           {"symoff", frame.into},
                           {"dso", frame.file},
                           {"inlined", frame.file.empty()}});
        line["callchain"] = std::move(chain);
      }
      std::printf("%s\n", line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
      return;
    }
    // perf script's columns: command (in 16 columns unless a call chain follows), tid, [cpu] where
    // recorded, seconds.microseconds, the period of events other than tracepoints where recorded,
    // the event; then the frame on the same line, or the call chain below it, one frame a line, and
    // a blank line.
    std::printf(with_chain ? "%s %5u " : "%16s %5u ",
                printable(command.empty() ? ":" + std::to_string(sample.tid) : command).c_str(), sample.tid);
    if (source.attr.sample_type & PERF_SAMPLE_CPU) std::printf("[%03u] ", sample.cpu);
    char seconds[32];  // right-aligned in 12 columns, as perf script pads them (%12s)
    std::snprintf(seconds, sizeof seconds, "%llu.%06llu", static_cast<unsigned long long>(sample.time / 1'000'000'000),
                  static_cast<unsigned long long>(sample.time % 1'000'000'000 / 1000));
    std::printf("%12s: ", seconds);
    if ((source.attr.sample_type & PERF_SAMPLE_PERIOD) && source.attr.type != PERF_TYPE_TRACEPOINT)
      std::printf("%10llu ", static_cast<unsigned long long>(sample.period));
    std::printf("%s: ", printable(source.name).c_str());
    if (!with_chain) {
      std::fputs(" ", stdout);  // perf script separates the address by one more space on this line
      print_frame(frames_.front(), sample.ip);
      return;
    }
    std::fputs("\n", stdout);
    for (const ScriptFrame& frame : frames_) {
      std::fputs("\t", stdout);
      print_frame(frame, frame.address);
    }
    std::fputs("\n", stdout);
  }

 private:
  // An address named, after the functions inlined at it where `inlined` (a call chain's). perf
  // script prints a frame in a file at its offset there, and any other at its address.
  void add_frame(std::uint32_t pid, std::uint64_t address, bool kernel, bool inlined) {
    const NamedAddress named = symbolizer_.name(pid, address, kernel);
    const bool in_file = !named.place.file.empty() && named.place.file.front() == '/';
    const std::uint64_t shown = in_file ? named.place.offset : address;
    // A caller's address is a return address: one byte back is the call, inside what inlined it.
    if (inlined && in_file &&
        symbolizer_.source(frames_.empty() ? named : symbolizer_.name(pid, address - 1, kernel), place_))
      for (const std::string& function : place_.inlined) frames_.push_back({shown, function, 0, ""});
    frames_.push_back({shown, named.function != nullptr ? *named.function : "", named.into, named.place.file});
  }

  static void print_frame(const ScriptFrame& frame, std::uint64_t address) {
    std::printf("%16" PRIx64 " ", address);
    if (frame.file.empty())
      std::printf("%s (inlined)\n", printable(frame.function).c_str());
    else if (frame.function.empty())
      std::printf("[unknown] (%s)\n", printable(frame.file).c_str());
    else
      std::printf("%s+0x%" PRIx64 " (%s)\n", printable(frame.function).c_str(), frame.into,
                  printable(frame.file).c_str());
  }

  const PerfDataReader& file_;
  const ScriptOptions& options_;
  Symbolizer symbolizer_;
  std::vector<ScriptFrame> frames_;  // the sample at hand's, leaf first
  SourcePlace place_;
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
  };
  if (auto status = parse_command_line(args, "script", kSynopsis, options, rest, reads_a_file_only("script")))
    return *status;
  try {
    const PerfDataReader file(o.input);
    Printer printer(file, o);
    file.read(printer);
    return 0;
  } catch (const Error& error) {
    return report_error("script", error, 1);
  }
}

}  // namespace perfmon::cli
