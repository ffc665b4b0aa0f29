// SPDX-License-Identifier: Apache-2.0
#include <linux/perf_event.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

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

// Whether the rows break down by location: asked for, and the reading keeps their values apart
// (and, to group CPUs by place, its locations are CPUs).
bool per_location(const Reading& reading, StatBreakdown breakdown) {
  if (breakdown == StatBreakdown::Total) return false;
  for (const ReadingEvent& event : reading.events)
    if (event.at.size() != reading.locations.size()) return false;
  if (breakdown != StatBreakdown::PerLocation)
    for (const Location& where : reading.locations)
      if (where.cpu < 0) return false;
  return true;
}

// A CPU's place in sysfs: its socket, die and core, and its NUMA node (0 where sysfs says nothing).
struct CpuPlace {
  long socket = 0, die = 0, core = 0, node = 0;
};

CpuPlace read_place(int cpu) {
  const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  auto number = [](const std::string& path) {
    const std::string text = kernel::read_first_line(path);
    return text.empty() ? 0L : std::strtol(text.c_str(), nullptr, 10);
  };
  CpuPlace place{number(topology + "physical_package_id"), number(topology + "die_id"), number(topology + "core_id"),
                 0};
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu" + std::to_string(cpu), error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("node") && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4])))
      place.node = std::strtol(name.c_str() + 4, nullptr, 10);
  }
  return place;
}

// Read once a CPU: -I's every interval groups the same CPUs again.
CpuPlace place_of(int cpu) {
  static std::mutex guard;
  static std::map<int, CpuPlace> known;
  const std::lock_guard<std::mutex> hold(guard);
  const auto [at, added] = known.try_emplace(cpu);
  if (added) at->second = read_place(cpu);
  return at->second;
}

// The rows' groups of locations: each location its own (or all one, for the sums), or the CPUs
// of each socket, die, core or node, in the order of their places, labelled as perf labels them.
struct RowGroups {
  std::vector<std::vector<std::size_t>> locations;
  std::vector<std::string> labels;
  const char* kind = nullptr;  // where CPUs are summed by place: "socket", "die", "core" or "node"

  // A row of group g: its label, and where it sums CPUs, what they are and how many.
  StatRow labelled(StatRow row, std::size_t g) const {
    if (kind != nullptr) {
      row.prefix_kind = kind;
      row.aggregated_cpus = static_cast<int>(locations[g].size());
    }
    return row;
  }
};

RowGroups row_groups(const Reading& reading, StatBreakdown breakdown, const std::vector<std::string>& labels) {
  RowGroups groups;
  const std::size_t count = reading.locations.size();
  if (!per_location(reading, breakdown)) {
    groups.locations.emplace_back();
    groups.labels.emplace_back();
    return groups;
  }
  if (breakdown == StatBreakdown::PerLocation) {
    for (std::size_t l = 0; l < count; ++l) {
      groups.locations.push_back({l});
      groups.labels.push_back(l < labels.size() ? labels[l] : std::to_string(l));
    }
    return groups;
  }
  groups.kind = breakdown == StatBreakdown::PerSocket ? "socket"
                : breakdown == StatBreakdown::PerDie  ? "die"
                : breakdown == StatBreakdown::PerCore ? "core"
                                                      : "node";
  std::map<std::vector<long>, std::vector<std::size_t>> by_place;
  for (std::size_t l = 0; l < count; ++l) {
    const CpuPlace place = place_of(reading.locations[l].cpu);
    std::vector<long> key = breakdown == StatBreakdown::PerSocket ? std::vector<long>{place.socket}
                            : breakdown == StatBreakdown::PerDie  ? std::vector<long>{place.socket, place.die}
                            : breakdown == StatBreakdown::PerCore
                                ? std::vector<long>{place.socket, place.die, place.core}
                                : std::vector<long>{place.node};
    by_place[key].push_back(l);
  }
  for (auto& [key, members] : by_place) {
    std::string label =
        breakdown == StatBreakdown::PerNode ? "N" + std::to_string(key[0]) : "S" + std::to_string(key[0]);
    if (key.size() > 1) label += "-D" + std::to_string(key[1]);
    if (key.size() > 2) label += "-C" + std::to_string(key[2]);
    groups.labels.push_back(std::move(label));
    groups.locations.push_back(std::move(members));
  }
  return groups;
}

// An event's value over a group of locations: the sum where they are apart, else its total.
CounterValue value_over(const ReadingEvent& event, const std::vector<std::size_t>& locations) {
  if (locations.empty()) return event.value;
  CounterValue sum;
  for (std::size_t l : locations) sum += event.at[l];
  return sum;
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
  const RowGroups groups = row_groups(reading, breakdown, labels);
  const bool summed = groups.locations.front().empty();
  for (std::size_t g = 0; g < groups.locations.size(); ++g) {
    for (const ReadingEvent& event : reading.events) {
      rows.push_back(groups.labelled(make_row(event, value_over(event, groups.locations[g]), reading.emulated,
                                              groups.labels[g], summed ? event.estimate : std::nullopt),
                                     g));
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<StatRow> stat_interval_rows(const Reading& reading, std::vector<CounterValue>& previous,
                                        StatBreakdown breakdown, const std::vector<std::string>& labels) {
  const std::size_t events = reading.events.size();
  const RowGroups groups = row_groups(reading, breakdown, labels);
  const std::size_t count = groups.locations.size();
  // Event-major, so that events added while a run goes on (a region's, perfmon stat --control)
  // keep the places of those before.
  previous.resize(events * count);
  std::vector<StatRow> rows;
  for (std::size_t g = 0; g < count; ++g) {
    for (std::size_t i = 0; i < events; ++i) {
      const ReadingEvent& event = reading.events[i];
      const CounterValue current = value_over(event, groups.locations[g]);
      CounterValue& before = previous[i * count + g];
      rows.push_back(
          groups.labelled(make_row(event, current - before, reading.emulated, groups.labels[g], std::nullopt), g));
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
