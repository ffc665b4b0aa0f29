// SPDX-License-Identifier: Apache-2.0
// PAPI's preset table read as PAPI reads it, each preset a metric in perf's language.
#include "perfmon/papi_presets.hpp"

#include <string.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "counts/cpu_names.hpp"
#include "counts/papi_events.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        field += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  for (std::string& f : fields) {
    while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.pop_back();
    f.erase(0, f.find_first_not_of(" \t"));
  }
  return fields;
}

Error preset_error(std::size_t line, const std::string& what) {
  return Error(ErrorKind::InvalidArgument, "papi_events.csv:" + std::to_string(line) + ": " + what +
                                               " (PAPI's format: PRESET,NAME,KIND,EVENTS...).");
}

// DERIVED_POSTFIX's formula ("N0|N1|2|*|+|"), operands N<i> the events, as an infix expression.
std::string postfix_to_infix(const std::string& formula, const std::vector<std::string>& events, std::size_t line) {
  std::vector<std::string> stack;
  std::size_t start = 0;
  while (start < formula.size()) {
    std::size_t bar = formula.find('|', start);
    if (bar == std::string::npos) bar = formula.size();
    const std::string token = formula.substr(start, bar - start);
    start = bar + 1;
    if (token.empty()) continue;
    if (token == "+" || token == "-" || token == "*" || token == "/") {
      if (stack.size() < 2) throw preset_error(line, "the formula '" + formula + "' lacks an operand for " + token);
      const std::string b = stack.back();
      stack.pop_back();
      const std::string a = stack.back();
      stack.back() = "(" + a + " " + token + " " + b + ")";
    } else if (token[0] == 'N') {
      const std::size_t index = std::stoul(token.substr(1));
      if (index >= events.size())
        throw preset_error(line, "the formula '" + formula + "' names " + token + ", no event");
      stack.push_back(escaped_metric_name(events[index]));
    } else if (std::isdigit(static_cast<unsigned char>(token[0]))) {
      stack.push_back(token);
    } else {
      throw preset_error(line, "the formula '" + formula + "' has '" + token + "'");
    }
  }
  if (stack.size() != 1) throw preset_error(line, "the formula '" + formula + "' does not make one value");
  std::string infix = stack.front();
  if (infix.starts_with('(') && infix.ends_with(')')) infix = infix.substr(1, infix.size() - 2);
  return infix;
}

}  // namespace

MetricTable papi_presets(std::string_view csv, const std::string& cpu) {
  std::map<std::string, MetricDefinition> presets;
  std::vector<std::string> order;
  bool in_block = false, applies = false, block_started = false;
  std::size_t number = 0;
  // A CPU the table does not name has nothing to read in it (the table is read on every run that
  // chooses metrics).
  const std::string cpu_line = "CPU," + cpu;
  bool named = false;
  for (const char* found = csv.data(); !named;) {
    // glibc's memmem (two-way search): string_view::find tries every 'C' of the table.
    const std::size_t left = csv.size() - static_cast<std::size_t>(found - csv.data());
    found = static_cast<const char*>(::memmem(found, left, cpu_line.data(), cpu_line.size()));
    if (found == nullptr) break;
    const std::size_t at = static_cast<std::size_t>(found - csv.data()), after = at + cpu_line.size();
    named = (at == 0 || csv[at - 1] == '\n') && (after == csv.size() || csv[after] == '\n' || csv[after] == '\r');
    ++found;
  }
  for (std::size_t start = 0; named && start <= csv.size();) {
    std::size_t end = csv.find('\n', start);
    if (end == std::string_view::npos) end = csv.size();
    const std::string_view raw = csv.substr(start, end - start);
    start = end + 1;
    ++number;
    // Only the CPU lines and the presets of this CPU's blocks are split into fields (the table is
    // read on every run that chooses metrics).
    const std::string_view word = raw.substr(std::min(raw.find_first_not_of(" \t"), raw.size()));
    if (!word.starts_with("CPU,") && !(applies && word.starts_with("PRESET,"))) {
      if (word.starts_with("PRESET,")) block_started = true;
      if (end == csv.size()) break;
      continue;
    }
    const std::vector<std::string> fields = csv_fields(raw);
    if (fields.empty() || fields[0].empty() || fields[0].starts_with('#')) {
      if (end == csv.size()) break;
      continue;
    }
    if (fields[0] == "CPU") {
      // Consecutive CPU lines name the CPUs of the PRESET lines that follow them.
      if (!in_block || block_started) applies = false;
      in_block = true;
      block_started = false;
      if (fields.size() > 1 && fields[1] == cpu) applies = true;
    } else if (fields[0] == "PRESET") {
      block_started = true;
      if (applies) {
        if (fields.size() < 4) throw preset_error(number, "a preset without its events");
        const std::string& kind = fields[2];
        std::vector<std::string> events;
        std::string note;
        std::size_t f = 3;
        if (kind == "DERIVED_POSTFIX") ++f;  // the formula, then its events
        for (; f < fields.size(); ++f) {
          if (fields[f] == "NOTE") {
            if (f + 1 < fields.size()) note = fields[f + 1];
            break;
          }
          if (!fields[f].empty()) events.push_back(fields[f]);
        }
        if (events.empty()) throw preset_error(number, fields[1] + " has no event");
        // An event with a blank in it (PAPI 7.0's table joins two lines for PPC970MP) is no event
        // libpfm4 or PAPI could count: the preset is left out, as PAPI cannot offer it either.
        if (std::any_of(events.begin(), events.end(),
                        [](const std::string& event) { return event.find_first_of(" \t") != std::string::npos; })) {
          if (end == csv.size()) break;
          continue;
        }
        std::string expression;
        if (kind == "NOT_DERIVED" || kind == "DERIVED_CMPD") {
          expression = escaped_metric_name(events.front());  // CMPD: the first event holds the value
        } else if (kind == "DERIVED_ADD" || kind == "DERIVED_SUB") {
          for (std::size_t e = 0; e < events.size(); ++e)
            expression += (e == 0 ? "" : kind == "DERIVED_ADD" ? " + " : " - ") + escaped_metric_name(events[e]);
        } else if (kind == "DERIVED_POSTFIX") {
          expression = postfix_to_infix(fields[3], events, number);
        } else {
          throw preset_error(number, "the kind '" + kind + "' of " + fields[1]);
        }
        MetricDefinition preset;
        preset.name = fields[1];
        preset.expression = expression;
        preset.groups = {"PAPI"};
        preset.description = note;
        if (!presets.contains(preset.name)) order.push_back(preset.name);
        presets[preset.name] = std::move(preset);
      }
    }
    if (end == csv.size()) break;
  }
  MetricTable table;
  for (const auto& [name, generic] : {std::pair{"PAPI_TOT_CYC", "cycles"}, std::pair{"PAPI_TOT_INS", "instructions"}}) {
    if (presets.contains(name)) continue;
    MetricDefinition preset;
    preset.name = name;
    preset.expression = generic;
    preset.groups = {"PAPI"};
    order.insert(order.begin(), name);
    presets[name] = std::move(preset);
  }
  for (const std::string& name : order) table.add(std::move(presets[name]));
  return table;
}

std::string papi_cpu(const std::string& cpuid) {
  return counts::libpfm_model_of(cpuid);
}

MetricTable papi_presets_for(const std::string& cpuid) {
  const char* own = std::getenv("PAPI_CSV_EVENT_FILE");
  if (own == nullptr || *own == '\0') return papi_presets(counts::kPapiEventsCsv, papi_cpu(cpuid));
  const std::optional<std::string> csv = kernel::read_regular_file(own);
  if (!csv)
    throw Error(ErrorKind::InvalidArgument,
                std::string("PAPI_CSV_EVENT_FILE names ") + own + ", which cannot be read as a file (" +
                    std::strerror(errno) + "): name PAPI's papi_events.csv or a table in its format, or unset it.",
                errno);
  return papi_presets(*csv, papi_cpu(cpuid));
}

}  // namespace perfmon
