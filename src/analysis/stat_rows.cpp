#include <linux/perf_event.h>

#include <map>

#include "analysis/hybrid_totals.hpp"
#include "events/syntax/perf_event.hpp"
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
      last_of_its_event &= !(rows[j].total_name == row.total_name && rows[j].prefix == row.prefix);
    if (!last_of_its_event) continue;
    StatRow total;
    total.prefix = row.prefix;
    total.event = row.total_name;
    total.type = row.type;
    total.config = row.config & 0xffffffffULL;  // without the PMU type, as the generic event
    total.scale = row.scale;
    total.unit = row.unit;
    total.state = StatRow::State::NotSupported;
    for (const StatRow& part : rows) {
      if (part.total_name != row.total_name || part.prefix != row.prefix) continue;
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

// One row's state and scaled value from a reading.
StatRow make_row(const CounterSession& session, std::size_t index, const CounterValue& value, std::string prefix) {
  const Event& event = session.event(index);
  StatRow row;
  row.prefix = std::move(prefix);
  // The session reports what it had to change; the name shows it as perf shows it.
  row.event = session.fallbacks(index).user_space_only ? events::user_space_only_name(event.name) : event.name;
  row.total_name = event.total_name;
  row.type = event.attr.type;
  row.config = event.attr.config;
  row.value = value;
  row.scale = event.scale;
  row.unit = event.unit;
  if (!session.supported(index))
    row.state = StatRow::State::NotSupported;
  else if (session.scheduling_failed(index))
    row.state = StatRow::State::NotScheduled;
  else if (!value.counted())
    row.state = StatRow::State::NotCounted;
  row.scaled = value.scaled() * event.scale;
  if (analysis::is_clock_event(row.type, row.config)) {
    row.scaled /= 1e6;
    row.unit = "msec";
  }
  return row;
}

}  // namespace

std::vector<std::string> location_labels(const CounterSession& session) {
  std::vector<std::string> labels;
  for (const Location& where : session.locations()) {
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

std::vector<StatRow> stat_rows(const CounterSession& session, StatBreakdown breakdown,
                               const std::vector<std::string>& labels) {
  std::vector<StatRow> rows;
  const std::size_t events = session.event_count();
  if (breakdown == StatBreakdown::Total) {
    for (std::size_t i = 0; i < events; ++i) rows.push_back(make_row(session, i, session.value(i), ""));
  } else {
    for (std::size_t l = 0; l < session.locations().size(); ++l) {
      const std::string& prefix = l < labels.size() ? labels[l] : std::to_string(l);
      for (std::size_t i = 0; i < events; ++i) rows.push_back(make_row(session, i, session.value(i, l), prefix));
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<StatRow> stat_interval_rows(const CounterSession& session, std::vector<CounterValue>& previous) {
  previous.resize(session.event_count());
  std::vector<StatRow> rows;
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    CounterValue current = session.value(i);
    rows.push_back(make_row(session, i, current - previous[i], ""));
    previous[i] = current;
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<std::string> stat_footnotes(const CounterSession& session) {
  std::map<std::string, std::string> by_reason;  // reason -> events
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    if (session.supported(i)) continue;
    std::string& names = by_reason[session.unsupported_reason(i)];
    names += (names.empty() ? "" : ", ") + session.event(i).name;
  }
  std::vector<std::string> notes;
  for (const auto& [reason, names] : by_reason) notes.push_back("<not supported> " + names + ": " + reason);
  for (const std::string& note : session.notes()) notes.push_back("note: " + note);
  return notes;
}

}  // namespace perfmon
