// perfmon report's shapes, one line each: the name the tool offers, what it shows, what it draws,
// and the function (in present/report_<name>.cpp) that writes it.
#include "perfmon/report_output.hpp"

#define PERFMON_REPORT_SHAPES(SHAPE)                                                                               \
  SHAPE("stdio", "print perf report's table (the default)", AllEvents, report_table_shape)                         \
  SHAPE("json", "print the figures as one JSON document", AllEvents, report_json_shape)                            \
  SHAPE("folded", "print collapsed stacks (comm;outer;...;leaf SAMPLES), flamegraph.pl's input", OneEventsStacks,  \
        folded_stacks_shape)                                                                                       \
  SHAPE("svg", "draw a flame graph into an SVG file (zoom on click, search)", OneEventsPicture, flame_graph_shape) \
  SHAPE("speedscope", "write speedscope's JSON file: a profile per event and thread (www.speedscope.app)",         \
        ThreadsStacks, speedscope_shape)

namespace perfmon::present {
#define PERFMON_DECLARE_SHAPE(name, description, draws, function) \
  std::string function(const Profile& profile, const ReportOptions& options, const ReportView& view);
PERFMON_REPORT_SHAPES(PERFMON_DECLARE_SHAPE)
}  // namespace perfmon::present

namespace perfmon {

const std::vector<ReportShape>& report_shapes() {
#define PERFMON_SHAPE_ENTRY(name, description, draws, function) \
  ReportShape{name, description, ReportShape::Draws::draws, present::function},
  static const std::vector<ReportShape> shapes = {PERFMON_REPORT_SHAPES(PERFMON_SHAPE_ENTRY)};
  return shapes;
}

}  // namespace perfmon
