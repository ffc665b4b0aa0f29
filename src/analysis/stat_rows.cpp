#include <linux/perf_event.h>

#include <cstdio>
#include <map>
#include <utility>

#include "analysis/hybrid_totals.hpp"
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
      last_of_its_event &= !(rows[j].total_name == row.total_name && rows[j].prefix == row.prefix);
    if (!last_of_its_event) continue;
    StatRow total;
    total.prefix = row.prefix;
    total.prefix_kind = row.prefix_kind;
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

// What a row needs to know of an event, whether a session or an event set counted it.
struct CountedEvent {
  const Event& event;
  bool user_space_only;  // the session fell back to counting user space only
  bool supported;
  bool scheduling_failed;
  bool emulated;  // counted on perfmon's emulated CPU
};

// One row's state and scaled value from a reading; the error of an extrapolated value.
StatRow make_row(const CountedEvent& counted, const CounterValue& value, std::string prefix,
                 const std::optional<CountEstimate>& estimate = std::nullopt) {
  const Event& event = counted.event;
  StatRow row;
  row.prefix = std::move(prefix);
  // The session reports what it had to change; the name shows it as perf shows it.
  row.event = counted.user_space_only ? events::user_space_only_name(event.name) : event.name;
  row.total_name = event.total_name;
  row.type = event.attr.type;
  row.config = event.attr.config;
  row.value = value;
  row.emulated = counted.emulated;
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

// "<not supported> EVENTS: REASON", the events grouped by reason.
template <typename Session>
void append_unsupported_lines(const Session& session, std::vector<std::string>& notes) {
  std::map<std::string, std::string> by_reason;  // reason -> events
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    if (session.supported(i)) continue;
    std::string& names = by_reason[session.unsupported_reason(i)];
    names += (names.empty() ? "" : ", ") + session.event(i).name;
  }
  for (const auto& [reason, names] : by_reason) notes.push_back("<not supported> " + names + ": " + reason);
}

CountedEvent counted(const CounterSession& session, std::size_t index) {
  return {session.event(index), session.fallbacks(index).user_space_only, session.supported(index),
          session.scheduling_failed(index), session.emulated()};
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
    for (std::size_t i = 0; i < events; ++i)
      rows.push_back(make_row(counted(session, i), session.value(i), "", session.estimate(i)));
  } else {
    for (std::size_t l = 0; l < session.locations().size(); ++l) {
      const std::string& prefix = l < labels.size() ? labels[l] : std::to_string(l);
      for (std::size_t i = 0; i < events; ++i)
        rows.push_back(make_row(counted(session, i), session.value(i, l), prefix));
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<StatRow> stat_interval_rows(const CounterSession& session, std::vector<CounterValue>& previous,
                                        StatBreakdown breakdown, const std::vector<std::string>& labels) {
  const std::size_t events = session.event_count();
  const std::size_t locations = breakdown == StatBreakdown::Total ? 1 : session.locations().size();
  previous.resize(events * locations);
  std::vector<StatRow> rows;
  for (std::size_t l = 0; l < locations; ++l) {
    const std::string prefix =
        breakdown == StatBreakdown::Total ? "" : (l < labels.size() ? labels[l] : std::to_string(l));
    for (std::size_t i = 0; i < events; ++i) {
      const CounterValue current = breakdown == StatBreakdown::Total ? session.value(i) : session.value(i, l);
      CounterValue& before = previous[l * events + i];
      rows.push_back(make_row(counted(session, i), current - before, prefix));
      before = current;
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::string event_set_label(std::uint16_t id) {
  return "set" + std::to_string(id);
}

std::vector<StatRow> stat_rows(const EventSets& sets) {
  std::vector<StatRow> rows;
  for (std::size_t set = 0; set < sets.set_count(); ++set) {
    const std::string prefix = event_set_label(sets.info(set).id);
    for (std::size_t i = 0; i < sets.event_count(set); ++i) {
      const CountedEvent event{sets.event(set, i), false, sets.supported(set, i), false, false};
      rows.push_back(make_row(event, sets.value(set, i), prefix, sets.estimate(set, i)));
      rows.back().prefix_kind = "set";
    }
  }
  analysis::append_hybrid_totals(rows);
  return rows;
}

std::vector<std::string> stat_footnotes(const EventSets& sets) {
  std::map<std::string, std::string> by_reason;
  std::vector<std::string> notes;
  std::uint64_t whole = 0;
  for (std::size_t set = 0; set < sets.set_count(); ++set) whole += sets.info(set).active_ns;
  for (std::size_t set = 0; set < sets.set_count(); ++set) {
    const EventSetInfo info = sets.info(set);
    std::string line =
        event_set_label(info.id) + ": " + std::to_string(info.runs) + (info.runs == 1 ? " run" : " runs");
    char share[64];
    std::snprintf(share, sizeof share, ", on the PMU %.2f%% of the time",
                  whole == 0 ? 0.0 : 100.0 * static_cast<double>(info.active_ns) / static_cast<double>(whole));
    line += share;
    if (info.timeout.count() > 0) {
      std::snprintf(share, sizeof share, ", switching after %.3f ms on the PMU",
                    static_cast<double>(info.timeout.count()) / 1e6);
      line += share;
    }
    if (info.next != sets.info((set + 1) % sets.set_count()).id) line += ", then " + event_set_label(info.next);
    notes.push_back(line);
    for (std::size_t i = 0; i < sets.event_count(set); ++i) {
      if (sets.supported(set, i)) continue;
      std::string& names = by_reason[sets.unsupported_reason(set, i)];
      names += (names.empty() ? "" : ", ") + sets.event(set, i).name;
    }
  }
  notes.push_back(std::to_string(sets.switches()) +
                  " switches; '+- x%' is the standard error of a value extrapolated "
                  "from its set's share of the time.");
  for (const auto& [reason, names] : by_reason) notes.push_back("<not supported> " + names + ": " + reason);
  for (const std::string& note : sets.notes()) notes.push_back("note: " + note);
  return notes;
}

std::vector<std::string> stat_footnotes(const CounterSession& session) {
  std::vector<std::string> notes;
  append_unsupported_lines(session, notes);
  for (const std::string& note : session.notes()) notes.push_back("note: " + note);
  return notes;
}

namespace {
// The rows of the counts, or (with `previous`, then updated) of their change since previous.
std::vector<StatRow> emulated_rows(const EmulatedSession& session, std::vector<CounterValue>* previous) {
  std::vector<StatRow> rows;
  if (previous != nullptr) previous->resize(session.event_count());
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    CounterValue value = session.value(i);
    if (previous != nullptr) value = value - std::exchange((*previous)[i], value);
    rows.push_back(make_row({session.event(i), false, session.supported(i), false, true}, value, ""));
  }
  return rows;
}
}  // namespace

std::vector<StatRow> stat_rows(const EmulatedSession& session) {
  return emulated_rows(session, nullptr);
}

std::vector<StatRow> stat_interval_rows(const EmulatedSession& session, std::vector<CounterValue>& previous) {
  return emulated_rows(session, &previous);
}

std::vector<std::string> stat_footnotes(const EmulatedSession& session) {
  std::vector<std::string> notes;
  const EmulatedCounts& counts = session.counts();
  const EmulatedWorkload& workload = session.workload();
  auto count = [](std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  notes.push_back("(emulated): counted on QEMU's emulated " + workload.architecture() + " CPU (" + workload.qemu() +
                  "), not the host's: user mode only, " + count(counts.processes, "process", "processes") + ", " +
                  count(counts.threads, "thread", "threads") + "; compare emulated counts with emulated counts.");
  if (workload.options().branches)
    notes.push_back("(emulated): branches by kind: " + std::to_string(counts.conditional_branches) + " conditional, " +
                    std::to_string(counts.direct_branches) + " direct, " + std::to_string(counts.indirect_branches) +
                    " indirect (returns included).");
  if (const EmulatorOptions& options = workload.options(); options.caches) {
    const CacheHierarchy& caches = options.cache_hierarchy;
    notes.push_back("(emulated): cache model (LRU, one per thread): L1I " + caches.l1i.describe() + "; L1D " +
                    caches.l1d.describe() + "; LL " + caches.ll.describe() + " (" + caches.source + ").");
  }
  if (counts.execs_not_followed > 0)
    notes.push_back("warning: " + count(counts.execs_not_followed, "exec", "execs") +
                    " of the command ran natively, uncounted; the first: " + workload.first_exec_not_followed() + ".");
  append_unsupported_lines(session, notes);
  return notes;
}

}  // namespace perfmon
