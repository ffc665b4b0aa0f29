// SPDX-License-Identifier: Apache-2.0
// Passes run one after another: which run, their labels, and why a pass that does not run cannot.
#include <algorithm>

#include "perfmon/measurement.hpp"
#include "perfmon/probe.hpp"

namespace perfmon {

PassRuns::PassRuns(const PassPlan& plan, const std::vector<EventGroup>& groups)
    : plan_(plan), groups_(groups), runs_(plan.passes.size()) {
  for (std::size_t p = 0; p < runs_.size(); ++p)
    for (const PlannedGroup& planned : plan.passes[p].groups)
      for (const Event& event : groups[planned.group].events) runs_[p] = runs_[p] || probe_event(event.attr).empty();
  if (!runs_.empty() && std::none_of(runs_.begin(), runs_.end(), [](bool runs) { return runs; })) runs_.front() = true;
}

void PassRuns::label(Reading& reading, std::size_t pass) {
  for (ReadingEvent& event : reading.events) {
    event.label = "pass" + std::to_string(pass + 1);
    event.label_kind = "pass";
  }
}

Reading PassRuns::not_run(std::size_t pass) const {
  Reading reading;
  for (const PlannedGroup& planned : plan_.passes[pass].groups)
    for (const Event& event : groups_[planned.group].events) {
      ReadingEvent& row = reading.events.emplace_back();
      row.event = event;
      row.supported = false;
      row.unsupported_reason = probe_event(event.attr);
    }
  label(reading, pass);
  return reading;
}

std::string PassRuns::not_run_names() const {
  std::string names;
  for (std::size_t p = 0; p < runs_.size(); ++p)
    if (!runs_[p]) names += (names.empty() ? "pass" : ", pass") + std::to_string(p + 1);
  return names;
}

std::size_t PassRuns::not_run_count() const {
  return static_cast<std::size_t>(std::count(runs_.begin(), runs_.end(), false));
}

}  // namespace perfmon
