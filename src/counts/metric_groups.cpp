// SPDX-License-Identifier: Apache-2.0
// How a metric set's events are counted: grouped as perf stat -M groups them, each event once.
#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/pass_plan.hpp"

namespace perfmon {

namespace {

// An event of the core PMU's PERF_METRICS, or its slots, by perf's names (with or without the PMU).
bool is_topdown(const Event& event) {
  return event.name.find("topdown-") != std::string::npos;
}
bool is_slots(const Event& event) {
  return event.name == "slots" || event.name.ends_with("/slots/") || event.name.ends_with("@slots@");
}

// Whether `events`, as one group, fit on the counters at once: on none where they take none, else on
// the budget (asked for only then, once; none: not known). The topdown events and slots take none
// of the programmable counters (PERF_METRICS and the fixed slots counter), so they are not asked.
class Fit {
 public:
  explicit Fit(const MetricGrouping& rules) : rules_(rules) {}
  std::optional<bool> operator()(const std::vector<Event>& events) {
    EventGroup group;
    for (const Event& event : events)
      if (!is_topdown(event) && !is_slots(event)) group.events.push_back(event);
    if (multiplexing_reason({group}, CounterBudget{}).empty()) return true;
    if (!asked_) {
      asked_ = true;
      if (rules_.budget) budget_ = rules_.budget();
    }
    if (!budget_) return std::nullopt;
    return multiplexing_reason({group}, *budget_).empty();
  }

 private:
  const MetricGrouping& rules_;
  bool asked_ = false;
  std::optional<CounterBudget> budget_;
};

// A group being planned: its events, and whether it is a lone event of a metric counted apart,
// which a later metric's group may take in.
struct Planned {
  std::vector<Event> events;
  bool loose = false;
};

}  // namespace

std::vector<EventGroup> group_topdown_events(std::vector<EventGroup> groups) {
  EventGroup together;
  std::vector<EventGroup> rest;
  std::size_t at = groups.size();  // where the topdown group goes: its first member's place
  for (EventGroup& group : groups) {
    if (group.events.size() == 1 && (is_topdown(group.events.front()) || is_slots(group.events.front()))) {
      if (at == groups.size()) at = rest.size();
      if (is_slots(group.events.front()))
        together.events.insert(together.events.begin(), std::move(group.events.front()));
      else
        together.events.push_back(std::move(group.events.front()));
    } else {
      rest.push_back(std::move(group));
    }
  }
  if (together.events.empty()) return rest;
  rest.insert(rest.begin() + static_cast<std::ptrdiff_t>(at), std::move(together));
  return rest;
}

bool topdown_needs_slots(const std::vector<EventGroup>& groups) {
  bool topdown = false, slots = false;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) {
      topdown = topdown || is_topdown(event);
      slots = slots || is_slots(event);
    }
  return topdown && !slots;
}

MetricGrouping this_machine_grouping() {
  MetricGrouping rules;
  rules.nmi_watchdog = kernel::read_first_line("/proc/sys/kernel/nmi_watchdog") == "1";
  rules.smt_on = kernel::read_first_line("/sys/devices/system/cpu/smt/active") == "1";
  rules.budget = [] { return counter_budget(); };
  return rules;
}

bool groups_metric_events(const MetricDefinition& metric, const MetricGrouping& rules) {
  if (rules.no_group) return false;
  const std::string& constraint = metric.constraint;
  if (constraint == "NO_GROUP_EVENTS") return false;
  if (constraint == "NO_GROUP_EVENTS_NMI" || constraint == "NO_THRESHOLD_AND_NMI") return !rules.nmi_watchdog;
  if (constraint == "NO_GROUP_EVENTS_SMT") return !rules.smt_on;
  if (constraint == "NO_GROUP_EVENTS_SMT_OR_NMI") return !rules.nmi_watchdog && !rules.smt_on;
  return true;
}

MetricEventGroups metric_event_groups(const MetricTable& table, const MetricSet& set, const EventCatalog& catalog,
                                      const MetricGrouping& rules, const std::vector<EventGroup>& counted) {
  MetricEventGroups result;
  std::set<std::string> counted_names;
  for (const EventGroup& group : counted)
    for (const Event& event : group.events) counted_names.insert(event.name);
  std::vector<Planned> planned;
  std::vector<EventGroup> apart;
  std::unordered_map<std::string, std::size_t> where;  // an event's name -> its group in `planned`
  std::unordered_map<std::string, Event> known;        // events parsed, by name
  std::set<std::string> unknown;
  // The event of a name, parsed once; nothing where it is counted anyway, unknown, or apart.
  auto event_of = [&](const std::string& name) -> const Event* {
    if (is_tool_event(name) || counted_names.contains(name) || unknown.contains(name)) return nullptr;
    if (const auto found = known.find(name); found != known.end()) return &found->second;
    try {
      std::vector<EventGroup> parsed = catalog.parse(name);
      if (parsed.size() == 1 && parsed.front().events.size() == 1)
        return &known.emplace(name, std::move(parsed.front().events.front())).first->second;
      for (EventGroup& group : parsed) apart.push_back(std::move(group));
      counted_names.insert(name);
    } catch (const Error& error) {
      unknown.insert(name);
      result.unknown.emplace_back(name, error.what());
    }
    return nullptr;
  };
  Fit fits(rules);
  auto place = [&](std::size_t into, const Event& event) {
    where[event.name] = into;
    planned[into].events.push_back(event);
  };
  for (std::size_t position = 0; position < set.size(); ++position) {
    std::vector<const Event*> events;
    for (std::size_t input : set.events_of(position))
      if (const Event* event = event_of(set.events()[input])) events.push_back(event);
    if (events.size() < 2 || !groups_metric_events(table.metrics()[set.metric(position)], rules)) {
      for (const Event* event : events)
        if (!where.contains(event->name)) {
          planned.push_back({{}, true});
          place(planned.size() - 1, *event);
        }
      continue;
    }
    // The groups that hold some of its events already (lone ones aside, which it takes in).
    std::vector<std::size_t> holding;
    std::vector<const Event*> fresh;
    for (const Event* event : events) {
      const auto found = where.find(event->name);
      if (found == where.end() || planned[found->second].loose) {
        fresh.push_back(event);
      } else if (std::find(holding.begin(), holding.end(), found->second) == holding.end()) {
        holding.push_back(found->second);
      }
    }
    if (fresh.empty() && holding.size() == 1) continue;  // all in one group already
    // Joined with those groups where that fits; with no budget known, only where the metric adds to
    // one group events that take no counter (software events, tracepoints).
    std::vector<Event> joined, own;
    for (std::size_t g : holding) joined.insert(joined.end(), planned[g].events.begin(), planned[g].events.end());
    for (const Event* event : fresh) {
      joined.push_back(*event);
      own.push_back(*event);
    }
    const std::optional<bool> joined_fits = holding.empty() ? std::optional<bool>(false) : fits(joined);
    const bool join = joined_fits ? *joined_fits : holding.size() == 1 && fits(own) == true;
    if (!join && fits(own) == false) {
      // Its own events alone do not fit at once: counted apart, as a NO_GROUP_EVENTS metric's.
      for (const Event* event : fresh)
        if (!where.contains(event->name)) {
          planned.push_back({{}, true});
          place(planned.size() - 1, *event);
        }
      continue;
    }
    for (const Event* event : fresh)
      if (const auto found = where.find(event->name); found != where.end()) planned[found->second].events.clear();
    std::size_t into = planned.size();
    if (join) {
      into = holding.front();
      for (std::size_t g : holding)
        if (g != into)
          for (Event& event : std::exchange(planned[g].events, {})) place(into, event);
    } else {
      planned.push_back({});
    }
    for (const Event* event : fresh) place(into, *event);
  }
  std::vector<EventGroup>& groups = result.groups;
  for (Planned& group : planned) {
    if (group.events.empty()) continue;
    const bool topdown = std::any_of(group.events.begin(), group.events.end(), is_topdown);
    if (group.events.size() > 1 && topdown) {
      // Led by slots (the kernel's rule), which is added where this machine has it.
      const auto slots = std::find_if(group.events.begin(), group.events.end(), is_slots);
      if (slots != group.events.end()) {
        std::rotate(group.events.begin(), slots, slots + 1);
      } else {
        try {
          std::vector<EventGroup> parsed = catalog.parse("slots");
          if (parsed.size() == 1 && parsed.front().events.size() == 1)
            group.events.insert(group.events.begin(), parsed.front().events.front());
        } catch (const Error&) {  // no slots here: the topdown events then say they cannot be counted
        }
      }
    }
    if (group.events.size() > 1)
      for (Event& event : group.events) event.weak_group = true;
    groups.push_back({std::move(group.events)});
  }
  for (EventGroup& group : apart) groups.push_back(std::move(group));
  // Lone topdown events (of metrics counted apart) in one group led by slots.
  if (topdown_needs_slots(groups)) {
    try {
      for (EventGroup& group : catalog.parse("slots")) groups.push_back(std::move(group));
    } catch (const Error&) {
    }
  }
  groups = group_topdown_events(std::move(groups));
  return result;
}

}  // namespace perfmon
