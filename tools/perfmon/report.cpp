// SPDX-License-Identifier: Apache-2.0
// perfmon report: where a perf.data file's samples landed, per command, file and function, as perf
// report --stdio shows it; or as JSON, collapsed stacks, a flame graph picture, or a pprof profile.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/output_file.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"
#include "profile_reading.hpp"
#include "recording_header.hpp"

namespace perfmon::cli {

namespace {

// A perf.data file's records, for a shape that reads them itself (pprof's).
class RecordedFile final : public Recorded {
 public:
  explicit RecordedFile(const PerfDataReader& file) : file_(file) {}
  std::vector<std::pair<std::string, perf_event_attr>> events() const override {
    std::vector<std::pair<std::string, perf_event_attr>> events;
    for (const PerfDataEvent& event : file_.events()) events.emplace_back(event.name, event.attr);
    return events;
  }
  std::map<std::string, std::string> build_ids() const override { return file_.build_ids(); }
  void read(SampleHandler& handler, const std::function<bool(std::size_t, std::uint64_t)>& unwind) const override {
    unwind_copied_stacks(file_, unwind);
    file_.read(handler);
  }

 private:
  const PerfDataReader& file_;
};

// "--stdio | --json | --folded | --svg FILE": every shape of report_shapes(), in its order.
std::string shape_choice() {
  std::string text;
  for (const ReportShape& shape : report_shapes())
    text += (text.empty() ? "" : " | ") + std::string("--") + shape.name + (shape.has(kToFile) ? " FILE" : "");
  return text;
}

// "--stdio, --json, --folded, --svg, --speedscope and --pprof": the shapes, in the table's order;
// with `need`, only those that have it ("--folded or --svg").
std::string shape_names(unsigned need = ~0u, const char* last = " and ") {
  std::vector<std::string> names;
  for (const ReportShape& shape : report_shapes())
    if (need == ~0u || shape.has(static_cast<ShapeNeeds>(need))) names.push_back("--" + std::string(shape.name));
  std::string text;
  for (std::size_t k = 0; k < names.size(); ++k) text += (k == 0 ? "" : k + 1 == names.size() ? last : ", ") + names[k];
  return text;
}

std::string synopsis() {
  return "perfmon report [-i FILE] [--sort comm,dso,sym,srcline | -F FIELDS] [-n] [-g [SPEC]] [--children]\n"
         "                      [--comms|--dsos|--symbols NAMES] [--no-inline] [--percent-limit PCT] [-q]\n"
         "                      [--header | --header-only | --stats]\n"
         "                      [-e EVENT] [--threads N] [--diff BASE (with " +
         shape_names(kCompares, ", ") + ")] [" + shape_choice() + "]";
}

struct ReportCommand {
  std::string input = "perf.data";
  ReportOptions report;
  const ReportShape* shape = &report_shapes().front();
  std::string file_path;  // the file a shape that writes one writes (kToFile)
  std::string event;      // a shape that draws one event draws this one, or the first with samples
  std::string diff_base;  // --diff: the base of a differential flame graph
  long threads = 0;       // 0: chosen by the file's size and places and the machine's CPUs
  enum class Header { None, First, Only } header = Header::None;
  bool stats = false;
  bool thread_counts = false;  // -T
};

double parse_percent(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= 0 && value <= 100))
    throw UsageError("--percent-limit takes a share from 0 to 100, such as 0.5; not '" + printable(text) + "'");
  return value;
}

// perf's -g argument: print type, order, threshold and the rest, commas between, in any order
// (perf's parse_callchain_report_opt); what perfmon does not draw is refused by name.
void parse_call_graph(std::string_view spec, ReportOptions& report) {
  report.callchains = true;
  bool threshold_given = false;
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', at), spec.size());
    const std::string_view word = spec.substr(at, comma - at);
    at = comma + 1;
    if (word.empty() || word == "graph" || word == "fractal" || word == "function" || word == "percent") continue;
    if (word == "none") {
      report.callchains = false;
    } else if (word == "caller") {
      report.chain_order = ReportOptions::ChainOrder::Caller;
    } else if (word == "callee") {
      report.chain_order = ReportOptions::ChainOrder::Callee;
    } else if (double value = 0;
               !threshold_given && !word.empty() &&
               std::from_chars(word.data(), word.data() + word.size(), value).ptr == word.data() + word.size()) {
      report.chain_limit = parse_percent(word);
      threshold_given = true;
    } else if (word == "flat" || word == "folded") {
      throw UsageError("perfmon report draws call chains as a graph; for one stack a line give --folded (without -g)");
    } else {
      throw UsageError(
          "-g takes graph or none, caller or callee, and a threshold in percent, such as "
          "'graph,0.5,caller'; not '" +
          printable(word) + "'");
    }
  }
}

std::size_t chosen_event(const Profile& profile, const std::string& wanted) {
  const std::vector<EventProfile>& events = profile.events();
  for (std::size_t e = 0; e < events.size(); ++e)
    if (wanted.empty() ? events[e].samples != 0 : events[e].name == wanted) return e;
  if (wanted.empty()) throw Error(ErrorKind::InvalidArgument, "the file holds no samples; there is nothing to draw.");
  std::string names;
  for (const EventProfile& event : events) names += (names.empty() ? "" : ", ") + event.name;
  throw Error(ErrorKind::InvalidArgument,
              "the file has no event '" + wanted + "'; its events are " + names + " (choose one with -e).");
}

}  // namespace

int run_report(std::span<char* const> args) {
  ReportCommand o;
  std::vector<std::string> rest;
  const ReportShape* chosen = nullptr;
  auto choose = [&](const ReportShape& shape) {
    if (chosen != nullptr && chosen != &shape) throw UsageError("choose one of " + shape_names());
    chosen = o.shape = &shape;
  };
  // Option's help is a view: the text lives as long as the process.
  static const std::string event_help =
      "the event " + shape_names(kOneEvent) + " draw (default the first with samples)";
  std::vector<Option> options = {
      {'i', "input", "file", "the perf.data file to read (default perf.data)",
       [&](std::string_view v) { o.input = std::string(v); }},
      {'s', "sort", "keys",
       "the columns that rows are merged by: comm, dso, sym, srcline (source file:line, from DWARF; default "
       "comm,dso,sym)",
       [&](std::string_view v) {
         try {
           o.report.sort = parse_report_keys(std::string(v));
         } catch (const Error& error) {
           throw UsageError(error.what());
         }
       }},
      {'F', "fields", "fields",
       "the columns, as perf's -F: overhead, sample, period and sort keys (the figures first), such as "
       "'overhead,sample,sym'",
       [&](std::string_view v) { parse_report_fields(std::string(v), o.report); }},
      {'n', "show-nr-samples", "", "a Samples column: each row's samples (the table)",
       [&](std::string_view) { o.report.sample_counts = true; }},
      {0, "children", "",
       "a Children column: each row's samples and those of its callees (the stacks that pass through it), rows "
       "ranked by it; Self is the row's own",
       [&](std::string_view) { o.report.children = true; }},
      {0, "no-children", "", "each row its own samples only (the default)",
       [&](std::string_view) { o.report.children = false; }},
      {'g', "call-graph", "graph,0.5,caller",
       "show the call chains that end in each row: none, or graph; callee (the sampled function first, the "
       "default) or caller (the outermost first); the share below which a chain is left out (0.5)",
       [&](std::string_view v) { parse_call_graph(v, o.report); },
       [](std::string_view word) { return !word.empty() && word[0] != '-'; }},
      {'G', "inverted", "", "the call chains from the outermost function in (-g caller)",
       [&](std::string_view) { parse_call_graph("caller", o.report); }},
      {0, "max-stack", "n", "the frames of a call chain used, from the sampled function (chains and --children)",
       [&](std::string_view v) {
         o.report.max_stack = static_cast<std::size_t>(parse_long(v, "--max-stack", 1, 1 << 16));
       }},
      {'c', "comms", "names", "only the samples of these commands (a comma-separated list); shares stay of the whole",
       [&](std::string_view v) { o.report.only_commands = comma_list(v); }},
      {'d', "dsos", "names", "only the samples in these files (full paths or file names, comma-separated)",
       [&](std::string_view v) { o.report.only_dsos = comma_list(v); }},
      {'S', "symbols", "names", "only the samples in these functions (comma-separated)",
       [&](std::string_view v) { o.report.only_symbols = comma_list(v); }},
      {'q', "quiet", "", "the rows alone: none of the '#' lines (the table)",
       [&](std::string_view) { o.report.quiet = true; }},
      {0, "header", "", "the file's header first: the machine, the command line and each event's attributes",
       [&](std::string_view) { o.header = ReportCommand::Header::First; }},
      {0, "header-only", "", "the file's header alone",
       [&](std::string_view) { o.header = ReportCommand::Header::Only; }},
      {0, "stats", "", "the file's records counted by type, and nothing else (perf's Aggregated stats)",
       [&](std::string_view) { o.stats = true; }},
      {'T', "", "",
       "after the report, the counts each thread wrote when it exited (recorded with perfmon record -s); perf's "
       "--threads, which is perfmon's --threads N",
       [&](std::string_view) { o.thread_counts = true; }},
      {0, "no-inline", "", "leave out the functions inlined at each frame (named from DWARF) in call chains",
       [&](std::string_view) { o.report.inlined_frames = false; }},
      {0, "percent-limit", "pct", "leave out rows below this share",
       [&](std::string_view v) { o.report.percent_limit = parse_percent(v); }},
      {0, "diff", "base",
       "with --svg: a differential flame graph, the input's widths coloured by the change from the BASE file "
       "(red grew, blue shrank); with --folded: each stack's samples in BASE and in the input (difffolded.pl's lines)",
       [&](std::string_view v) { o.diff_base = std::string(v); }},
      {'e', "event", "name", event_help, [&](std::string_view v) { o.event = std::string(v); }},
      {0, "threads", "n",
       "read the file with n threads (default: for a file whose samples land in many places, one for each 16 MiB of "
       "records, up to one per CPU or 8); the report is the same",
       [&](std::string_view v) { o.threads = parse_long(v, "--threads", 1, 64); }},
  };
  for (const ReportShape& shape : report_shapes()) {
    const bool to_file = shape.has(kToFile);
    options.push_back({0, shape.name, to_file ? "file" : "", shape.description, [&, to_file](std::string_view v) {
                         choose(shape);
                         if (to_file) o.file_path = std::string(v);
                       }});
  }
  auto check = [&, only_a_file = reads_a_file_only("report")](const std::vector<std::string>& words) {
    only_a_file(words);
    if ((o.header != ReportCommand::Header::None || o.stats || o.thread_counts) && o.shape != &report_shapes().front())
      throw UsageError("--header, --header-only, --stats and -T print text, which --" + std::string(o.shape->name) +
                       " is not: give them without it");
    if (!o.diff_base.empty() && !o.shape->has(kCompares))
      throw UsageError("--diff BASE draws a differential flame graph, or its two-count folded stacks: give it with " +
                       shape_names(kCompares, " or "));
    // A file written over a file read would lose the recording (report --svg perf.data reads
    // perf.data); refused as a usage error (129).
    for (const std::string* read : {&o.input, &o.diff_base}) refuse_output_over_input(o.file_path, *read);
  };
  if (auto status = parse_command_line(args, "report", synopsis(), options, rest, check)) return *status;
  try {
    const PerfDataReader file(o.input);
    OutputFile out(o.file_path, stdout);
    if (o.stats || o.header == ReportCommand::Header::Only) {
      out.write(o.stats ? format_record_stats(file) : format_recording_header(file, o.input));
      commit(out);
      return 0;
    }
    if (o.header == ReportCommand::Header::First) out.write(format_recording_header(file, o.input));
    // Without call chains a row's children are its own samples: perf then shows Overhead alone.
    const bool chained = std::any_of(file.events().begin(), file.events().end(), [](const PerfDataEvent& event) {
      return (event.attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)) != 0;
    });
    o.report.children = o.report.children && chained;
    if (o.shape->from_records != nullptr) {
      out.write(o.shape->from_records(RecordedFile(file), o.report));
      commit(out);
      return 0;
    }
    // Only what the shape shows is looked up: stacks, a root per thread, DWARF's inlined functions
    // in stacks and lines in a column.
    ProfileOptions looked_up;
    const bool one_event = o.shape->has(kOneEvent);
    looked_up.stacks = o.report.callchains || o.report.children || o.shape->has(kStacks);
    looked_up.thread_roots = o.shape->has(kThreadRoots);
    looked_up.inlined_frames = o.report.inlined_frames && looked_up.stacks;
    looked_up.source_lines =
        std::find(o.report.sort.begin(), o.report.sort.end(), ReportKey::SourceLine) != o.report.sort.end();
    const std::unique_ptr<Profile> read = read_profile(file, looked_up, o.threads);
    Profile& profile = *read;
    ReportView view;
    if (one_event) {
      view.event = chosen_event(profile, o.event);
      const EventProfile& drawn = profile.events()[view.event];
      view.title = drawn.name + ", " + std::to_string(drawn.samples) + " samples of " + o.input;
    } else {
      view.title = o.input;
    }
    std::unique_ptr<Profile> base;
    std::optional<FlameGraphBase> compared;
    if (!o.diff_base.empty()) {
      const PerfDataReader base_file(o.diff_base);
      base = read_profile(base_file, looked_up, o.threads);
      compared.emplace(FlameGraphBase{*base, chosen_event(*base, profile.events()[view.event].name)});
      view.base = &*compared;
      view.title += " against " + o.diff_base;
    }
    out.write(o.shape->format(profile, o.report, view));
    if (o.thread_counts) {
      const std::string threads = format_thread_counts(file);
      if (threads.empty())
        throw Error(ErrorKind::InvalidArgument, "'" + o.input +
                                                    "' holds no thread's counts: record with perfmon record -s, which "
                                                    "has each thread write them when it exits.");
      out.write("\n" + threads);
    }
    commit(out);
    return 0;
  } catch (const Error& error) {
    return report_error("report", error, 1);
  }
}

}  // namespace perfmon::cli
