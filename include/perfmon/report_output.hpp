// perfmon: the shapes a profile (profile.hpp) is shown in — perf report's table (with its call
// chains under -g), JSON, collapsed stacks ("folded", one line per distinct stack, as Brendan
// Gregg's stackcollapse scripts write them) and a flame graph, a self-contained SVG with zoom on
// click and search.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfmon/profile.hpp"

namespace perfmon {

// The columns rows are merged by, in perf report's --sort names: comm, dso, sym, srcline. A profile
// shows source lines only where it was made with ProfileOptions::source_lines.
enum class ReportKey { Command, Dso, Symbol, SourceLine };

struct ReportOptions {
  std::vector<ReportKey> sort = {ReportKey::Command, ReportKey::Dso, ReportKey::Symbol};
  bool callchains = false;     // -g: under each row, the call chains that end in it
  double percent_limit = 0.0;  // rows below this share (in percent) are left out
  double chain_limit = 0.5;    // call chains below this share of the event are left out (perf's 0.5)
};

// "comm,dso,sym" (or srcline) into keys; throws perfmon::Error naming a key it does not know.
std::vector<ReportKey> parse_report_keys(const std::string& keys);

// perf report --stdio's text: per event, its header (samples, event count) and its rows, largest
// first; the lost samples at the top.
std::string format_report_table(const Profile& profile, const ReportOptions& options);
// The same figures as one JSON document: {"lost_samples":N,"events":[{"event":..., "rows":[...]}]}.
std::string format_report_json(const Profile& profile, const ReportOptions& options);

// Every distinct stack of an event, "command;outermost;...;leaf SAMPLES", one per line, depth first
// with names sorted at each level (stackcollapse-perf.pl's shape and weights).
std::string format_folded_stacks(const Profile& profile, std::size_t event);
// Two profiles' stacks of an event, as difffolded.pl writes them for flamegraph.pl's differential
// graphs: "command;outermost;...;leaf BASE NEW", every stack of either, in name order.
std::string format_folded_stacks_diff(const Profile& base, std::size_t base_event, const Profile& now,
                                      std::size_t now_event);
// A differential flame graph's base: the profile and event the drawn one is compared with.
struct FlameGraphBase {
  const Profile& profile;
  std::size_t event;
};
// A flame graph of an event's stacks (widths by period, as the report's shares), `title` on top.
// With a base, a differential one: widths from this profile, each frame coloured by the change of
// its share from the base's frame of the same path (red grew, blue shrank), with a legend, and the
// base's share and the change in each frame's title and data-delta attribute.
std::string format_flame_graph(const Profile& profile, std::size_t event, const std::string& title,
                               const FlameGraphBase* base = nullptr);
// speedscope's file format (www.speedscope.app/file-format-schema.json): a "sampled" profile per
// event and thread, each distinct stack a sample weighted by its period (nanoseconds for the
// clocks), frames shared; `name` names the file. The profile must have been made with
// ProfileOptions::thread_roots (its roots are the threads).
std::string format_speedscope(const Profile& profile, const std::string& name);

// What a shape that draws one event is told beyond the options: the event, and what it is (the
// event's name, its samples and the file they came from).
struct ReportView {
  std::size_t event = 0;
  std::string title;
  const FlameGraphBase* base = nullptr;  // a differential graph's base (report --diff): --svg, --folded
};

// Every shape a profile is shown in, in one table (present/report_shapes.cpp): a new shape is a
// file present/report_<name>.cpp and one line there. The tool offers each as an option.
struct ReportShape {
  const char* name;         // "stdio", "json", "folded", "svg"
  const char* description;  // what it shows
  enum class Draws {
    AllEvents,         // every event's rows
    OneEventsStacks,   // one event's stacks (ReportView::event): inlined frames are worth reading
    OneEventsPicture,  // the same, as a picture for a browser: written to a file, not a terminal
    ThreadsStacks      // every event's stacks, a profile per thread, for a viewer: written to a file
  } draws;
  std::string (*format)(const Profile& profile, const ReportOptions& options, const ReportView& view);
};
const std::vector<ReportShape>& report_shapes();

}  // namespace perfmon
