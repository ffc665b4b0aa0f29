// SPDX-License-Identifier: Apache-2.0
// perfmon: annotations shown — a function's source lines with their share of its samples, each
// followed by its instructions, the lines of functions inlined there folded under the line that
// calls them (perfmon annotate --stdio); or the same as one JSON document (--json).
#pragma once

#include <string>
#include <vector>

#include "perfmon/annotation.hpp"

namespace perfmon {

struct AnnotationFormat {
  // Source: each level's lines in source order; Period: the heaviest first (and so the inlined
  // calls). A line's instructions stay in address order either way.
  enum class Order { Source, Period } order = Order::Source;
  // perf annotate -l: first, each source line (file:line, the innermost where code was inlined)
  // with the share of the function's samples on its instructions, the heaviest first.
  bool line_summary = false;
};

// Per annotation, a header (function, file, architecture, the event and the function's share of
// it, and a note where instructions or lines are missing), then "Percent Samples Line/instruction"
// rows; percents are of the function's period, blank where no sample landed.
std::string format_annotation_text(const std::vector<Annotation>& annotations, const AnnotationFormat& format);
// {"annotations":[{"event", "function", "dso", "kernel", "architecture", "start", "size", "samples",
// "period", "event_samples", "event_period", "percent_of_event", "note", "instructions":[{"address",
// "text", "samples", "period", "percent", "source":[{"function", "file", "line"}]}], "lines":[{"file",
// "line", "text", "samples", "period", "percent", "instructions":[address...], "inlined":[{"function",
// "samples", "period", "percent", "lines":[...]}]}]}]}; addresses as "0x..." strings.
std::string format_annotation_json(const std::vector<Annotation>& annotations, const AnnotationFormat& format);

}  // namespace perfmon
