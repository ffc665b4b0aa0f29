// SPDX-License-Identifier: Apache-2.0
#include "perfmon/annotation_output.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

namespace {

using present::percent;

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%" PRIx64, value);
  return text;
}

// The order a level is shown in: source order as built, or the heaviest first.
template <class Item>
std::vector<const Item*> in_order(const std::vector<Item>& items, const AnnotationFormat& format) {
  std::vector<const Item*> ordered;
  for (const Item& item : items) ordered.push_back(&item);
  if (format.order == AnnotationFormat::Order::Period)
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Item* a, const Item* b) { return a->period > b->period; });
  return ordered;
}

// "worker.cpp:72", or "(no source line)".
std::string line_label(const AnnotatedLine& line) {
  if (line.line == 0) return "(no source line)";
  return printable(line.file.substr(line.file.rfind('/') + 1)) + ":" + std::to_string(line.line);
}

// The source's text without its indentation, cut where a terminal line would wrap.
std::string source_text(const std::string& text) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return {};
  std::string shown = printable(text.substr(start));
  if (shown.size() > 100) shown = shown.substr(0, 97) + "...";
  return shown;
}

class TextWriter {
 public:
  TextWriter(const Annotation& annotation, const AnnotationFormat& format, std::string& out)
      : annotation_(annotation), format_(format), out_(out) {}

  void lines(const std::vector<AnnotatedLine>& lines, std::size_t indent) {
    // A function that no line describes at all: its instructions alone.
    if (indent == 0 && lines.size() == 1 && lines.front().line == 0 && lines.front().calls.empty()) {
      instructions(lines.front(), 0);
      return;
    }
    std::size_t width = 0;
    for (const AnnotatedLine& line : lines) width = std::max(width, line_label(line).size());
    for (const AnnotatedLine* line : in_order(lines, format_)) {
      std::string label = line_label(*line);
      label.resize(std::max(width, label.size()), ' ');
      row(line->samples, line->period, std::string(indent, ' ') + label + "  " + source_text(line->text));
      instructions(*line, indent + 4);
      for (const InlinedCall* call : in_order(line->calls, format_)) {
        row(call->samples, call->period, std::string(indent + 2, ' ') + "inlined " + printable(call->function));
        this->lines(call->lines, indent + 4);
      }
    }
  }

 private:
  void instructions(const AnnotatedLine& line, std::size_t indent) {
    for (std::uint32_t index : line.instructions) {
      const AnnotatedInstruction& instruction = annotation_.instructions[index];
      row(instruction.samples, instruction.period,
          std::string(indent, ' ') + hex(instruction.address) + ":  " + printable(instruction.text));
    }
  }
  void row(std::uint64_t samples, std::uint64_t period, const std::string& text) {
    char figures[48] = "";
    if (samples != 0)
      std::snprintf(figures, sizeof figures, "%8.2f %9" PRIu64, percent(period, annotation_.period), samples);
    else
      std::snprintf(figures, sizeof figures, "%8s %9s", "", "");
    out_ += figures;
    out_ += "  ";
    out_ += text;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    out_ += '\n';
  }

  const Annotation& annotation_;
  const AnnotationFormat& format_;
  std::string& out_;
};

nlohmann::ordered_json line_json(const Annotation& annotation, const AnnotatedLine& line,
                                 const AnnotationFormat& format);

nlohmann::ordered_json calls_json(const Annotation& annotation, const AnnotatedLine& line,
                                  const AnnotationFormat& format) {
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  for (const InlinedCall* call : in_order(line.calls, format)) {
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const AnnotatedLine* inner : in_order(call->lines, format))
      lines.push_back(line_json(annotation, *inner, format));
    calls.push_back({{"function", call->function},
                     {"samples", call->samples},
                     {"period", call->period},
                     {"percent", percent(call->period, annotation.period)},
                     {"lines", std::move(lines)}});
  }
  return calls;
}

nlohmann::ordered_json line_json(const Annotation& annotation, const AnnotatedLine& line,
                                 const AnnotationFormat& format) {
  nlohmann::ordered_json addresses = nlohmann::ordered_json::array();
  for (std::uint32_t index : line.instructions) addresses.push_back("0x" + hex(annotation.instructions[index].address));
  return {{"file", line.file},
          {"line", line.line},
          {"text", line.text},
          {"samples", line.samples},
          {"period", line.period},
          {"percent", percent(line.period, annotation.period)},
          {"instructions", std::move(addresses)},
          {"inlined", calls_json(annotation, line, format)}};
}

// perf annotate --print-line's "Sorted summary": the share of each source line (its file's name and
// the line, as perf's srcline), the heaviest first, lines without samples left out.
std::string line_summary(const Annotation& annotation) {
  std::map<std::string, std::uint64_t> period_of;
  for (const AnnotatedInstruction& instruction : annotation.instructions) {
    if (instruction.period == 0) continue;
    std::string line = "??:0";
    if (!instruction.source.empty()) {
      const SourceFrame& innermost = instruction.source.back();
      line = innermost.file.substr(innermost.file.rfind('/') + 1) + ":" + std::to_string(innermost.line);
    }
    period_of[line] += instruction.period;
  }
  std::vector<std::pair<std::string, std::uint64_t>> lines(period_of.begin(), period_of.end());
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = "\nSorted summary for file " + printable(annotation.dso) + "\n" + std::string(46, '-') + "\n\n";
  char share[32];
  for (const auto& [line, period] : lines) {
    std::snprintf(share, sizeof share, " %7.2f ", percent(period, annotation.period));
    out += share + printable(line) + "\n";
  }
  return out;
}

}  // namespace

std::string format_annotation_text(const std::vector<Annotation>& annotations, const AnnotationFormat& format) {
  std::string out;
  for (const Annotation& annotation : annotations) {
    if (!out.empty()) out += '\n';
    if (format.line_summary) out += line_summary(annotation) + "\n";
    out += "# " + printable(annotation.function) + " in " + printable(annotation.dso);
    if (!annotation.architecture.empty()) out += " (" + annotation.architecture + ")";
    char share[160];
    std::snprintf(share, sizeof share, "\n# event '%s': %" PRIu64 " of its %" PRIu64 " samples, %.2f%% of its period\n",
                  printable(annotation.event).c_str(), annotation.samples, annotation.event_samples,
                  percent(annotation.period, annotation.event_period));
    out += share;
    if (!annotation.note.empty()) out += "# " + printable(annotation.note) + "\n";
    out += "#\n#  Percent   Samples  Source line (inlined functions' lines under their call) / instruction\n";
    TextWriter(annotation, format, out).lines(annotation.lines, 0);
  }
  return out;
}

std::string format_annotation_json(const std::vector<Annotation>& annotations, const AnnotationFormat& format) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Annotation& annotation : annotations) {
    nlohmann::ordered_json instructions = nlohmann::ordered_json::array();
    for (const AnnotatedInstruction& instruction : annotation.instructions) {
      nlohmann::ordered_json source = nlohmann::ordered_json::array();
      for (const SourceFrame& frame : instruction.source)
        source.push_back({{"function", frame.function.empty() ? annotation.function : frame.function},
                          {"file", frame.file},
                          {"line", frame.line}});
      instructions.push_back({{"address", "0x" + hex(instruction.address)},
                              {"text", instruction.text},
                              {"samples", instruction.samples},
                              {"period", instruction.period},
                              {"percent", percent(instruction.period, annotation.period)},
                              {"source", std::move(source)}});
    }
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const AnnotatedLine* line : in_order(annotation.lines, format))
      lines.push_back(line_json(annotation, *line, format));
    all.push_back({{"event", annotation.event},
                   {"function", annotation.function},
                   {"dso", annotation.dso},
                   {"kernel", annotation.kernel},
                   {"architecture", annotation.architecture},
                   {"start", "0x" + hex(annotation.start)},
                   {"size", annotation.size},
                   {"samples", annotation.samples},
                   {"period", annotation.period},
                   {"event_samples", annotation.event_samples},
                   {"event_period", annotation.event_period},
                   {"percent_of_event", percent(annotation.period, annotation.event_period)},
                   {"note", annotation.note},
                   {"instructions", std::move(instructions)},
                   {"lines", std::move(lines)}});
  }
  const nlohmann::ordered_json document = {{"annotations", std::move(all)}};
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace perfmon
