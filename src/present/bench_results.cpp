// SPDX-License-Identifier: Apache-2.0
#include "perfmon/bench_results.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"
#include "present/stat_cells.hpp"

namespace perfmon {

namespace {

Error bench_error(std::string_view source, const std::string& what) {
  return Error(ErrorKind::InvalidArgument, std::string(source) + " " + what);
}

// A count as people read it, grouped by thousands: whole numbers as they are, others (means over
// runs) with two decimals.
std::string number_text(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 1e18) return present::format_text("%g", value);
  if (value == std::floor(value)) return present::group_thousands(value);
  const std::string fixed = present::format_text("%.2f", value);
  return present::group_thousands(std::trunc(value)) + fixed.substr(fixed.find('.'));
}

std::string percent_text(double percent) {
  return present::format_text("%+.3f%%", percent);
}

// What a change is, in a word; "" where it is none of these.
std::string verdict(const BenchChange& change) {
  if (!change.base) return "new";
  if (!change.now) return "gone";
  if (change.regression) return "regression";
  if (change.improvement) return "improvement";
  return "";
}

std::string change_text(const BenchChange& change) {
  if (change.percent) return percent_text(*change.percent);
  if (change.base && change.now) return "from 0";
  return "";
}

// Columns padded to their widest cell, each aligned as `align` says: 'l' left, else right.
std::string aligned(const std::vector<std::vector<std::string>>& lines, std::string_view align) {
  std::vector<std::size_t> widths;
  for (const std::vector<std::string>& line : lines)
    for (std::size_t c = 0; c < line.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], line[c].size());
    }
  std::string out;
  for (const std::vector<std::string>& line : lines) {
    std::string text = " ";
    for (std::size_t c = 0; c < line.size(); ++c) {
      const std::string pad(widths[c] - line[c].size(), ' ');
      text += " " + (c < align.size() && align[c] == 'l' ? line[c] + pad : pad + line[c]);
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out += text + "\n";
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : printable(text)) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string bench_results_json(const BenchResults& results) {
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  for (const BenchResult& result : results) {
    nlohmann::ordered_json& benchmark = document[result.benchmark];
    benchmark = nlohmann::ordered_json::object();
    for (const BenchMeasure& measure : result.measures)
      benchmark[measure.name] = {
          {"value", measure.value}, {"lower_value", measure.lower}, {"upper_value", measure.upper}};
  }
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

BenchResults read_bench_results(std::string_view json, std::string_view source) {
  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(json, nullptr, false);
  if (document.is_discarded())
    throw bench_error(source, "is not JSON: give a file perfmon bench --save wrote (Bencher's Metric Format).");
  if (!document.is_object())
    throw bench_error(source, "is not Bencher's Metric Format: its top level is not an object of benchmarks.");
  BenchResults results;
  for (const auto& [name, measures] : document.items()) {
    if (!measures.is_object())
      throw bench_error(source,
                        "gives benchmark '" + printable(name) + "' something other than an object of measures.");
    BenchResult& result = results.emplace_back();
    result.benchmark = name;
    for (const auto& [measure_name, metric] : measures.items()) {
      const std::string where = "measure '" + printable(measure_name) + "' of benchmark '" + printable(name) + "'";
      if (!metric.is_object() || !metric.contains("value") || !metric["value"].is_number())
        throw bench_error(source, "gives " + where + " no number as its value.");
      BenchMeasure& measure = result.measures.emplace_back();
      measure.name = measure_name;
      measure.value = measure.lower = measure.upper = metric["value"].get<double>();
      for (const auto& [key, bound] : {std::pair{"lower_value", &measure.lower}, {"upper_value", &measure.upper}}) {
        if (!metric.contains(key)) continue;
        if (!metric[key].is_number())
          throw bench_error(source, "gives " + where + " a " + key + " that is not a number.");
        *bound = metric[key].get<double>();
      }
    }
  }
  return results;
}

BenchResults read_bench_results_file(const std::string& path) {
  const std::optional<std::string> text = kernel::read_regular_file(path);
  if (!text)
    throw Error(ErrorKind::InvalidArgument,
                "cannot read " + printable(path) + " (" + std::strerror(errno) +
                    "): give results perfmon bench --save wrote (Bencher's Metric Format).",
                errno);
  return read_bench_results(*text, printable(path));
}

double BenchThresholds::for_measure(std::string_view measure) const {
  for (const auto& [name, value] : per_measure)
    if (name == measure) return value;
  return percent;
}

BenchThresholds parse_bench_thresholds(std::string_view text) {
  BenchThresholds thresholds;
  auto percent_of = [&](std::string_view word) {
    std::string number(word);
    if (!number.empty() && number.back() == '%') number.pop_back();
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) || value < 0)
      throw Error(
          ErrorKind::InvalidArgument,
          "--threshold takes a percent ('0.1%') or MEASURE=PERCENT pairs ('instructions=0.05%,branch-misses=1%'),"
          " not '" +
              printable(text) + "'.");
    return value;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (const std::size_t equals = item.find('='); equals != std::string_view::npos)
      thresholds.per_measure.emplace_back(std::string(item.substr(0, equals)), percent_of(item.substr(equals + 1)));
    else
      thresholds.percent = percent_of(item);
    start = comma + 1;
  }
  return thresholds;
}

std::vector<BenchChange> compare_bench_results(const BenchResults& base, const BenchResults& now,
                                               const BenchThresholds& thresholds) {
  auto find = [](const BenchResults& results, const std::string& benchmark,
                 const std::string& measure) -> std::optional<double> {
    for (const BenchResult& result : results)
      if (result.benchmark == benchmark)
        for (const BenchMeasure& named : result.measures)
          if (named.name == measure) return named.value;
    return std::nullopt;
  };
  std::vector<BenchChange> changes;
  auto add = [&](const std::string& benchmark, const std::string& measure) {
    for (const BenchChange& known : changes)
      if (known.benchmark == benchmark && known.measure == measure) return;
    BenchChange& change = changes.emplace_back();
    change.benchmark = benchmark;
    change.measure = measure;
    change.base = find(base, benchmark, measure);
    change.now = find(now, benchmark, measure);
    change.threshold = thresholds.for_measure(measure);
    if (!change.base || !change.now) return;
    if (*change.base != 0) {
      change.percent = (*change.now - *change.base) / std::fabs(*change.base) * 100;
      change.regression = *change.percent > change.threshold;
      change.improvement = *change.percent < -change.threshold;
    } else if (*change.now == 0) {
      change.percent = 0;
    } else {
      change.regression = *change.now > 0;  // from nothing: any growth
      change.improvement = *change.now < 0;
    }
  };
  for (const BenchResult& result : now)
    for (const BenchMeasure& measure : result.measures) add(result.benchmark, measure.name);
  for (const BenchResult& result : base)
    for (const BenchMeasure& measure : result.measures) add(result.benchmark, measure.name);
  return changes;
}

std::string bench_results_table(const BenchResults& results) {
  std::vector<std::vector<std::string>> lines = {{"benchmark", "measure", "value", "spread"}};
  for (const BenchResult& result : results)
    for (std::size_t m = 0; m < result.measures.size(); ++m) {
      const BenchMeasure& measure = result.measures[m];
      lines.push_back({m == 0 ? printable(result.benchmark) : "", printable(measure.name), number_text(measure.value),
                       number_text(measure.upper - measure.lower)});
    }
  return aligned(lines, "llrr");
}

std::string bench_changes_table(const std::vector<BenchChange>& changes) {
  std::vector<std::vector<std::string>> lines = {{"benchmark", "measure", "base", "now", "change", ""}};
  std::string previous;
  for (const BenchChange& change : changes) {
    std::string word = verdict(change);
    if (change.regression || change.improvement)
      word += " (threshold " + present::format_text("%g%%", change.threshold) + ")";
    lines.push_back({change.benchmark == previous ? "" : printable(change.benchmark), printable(change.measure),
                     change.base ? number_text(*change.base) : "", change.now ? number_text(*change.now) : "",
                     change_text(change), word});
    previous = change.benchmark;
  }
  return aligned(lines, "llrrrl");
}

std::string bench_functions_table(const std::vector<BenchChange>& functions) {
  std::vector<std::vector<std::string>> lines = {{"function", "base", "now", "change", ""}};
  for (const BenchChange& change : functions) {
    const double grew = change.now.value_or(0) - change.base.value_or(0);
    lines.push_back({printable(change.benchmark), number_text(change.base.value_or(0)),
                     number_text(change.now.value_or(0)), (grew > 0 ? "+" : "") + number_text(grew),
                     change.percent ? "(" + percent_text(*change.percent) + ")"
                     : change.base  ? ""
                                    : "(new)"});
  }
  return aligned(lines, "lrrrl");
}

std::string bench_changes_markdown(const std::vector<BenchChange>& changes) {
  const auto regressions =
      std::count_if(changes.begin(), changes.end(), [](const BenchChange& c) { return c.regression; });
  std::string out =
      "### perfmon bench: " +
      (regressions == 0 ? std::string("no regression")
                        : std::to_string(regressions) + (regressions == 1 ? " regression" : " regressions")) +
      "\n\n| Benchmark | Measure | Base | Now | Change | |\n|---|---|---:|---:|---:|---|\n";
  for (const BenchChange& change : changes) {
    std::string word = verdict(change);
    if (change.regression) word = ":x: regression, past " + present::format_text("%g%%", change.threshold);
    if (change.improvement) word = ":white_check_mark: improvement";
    out += "| " + markdown_cell(change.benchmark) + " | " + markdown_cell(change.measure) + " | " +
           (change.base ? number_text(*change.base) : "") + " | " + (change.now ? number_text(*change.now) : "") +
           " | " + change_text(change) + " | " + word + " |\n";
  }
  return out;
}

std::string bench_regressions(const std::vector<BenchChange>& changes) {
  std::string grew;
  std::size_t count = 0;
  for (const BenchChange& change : changes)
    if (change.regression) {
      ++count;
      grew += (grew.empty() ? "" : "; ") + printable(change.measure) + " of '" + printable(change.benchmark) + "' " +
              change_text(change) + " (threshold " + present::format_text("%g%%", change.threshold) + ")";
    }
  if (count == 0) return "";
  return std::to_string(count) +
         (count == 1 ? " measure grew past its threshold: " : " measures grew past their thresholds: ") + grew + ".";
}

std::string bench_junit(const BenchResults& results, const std::vector<BenchChange>& changes) {
  std::size_t failures = 0;
  std::string cases;
  for (const BenchResult& result : results) {
    std::string failed, measures;
    for (const BenchMeasure& measure : result.measures)
      measures += xml_text(measure.name + " " + number_text(measure.value)) + "\n";
    for (const BenchChange& change : changes)
      if (change.benchmark == result.benchmark && change.regression)
        failed += (failed.empty() ? "" : "; ") + change.measure + " " + change_text(change) + " (threshold " +
                  present::format_text("%g%%", change.threshold) + ")";
    failures += !failed.empty();
    cases += "    <testcase classname=\"perfmon.bench\" name=\"" + xml_text(result.benchmark) + "\">\n";
    if (!failed.empty()) cases += "      <failure message=\"" + xml_text(failed) + "\" type=\"regression\"/>\n";
    cases += "      <system-out>" + measures + "</system-out>\n    </testcase>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"perfmon bench\" tests=\"" +
         std::to_string(results.size()) + "\" failures=\"" + std::to_string(failures) + "\">\n" + cases +
         "  </testsuite>\n</testsuites>\n";
}

}  // namespace perfmon
