// SPDX-License-Identifier: Apache-2.0
// The C ABI: likwid's performance groups (perfmon/likwid_group.hpp), for libperfmon-likwid.
#include <cmath>
#include <span>

#include "capi/handles.hpp"
#include "perfmon/likwid_group.hpp"

using namespace perfmon::capi;

extern "C" {

int perfmon_likwid_group_open(const char* text, perfmon_likwid_group** out) {
  if (text == nullptr || out == nullptr)
    return null_argument("a group's name or event set and room for its handle are needed.");
  *out = nullptr;
  return guarded([&] {
    std::optional<perfmon::LikwidGroup> group =
        perfmon::likwid_group_of("", perfmon::likwid_arch(perfmon::this_cpu_id()), text);
    if (!group)
      return fail(ENOENT, (std::string("'") + text +
                           "' is neither one of likwid's groups for this CPU nor likwid's EVENT:COUNTER event set.")
                              .c_str());
    auto opened = std::make_unique<perfmon_likwid_group>();
    opened->group = std::move(*group);
    for (const perfmon::LikwidGroup::Counter& counter : opened->group.counters) {
      const std::string event = perfmon::likwid_event_name(opened->group.arch, counter.counter, counter.event);
      opened->events += (opened->events.empty() ? "" : ",") + event;
      opened->counted.push_back(event);
    }
    opened->table = perfmon::likwid_group_metrics(opened->group);
    std::vector<std::size_t> every(opened->table.metrics().size());
    for (std::size_t m = 0; m < every.size(); ++m) every[m] = m;
    opened->set.emplace(opened->table, std::move(every), perfmon::MetricFacts{});
    for (const perfmon::LikwidGroup::Formula& metric : opened->group.metrics)
      opened->metric_names.push_back(metric.unit.empty() ? metric.name : metric.name + " [" + metric.unit + "]");
    *out = opened.release();
    return 0;
  });
}

const char* perfmon_likwid_group_name(const perfmon_likwid_group* group) {
  return group == nullptr ? "" : group->group.name.c_str();
}

const char* perfmon_likwid_group_events(const perfmon_likwid_group* group) {
  return group == nullptr ? "" : group->events.c_str();
}

size_t perfmon_likwid_group_event_count(const perfmon_likwid_group* group) {
  return group == nullptr ? 0 : group->group.counters.size();
}

const char* perfmon_likwid_group_event_name(const perfmon_likwid_group* group, size_t event) {
  return group == nullptr || event >= group->group.counters.size() ? nullptr
                                                                   : group->group.counters[event].event.c_str();
}

const char* perfmon_likwid_group_counter_name(const perfmon_likwid_group* group, size_t event) {
  return group == nullptr || event >= group->group.counters.size() ? nullptr
                                                                   : group->group.counters[event].counter.c_str();
}

size_t perfmon_likwid_group_metric_count(const perfmon_likwid_group* group) {
  return group == nullptr ? 0 : group->metric_names.size();
}

const char* perfmon_likwid_group_metric_name(const perfmon_likwid_group* group, size_t metric) {
  return group == nullptr || metric >= group->metric_names.size() ? nullptr : group->metric_names[metric].c_str();
}

double perfmon_likwid_group_metric_value(const perfmon_likwid_group* group, size_t metric, const double* counts,
                                         double seconds) {
  if (group == nullptr || counts == nullptr || metric >= group->metric_names.size()) return std::nan("");
  std::vector<double> values;
  for (const std::string& event : group->set->events()) {
    double value = event == "duration_time" ? seconds : std::nan("");
    for (std::size_t c = 0; c < group->counted.size() && event != "duration_time"; ++c)
      if (group->counted[c] == event) {
        value = counts[c];
        break;
      }
    values.push_back(value);
  }
  return group->set->evaluate(values)[metric].value;
}

void perfmon_likwid_group_close(perfmon_likwid_group* group) {
  std::unique_ptr<perfmon_likwid_group> owned(group);
}

}  // extern "C"
