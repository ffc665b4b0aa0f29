// perfmon script: one line per sample of a perf.data file, as perf script prints them; JSON lines
// with --json.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/address_space.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis = "perfmon script [-i FILE] [--json]";

struct ScriptOptions {
  std::string input = "perf.data";
  bool json = false;
};

class Printer : public SampleHandler {
 public:
  Printer(const PerfDataReader& file, bool json) : file_(file), json_(json) {}

  void record(const perf_event_header& record) override { spaces_.record(record); }

  void sample(std::size_t event, const Sample& sample) override {
    const std::string& name = file_.events()[event].name;
    const PlacedAddress where = spaces_.place(sample.pid, sample.ip);
    const std::string& command = spaces_.command(sample.tid);
    std::uint64_t into = 0;
    const std::string* function = where.file == "[kernel.kallsyms]" ? symbols_.function_in_kernel(sample.ip, into)
                                  : where.file.front() == '/'
                                      ? symbols_.function_in_file(where.file, where.offset, into)
                                      : nullptr;
    if (json_) {
      nlohmann::ordered_json line = {
          {"comm", command},     {"pid", sample.pid}, {"tid", sample.tid},     {"cpu", sample.cpu},
          {"time", sample.time}, {"event", name},     {"ip", sample.ip},       {"sym", function ? *function : ""},
          {"symoff", into},      {"dso", where.file}, {"offset", where.offset}};
      std::printf("%s\n", line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
      return;
    }
    // perf script's columns: command, tid, [cpu], seconds.microseconds, event, address, the
    // function as perf spells it (name+0xoffset, or [unknown]), the file.
    std::printf("%16s %6u [%03u] %llu.%06llu: %s: %16" PRIx64 " ",
                printable(command.empty() ? ":" + std::to_string(sample.tid) : command).c_str(), sample.tid, sample.cpu,
                static_cast<unsigned long long>(sample.time / 1'000'000'000),
                static_cast<unsigned long long>(sample.time % 1'000'000'000 / 1000), printable(name).c_str(),
                sample.ip);
    if (function)
      std::printf("%s+0x%" PRIx64, printable(*function).c_str(), into);
    else
      std::fputs("[unknown]", stdout);
    std::printf(" (%s)\n", printable(where.file).c_str());
  }

 private:
  const PerfDataReader& file_;
  bool json_;
  AddressSpaces spaces_;
  SymbolTables symbols_;
};

}  // namespace

int run_script(std::span<char* const> args) {
  ScriptOptions o;
  std::vector<std::string> rest;
  std::vector<Option> options = {
      {'i', "input", "file", "the perf.data file to read (default perf.data)",
       [&](std::string_view v) { o.input = std::string(v); }},
      {0, "json", "", "print one JSON object per sample", [&](std::string_view) { o.json = true; }},
  };
  if (auto status =
          parse_command_line(args, "script", kSynopsis, options, rest, [](const std::vector<std::string>& words) {
            if (!words.empty()) throw UsageError("script takes no command; give the file with -i");
          }))
    return *status;
  try {
    const PerfDataReader file(o.input);
    Printer printer(file, o.json);
    file.read(printer);
    return 0;
  } catch (const Error& error) {
    return report_error("script", error, 1);
  }
}

}  // namespace perfmon::cli
