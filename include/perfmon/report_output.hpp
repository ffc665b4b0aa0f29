// SPDX-License-Identifier: Apache-2.0
// perfmon: the shapes a profile (profile.hpp) is shown in — perf report's table (with its call
// chains under -g), JSON, collapsed stacks ("folded", one line per distinct stack, as Brendan
// Gregg's stackcollapse scripts write them), a flame graph (a self-contained SVG with zoom on
// click and search), speedscope's file, and (from the records themselves) pprof's profile.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
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
  bool inlined_frames = true;  // frames of the functions inlined at each one (DWARF), in stacks
  bool sample_counts = false;  // -n: a Samples column after the overhead (the table)
  // perf's -g ORDER: callee shows each chain from the sampled function out (perfmon's default),
  // caller from the outermost function in (perf 6.1's default).
  enum class ChainOrder { Callee, Caller } chain_order = ChainOrder::Callee;
  std::size_t max_stack = 0;  // --max-stack: the frames of a chain kept, from the leaf (0: all)
  // --children: each row also gets the samples of the stacks that pass through its function (its
  // callees' too), perf's Children column, and rows are ranked by it. Needs the profile's stacks.
  bool children = false;
  bool quiet = false;         // -q: the rows alone, none of the '#' lines
  bool show_overhead = true;  // -F without overhead leaves the column out
  bool show_period = false;   // -F period: a Period column (the event's count in the row)
  // --comms, --dsos, --symbols: only the samples of these commands, files (a full path or its
  // name) and functions; shares stay of the whole event, as perf's --percentage absolute.
  std::vector<std::string> only_commands, only_dsos, only_symbols;
};

// perf report's -F: the figures (overhead, sample, period) and the sort keys the rows show, the
// figures first as perf prints them by default; throws perfmon::Error naming a field it does not know.
void parse_report_fields(const std::string& fields, ReportOptions& options);

// "comm,dso,sym" (or srcline) into keys; throws perfmon::Error naming a key it does not know.
std::vector<ReportKey> parse_report_keys(const std::string& keys);

// perf report --stdio's text: per event, its header (samples, event count) and its rows, largest
// first; the lost samples at the top.
std::string format_report_table(const Profile& profile, const ReportOptions& options);
// A call chain under a row, as the table draws it: its frames (the sampled function first, or the
// outermost first in caller order) and its share of the event in percent.
struct CallChainShare {
  std::span<const NameId> frames;
  double percent = 0;
};
// perf report -g's graph of a row's call chains (perf's "graph" print type, each chain whole),
// indented under the row as the table prints them, in the order given: each chain's share on its
// first frame where there are several. "" without chains. perfmon top -g draws its chains with it.
std::string format_call_chains(const Profile& profile, std::span<const CallChainShare> chains);
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

// A recording's records as a shape that reads them itself gets them (ReportShape::from_records):
// what a Profile drops (each sample's time and address) kept. The tool's is a perf.data file.
class Recorded {
 public:
  virtual ~Recorded() = default;
  // The events as recorded, in order: each name and attr.
  virtual std::vector<std::pair<std::string, perf_event_attr>> events() const = 0;
  // Build ids by file path, as the recording keeps them.
  virtual std::map<std::string, std::string> build_ids() const = 0;
  // Every record to `handler`, in the order they happened. First, for each event whose samples
  // copied user stacks, `unwind(event, sample_regs_user)` is asked to unwind them (the handler's
  // own: true where this build can; the tool says where it cannot).
  virtual void read(SampleHandler& handler, const std::function<bool(std::size_t, std::uint64_t)>& unwind) const = 0;
};

// What a shape needs, declared where it is registered: the tool reads, looks up and asks for what
// these say, and nothing else.
enum ShapeNeeds : unsigned {
  kEveryEvent = 0,         // every event's rows (the default)
  kOneEvent = 1u << 0,     // one event (ReportView::event), chosen with -e
  kStacks = 1u << 1,       // call chains, inlined frames worth reading
  kThreadRoots = 1u << 2,  // a profile per thread (ProfileOptions::thread_roots)
  kToFile = 1u << 3,       // a picture or a viewer's file: written to a file named with its option
  kCompares = 1u << 4,     // takes a base to compare with (report --diff BASE; ReportView::base)
  kRecords = 1u << 5,      // reads the records itself (from_records): each sample's time and address
};

// Every shape a profile is shown in, in one table (present/report_shapes.cpp): a new shape is a
// file present/report_<name>.cpp and one line there. The tool offers each as an option.
struct ReportShape {
  const char* name;         // "stdio", "json", "folded", "svg", "speedscope", "pprof"
  const char* description;  // what it shows
  unsigned needs;           // ShapeNeeds
  // Written from the profile, or (kRecords) from the records.
  std::string (*format)(const Profile& profile, const ReportOptions& options, const ReportView& view);
  std::string (*from_records)(const Recorded& recorded, const ReportOptions& options);
  bool has(ShapeNeeds need) const { return (needs & need) != 0; }
};
const std::vector<ReportShape>& report_shapes();

}  // namespace perfmon
