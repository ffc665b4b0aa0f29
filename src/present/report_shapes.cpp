// SPDX-License-Identifier: Apache-2.0
// perfmon report's shapes, one line each: the name the tool offers, what it shows, what it needs
// (ShapeNeeds), and the function (in present/report_<name>.cpp) that writes it: from the profile,
// or, for a shape that needs what a profile drops, from the records.
#include "perfmon/report_output.hpp"

#define PERFMON_REPORT_SHAPES(SHAPE)                                                                                  \
  SHAPE("stdio", "print perf report's table (the default)", kEveryEvent, report_table_shape)                          \
  SHAPE("json", "print the figures as one JSON document", kEveryEvent, report_json_shape)                             \
  SHAPE("folded", "print collapsed stacks (comm;outer;...;leaf SAMPLES), flamegraph.pl's input",                      \
        kOneEvent | kStacks | kCompares, folded_stacks_shape)                                                         \
  SHAPE("svg", "draw a flame graph into an SVG file (zoom on click, search)",                                         \
        kOneEvent | kStacks | kToFile | kCompares, flame_graph_shape)                                                 \
  SHAPE("speedscope", "write speedscope's JSON file: a profile per event and thread (www.speedscope.app)",            \
        kStacks | kThreadRoots | kToFile, speedscope_shape)                                                           \
  SHAPE("pprof",                                                                                                      \
        "write the samples in pprof's format (gzipped profile.proto: every event's samples and periods, labels pid, " \
        "tid, comm, cpu; for go tool pprof, Parca, Pyroscope)",                                                       \
        kStacks | kToFile | kRecords, pprof_shape)

namespace perfmon::present {

// Each function declared in both kinds; the table takes the kind its needs say (kRecords: from the
// records), and only that one is defined.
#define PERFMON_DECLARE_SHAPE(name, description, needs, function)                \
  std::string function(const Profile&, const ReportOptions&, const ReportView&); \
  std::string function(const Recorded&, const ReportOptions&);
PERFMON_REPORT_SHAPES(PERFMON_DECLARE_SHAPE)

template <bool from_records>
ReportShape entry(const char* name, const char* description, unsigned needs,
                  std::string (*format)(const Profile&, const ReportOptions&,
                                        const ReportView&)) requires(!from_records) {
  return {name, description, needs, format, nullptr};
}
template <bool from_records>
ReportShape entry(const char* name, const char* description, unsigned needs,
                  std::string (*records)(const Recorded&, const ReportOptions&)) requires(from_records) {
  return {name, description, needs, nullptr, records};
}

}  // namespace perfmon::present

namespace perfmon {

const std::vector<ReportShape>& report_shapes() {
#define PERFMON_SHAPE_ENTRY(name, description, needs, function) \
  present::entry<((needs)&kRecords) != 0>(name, description, needs, present::function),
  static const std::vector<ReportShape> shapes = {PERFMON_REPORT_SHAPES(PERFMON_SHAPE_ENTRY)};
  return shapes;
}

}  // namespace perfmon
