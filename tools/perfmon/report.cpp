// perfmon report: where a perf.data file's samples landed, per command, file and function, as perf
// report --stdio shows it; or as JSON, collapsed stacks, or a flame graph picture.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis =
    "perfmon report [-i FILE] [--sort comm,dso,sym,srcline] [-g] [--no-inline] [--percent-limit PCT]\n"
    "                      [-e EVENT] [--stdio | --json | --folded | --svg FILE]";

enum class Shape { Table, Json, Folded, Svg };

struct ReportCommand {
  std::string input = "perf.data";
  ReportOptions report;
  Shape shape = Shape::Table;
  std::string svg_path;
  std::string event;  // --folded and --svg draw one event: this one, or the first with samples
  bool inlined_frames = true;
};

double parse_percent(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= 0 && value <= 100))
    throw UsageError("--percent-limit takes a share from 0 to 100, such as 0.5; not '" + printable(text) + "'");
  return value;
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
  auto shape = [&](Shape chosen) {
    if (o.shape != Shape::Table && o.shape != chosen)
      throw UsageError("choose one of --stdio, --json, --folded and --svg");
    o.shape = chosen;
  };
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
      {'g', "call-graph", "", "show the call chains that end in each row",
       [&](std::string_view) { o.report.callchains = true; }},
      {0, "no-inline", "", "leave out the functions inlined at each frame (named from DWARF) in call chains",
       [&](std::string_view) { o.inlined_frames = false; }},
      {0, "percent-limit", "pct", "leave out rows below this share",
       [&](std::string_view v) { o.report.percent_limit = parse_percent(v); }},
      {'e', "event", "name", "the event --folded and --svg draw (default the first with samples)",
       [&](std::string_view v) { o.event = std::string(v); }},
      {0, "stdio", "", "print perf report's table (the default)", [&](std::string_view) { shape(Shape::Table); }},
      {0, "json", "", "print the figures as one JSON document", [&](std::string_view) { shape(Shape::Json); }},
      {0, "folded", "", "print collapsed stacks (comm;outer;...;leaf SAMPLES), flamegraph.pl's input",
       [&](std::string_view) { shape(Shape::Folded); }},
      {0, "svg", "file", "draw a flame graph into an SVG file (zoom on click, search)",
       [&](std::string_view v) {
         shape(Shape::Svg);
         o.svg_path = std::string(v);
       }},
  };
  if (auto status = parse_command_line(args, "report", kSynopsis, options, rest, reads_a_file_only("report")))
    return *status;
  try {
    const PerfDataReader file(o.input);
    std::vector<std::string> names;
    for (const PerfDataEvent& event : file.events()) names.push_back(event.name);
    ProfileOptions looked_up;
    // DWARF is read only for what will be shown: inlined functions in stacks, lines in a column.
    looked_up.inlined_frames =
        o.inlined_frames && (o.report.callchains || o.shape == Shape::Folded || o.shape == Shape::Svg);
    looked_up.source_lines =
        std::find(o.report.sort.begin(), o.report.sort.end(), ReportKey::SourceLine) != o.report.sort.end();
    Profile profile(names, looked_up);
    for (std::size_t e = 0; e < file.events().size(); ++e) {
      const perf_event_attr& attr = file.events()[e].attr;
      const std::uint64_t copied = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      if ((attr.sample_type & copied) == copied && !profile.unwind_user_stacks(e, attr.sample_regs_user))
        std::fprintf(stderr,
                     "perfmon report: '%s' was recorded with --call-graph dwarf, but this build cannot unwind its "
                     "stacks (it was built without libdw): its user frames show as the sampled address alone.\n",
                     printable(file.events()[e].name).c_str());
    }
    file.read(profile);
    std::string text;
    if (o.shape == Shape::Table) text = format_report_table(profile, o.report);
    if (o.shape == Shape::Json) text = format_report_json(profile, o.report);
    if (o.shape == Shape::Folded) text = format_folded_stacks(profile, chosen_event(profile, o.event));
    if (o.shape == Shape::Svg) {
      const std::size_t event = chosen_event(profile, o.event);
      text = format_flame_graph(profile, event,
                                "Flame Graph: " + profile.events()[event].name + ", " +
                                    std::to_string(profile.events()[event].samples) + " samples of " + o.input);
    }
    Output out(o.svg_path, stdout);
    out.write(text);
    out.commit();
    return 0;
  } catch (const Error& error) {
    return report_error("report", error, 1);
  }
}

}  // namespace perfmon::cli
