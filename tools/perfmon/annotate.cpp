// SPDX-License-Identifier: Apache-2.0
// perfmon annotate: a function of a perf.data file's samples, instruction by instruction and line by
// line, as perf annotate shows it — its code disassembled by Capstone, its lines from DWARF, the
// lines of functions inlined into it folded under the line that calls them.
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/address_space.hpp"
#include "perfmon/annotation.hpp"
#include "perfmon/annotation_output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "profile_reading.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis =
    "perfmon annotate [-i FILE] [-e EVENT] [--dso FILE] [--sort source|period] [--symfs DIR] [--threads N]\n"
    "                        [-l] [-M att|intel] [--stdio | --json] [SYMBOL]";

// "a (libc.so.6), b (worker), c (worker)": the heaviest few, for a sentence that names them.
std::string heaviest(const std::vector<AnnotationSamples::Function>& functions) {
  std::string names;
  for (std::size_t i = 0; i < functions.size() && i < 5; ++i)
    names +=
        (i == 0 ? "" : ", ") + printable(functions[i].name) + " (" + printable(dso_short_name(functions[i].dso)) + ")";
  return names;
}

}  // namespace

int run_annotate(std::span<char* const> args) {
  std::string input = "perf.data", event, dso, symfs;
  AnnotationFormat format;
  bool json = false;
  long threads = 0;
  AnnotationSamples::Syntax syntax = AnnotationSamples::Syntax::Att;
  std::vector<std::string> symbols;
  std::vector<Option> options = {
      {'i', "input", "file", "the perf.data file to read (default perf.data)",
       [&](std::string_view v) { input = std::string(v); }},
      {'e', "event", "name", "annotate this event's samples only (default every event with samples)",
       [&](std::string_view v) { event = std::string(v); }},
      {'d', "dso", "file", "the function of that file (a path, or its last component), where several files have one",
       [&](std::string_view v) { dso = std::string(v); }},
      {'s', "sort", "order",
       "source: lines in source order (the default); period: the heaviest lines (and inlined calls) first",
       [&](std::string_view v) {
         if (v == "source")
           format.order = AnnotationFormat::Order::Source;
         else if (v == "period")
           format.order = AnnotationFormat::Order::Period;
         else
           throw UsageError("--sort takes source or period, not '" + printable(v) + "'");
       }},
      {0, "stdio", "", "print the lines and instructions as text (the default)",
       [&](std::string_view) { json = false; }},
      {0, "json", "", "print them as one JSON document", [&](std::string_view) { json = true; }},
      {0, "symfs", "dir",
       "read the recording's files from under dir (a recording of another machine, whose files lie there)",
       [&](std::string_view v) {
         struct stat about {};
         if (::stat(std::string(v).c_str(), &about) != 0 || !S_ISDIR(about.st_mode))
           throw UsageError("--symfs takes the directory the recording's files lie under; '" + printable(v) +
                            "' is not one");
         symfs = std::string(v);
       }},
      {'l', "print-line", "",
       "first, each source line with its share of the function's samples, the heaviest first (perf's sorted "
       "summary)",
       [&](std::string_view) { format.line_summary = true; }},
      {'M', "disassembler-style", "style", "att (the default, objdump's) or intel: the x86 syntax of the instructions",
       [&](std::string_view v) {
         if (v == "att")
           syntax = AnnotationSamples::Syntax::Att;
         else if (v == "intel")
           syntax = AnnotationSamples::Syntax::Intel;
         else
           throw UsageError("-M takes att or intel, not '" + printable(v) + "'");
       }},
      {0, "threads", "n", "read the file with n threads (default: as perfmon report chooses)",
       [&](std::string_view v) { threads = parse_long(v, "--threads", 1, 64); }},
  };
  if (auto status =
          parse_command_line(args, "annotate", kSynopsis, options, symbols, [](const std::vector<std::string>& words) {
            if (words.size() > 1) throw UsageError("perfmon annotate shows one function: give one SYMBOL");
          }))
    return *status;
  try {
    const PerfDataReader file(input);
    std::vector<std::string> names;
    for (const PerfDataEvent& recorded : file.events()) names.push_back(recorded.name);
    if (!event.empty() && std::find(names.begin(), names.end(), event) == names.end()) {
      std::string known;
      for (const std::string& name : names) known += (known.empty() ? "" : ", ") + printable(name);
      throw Error(ErrorKind::InvalidArgument, "the file has no event '" + printable(event) + "'; its events are " +
                                                  known + " (choose one with -e).");
    }
    const auto tables = std::make_shared<SymbolTables>("/usr/lib/debug", symfs);
    tables->expect_build_ids(file.build_ids());
    const std::unique_ptr<AnnotationSamples> read = read_merged<AnnotationSamples>(
        file, threads, [&] { return std::make_unique<AnnotationSamples>(names, tables); });
    say_changed_files(*tables);
    AnnotationSamples& samples = *read;
    std::vector<Annotation> annotations;
    std::string missing;  // the events with samples but none in the function asked for
    for (std::size_t e = 0; e < samples.events(); ++e) {
      if ((!event.empty() && samples.event_name(e) != event) || samples.samples(e) == 0) continue;
      std::vector<AnnotationSamples::Function> functions = samples.functions(e);
      std::erase_if(functions, [&](const AnnotationSamples::Function& f) {
        return !dso.empty() && f.dso != dso && dso_short_name(f.dso) != dso;
      });
      // The heaviest, or the one asked for (the heaviest of that name, where several files have one).
      const AnnotationSamples::Function* chosen = functions.empty() ? nullptr : &functions.front();
      if (!symbols.empty()) {
        auto named = std::find_if(functions.begin(), functions.end(),
                                  [&](const AnnotationSamples::Function& f) { return f.name == symbols.front(); });
        if (named == functions.end()) {
          missing += (missing.empty() ? "" : "; ") + printable(samples.event_name(e)) +
                     (functions.empty() ? "'s samples land where no symbol names a function (in a stripped file whose "
                                          "debug file is not installed)"
                                        : "'s heaviest are " + heaviest(functions));
          continue;
        }
        chosen = &*named;
      }
      if (chosen != nullptr) annotations.push_back(samples.annotate(e, *chosen, syntax));
    }
    if (annotations.empty()) {
      if (!missing.empty())
        throw Error(ErrorKind::InvalidArgument,
                    "no samples of '" + printable(symbols.front()) + "' in " + printable(input) + ": " + missing + ".");
      throw Error(ErrorKind::InvalidArgument,
                  "no samples in " + printable(input) +
                      (dso.empty() ? std::string() : " landed in a function of '" + printable(dso) + "'") +
                      (event.empty() ? std::string() : " of '" + printable(event) + "'") +
                      "; there is nothing to annotate.");
    }
    OutputFile out("", stdout);
    out.write(json ? format_annotation_json(annotations, format) : format_annotation_text(annotations, format));
    commit(out);
    return 0;
  } catch (const Error& error) {
    return report_error("annotate", error, 1);
  }
}

}  // namespace perfmon::cli
