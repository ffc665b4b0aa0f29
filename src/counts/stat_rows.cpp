// SPDX-License-Identifier: Apache-2.0
#include <linux/perf_event.h>

#include <map>

#include "counts/hybrid_totals.hpp"
#include "events/syntax/perf_grammar.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/stat.hpp"

namespace perfmon {

namespace analysis {

bool is_clock_event(std::uint32_t type, std::uint64_t config) {
  return type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
}

void append_hybrid_totals(std::vector<StatRow>& rows) {
  std::vector<StatRow> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back(rows[i]);
    const StatRow& row = rows[i];
    if (row.total_name.empty()) continue;
    bool last_of_its_event = true;
    for (std::size_t j = i + 1; j < rows.size(); ++j)
      last_of_its_event &=
          !(rows[j].total_name == row.total_name && rows[j].prefix == row.prefix && rows[j].region == row.region);
    if (!last_of_its_event) continue;
    StatRow total;
    total.prefix = row.prefix;
    total.prefix_kind = row.prefix_kind;
    total.region = row.region;
    total.event = row.total_name;
    total.type = row.type;
    total.config = row.config & 0xffffffffULL;  // without the PMU type, as the generic event
    total.scale = row.scale;
    total.unit = row.unit;
    total.state = StatRow::State::NotSupported;
    for (const StatRow& part : rows) {
      if (part.total_name != row.total_name || part.prefix != row.prefix || part.region != row.region) continue;
      if (part.state != StatRow::State::Counted) continue;
      total.state = StatRow::State::Counted;
      total.value.raw += part.value.raw;  // each part counted only while the task ran on its CPUs
      total.value.enabled += part.value.enabled;
      total.value.running += part.value.running;
      total.scaled += part.scaled;
    }
    out.push_back(std::move(total));
  }
  rows = std::move(out);
}

}  // namespace analysis

namespace {

// One row's state and scaled value from an event of a reading and one of its values; the error of
// an extrapolated value where the estimate is given.
StatRow make_row(const ReadingEvent& counted, const CounterValue& value, bool emulated, const std::string& prefix,
                 const std::optional<CountEstimate>& estimate) {
  const Event& event = counted.event;
  StatRow row;
  if (counted.label_kind == "region") {
    row.prefix = prefix;
    row.region = counted.label;
  } else {
    row.prefix = counted.label.empty() ? prefix : counted.label;
    row.prefix_kind = counted.label_kind;
  }
  // The session reports what it had to change; the name shows it as perf shows it.
  row.event = counted.fallbacks.user_space_only ? events::user_space_only_name(event.name) : event.name;
  row.total_name = event.total_name;
  row.type = event.attr.type;
  row.config = event.attr.config;
  row.value = value;
  row.emulated = emulated;
  row.scale = event.scale;
  row.unit = event.unit;
  if (!counted.supported)
    row.state = StatRow::State::NotSupported;
  else if (counted.scheduling_failed)
    row.state = StatRow::State::NotScheduled;
  else if (!value.counted())
    row.state = StatRow::State::NotCounted;
  row.scaled = value.scaled() * event.scale;
  if (estimate && value.running < value.enabled) row.error_percent = estimate->relative_error_percent();
  if (analysis::is_clock_event(row.type, row.config)) {
    row.scaled /= 1e6;
    row.unit = "msec";
  }
  return row;
}

// Whether the rows break down by location: asked for, and the reading keeps their values apart.
bool per_location(const Reading& reading, StatBreakdown breakdown) {
  if (breakdown == StatBreakdown::Total) return false;
  for (const ReadingEvent& event : reading.events)
    if (event.at.size() != reading.locations.size()) return false;
  return true;
}

// The rows' locations: every location, or one for the sums.
std::size_t row_locations(const Reading& reading, bool apart) {
  return apart ? reading.locations.size() : 1;
}

const CounterValue& value_at(const ReadingEvent& event, bool apart, std::size_t location) {
  return apart ? event.at[location] : event.value;
}

std::string location_prefix(bool apart, std::size_t location, const std::vector<std::string>& labels) {
  if (!apart) return "";
  return location < labels.size() ? labels[location] : std::to_string(location);
}

}  // namespace

std::vector<std::string> location_labels(const std::vector<Location>& locations) {
  std::vector<std::string> labels;
  for (const Location& where : locations) {
    if (where.cpu >= 0) {
      labels.push_back("CPU" + std::to_string(where.cpu));
      continue;
    }
    if (where.tid <= 0) {  // the calling thread
      labels.emplace_back();
      continue;
    }
    std::string comm = kernel::read_first_line("/proc/" + std::to_string(where.tid) + "/comm");
    labels.push_back((comm.empty() ? "?" : comm) + "-" + std::to_string(where.tid));
  }
  return labels;
}

std::vector<StatRow> stat_rows(const Reading& reading, StatBreakdown breakdown,
                               const std::vector<std::string>& labels) {
  std::vector<StatRow> rows;
  const bool apart = per_location(reading, breakdown);
  for (std::size_t l = 0; l < row_locations(reading, apart); ++l) {
    const std::string prefix = location_prefix(apart, l, labels);
    for (const ReadingEvent& event : reading.events)
      rows.push_back(
          make_row(event, value_at(event, apart, l), reading.emulated, prefix, apart ? std::nullopt : event.estimate));
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<StatRow> stat_interval_rows(const Reading& reading, std::vector<CounterValue>& previous,
                                        StatBreakdown breakdown, const std::vector<std::string>& labels) {
  const std::size_t events = reading.events.size();
  const bool apart = per_location(reading, breakdown);
  const std::size_t locations = row_locations(reading, apart);
  // Event-major, so that events added while a run goes on (a region's, perfmon stat --control)
  // keep the places of those before.
  previous.resize(events * locations);
  std::vector<StatRow> rows;
  for (std::size_t l = 0; l < locations; ++l) {
    const std::string prefix = location_prefix(apart, l, labels);
    for (std::size_t i = 0; i < events; ++i) {
      const ReadingEvent& event = reading.events[i];
      const CounterValue current = value_at(event, apart, l);
      CounterValue& before = previous[i * locations + l];
      rows.push_back(make_row(event, current - before, reading.emulated, prefix, std::nullopt));
      before = current;
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<std::string> stat_footnotes(const Reading& reading) {
  std::vector<std::string> notes = reading.summary;
  std::map<std::string, std::string> by_reason;  // reason -> events
  for (const ReadingEvent& event : reading.events) {
    if (event.supported) continue;
    std::string& names = by_reason[event.unsupported_reason];
    names += (names.empty() ? "" : ", ") + event.event.name;
  }
  for (const auto& [reason, names] : by_reason) notes.push_back("<not supported> " + names + ": " + reason);
  for (const std::string& note : reading.notes) notes.push_back("note: " + note);
  return notes;
}

}  // namespace perfmon
