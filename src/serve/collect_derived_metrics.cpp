// SPDX-License-Identifier: Apache-2.0
// Metrics (perfmon stat -M's) as gauges: their events counted on the server's CPUs, and at each
// scrape each metric computed from the counts since the scrape before and the time between them.
#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"
#include "serve/collector.hpp"

namespace perfmon::serve {

namespace {

using Clock = std::chrono::steady_clock;

constexpr Family kUnavailable{"perfmon_metric_unavailable", "info", "",
                              "A metric this machine cannot compute, and why; it has no family of its own."};

class DerivedMetrics final : public Collector {
 public:
  explicit DerivedMetrics(const MetricsOptions& options);
  void collect() override;
  void expose(Exposition& out) const override;
  std::vector<std::string> unsupported() const override;

 private:
  // Why a chosen metric has no value: the first of its events that has none, and why.
  std::string why_no_value(std::size_t position) const;

  MetricTable table_;
  std::vector<std::size_t> chosen_;  // the metrics, by table index
  std::optional<MetricSet> set_;
  std::optional<CounterSession> session_;
  std::vector<std::size_t> event_of_input_;  // each of the set's events: its event in the session, or none
  std::vector<std::string> why_not_;         // each of the set's events: why it has no value ("" it has)
  std::vector<double> last_totals_;          // each session event's scaled total at the last scrape
  Clock::time_point last_;
  std::vector<MetricResult> results_;
  // Each chosen metric's family, its name and help kept here for the Family's views.
  std::vector<std::string> family_names_, helps_;
};

DerivedMetrics::DerivedMetrics(const MetricsOptions& options)
    : table_(MetricTable::for_this_machine(options.metrics_dir, names_papi_presets(options.metrics))) {
  EventCatalog catalog;
  chosen_ = table_.select(options.metrics);
  set_.emplace(table_, chosen_, this_machine_facts(catalog));
  // Grouped as perf stat -M groups them (each metric's events together, each event once), read
  // with one system call a group and CPU at each scrape.
  MetricEventGroups planned = metric_event_groups(table_, *set_, catalog, this_machine_grouping(), {});
  std::vector<EventGroup>& groups = planned.groups;
  constexpr std::size_t kNone = ~std::size_t{0};
  for (const std::string& event : set_->events()) {
    event_of_input_.push_back(kNone);
    why_not_.emplace_back();
    for (const auto& [unknown, why] : planned.unknown)
      if (unknown == event) why_not_.back() = why;
  }
  // Each input's event in the session's order (groups flattened), by its name.
  std::vector<std::string> order;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) order.push_back(event.name);
  for (std::size_t i = 0; i < event_of_input_.size(); ++i) {
    if (!why_not_[i].empty() || is_tool_event(set_->events()[i])) continue;
    const auto found = std::find(order.begin(), order.end(), set_->events()[i]);
    if (found != order.end()) event_of_input_[i] = static_cast<std::size_t>(found - order.begin());
  }
  if (!groups.empty()) {
    SessionOptions session;
    session.inherit = false;
    session.skip_unsupported = true;
    session_.emplace(groups, options.cpus.empty() ? Target::all_cpus() : Target::cpu_list(options.cpus), session);
    const Reading reading = session_->reading();
    for (std::size_t i = 0; i < event_of_input_.size(); ++i)
      if (event_of_input_[i] != kNone && !reading.events[event_of_input_[i]].supported)
        why_not_[i] = reading.events[event_of_input_[i]].unsupported_reason;
    last_totals_.assign(reading.events.size(), 0);
    session_->start();
  }
  last_ = Clock::now();
  for (const std::size_t m : chosen_) {
    const MetricDefinition& metric = table_.metrics()[m];
    std::string name = "perfmon_metric_";
    for (const char c : metric.name)
      name += std::isalnum(static_cast<unsigned char>(c))
                  ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                  : '_';
    family_names_.push_back(std::move(name));
    helps_.push_back((metric.description.empty() ? metric.name : metric.description) + " (" +
                     (metric.unit.empty() ? "" : metric.unit + "; ") + "perfmon's metric " + metric.name +
                     " over each scrape interval).");
  }
}

void DerivedMetrics::collect() {
  const Clock::time_point now = Clock::now();
  const double seconds = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  std::vector<double> totals;
  if (session_) {
    session_->read();
    for (const ReadingEvent& event : session_->reading().events) totals.push_back(event.value.scaled());
  }
  std::vector<double> values;
  for (std::size_t i = 0; i < event_of_input_.size(); ++i) {
    const std::string& event = set_->events()[i];
    if (event == "duration_time")
      values.push_back(seconds);
    else if (!why_not_[i].empty() || event_of_input_[i] >= totals.size())
      values.push_back(std::nan(""));
    else
      values.push_back(totals[event_of_input_[i]] - last_totals_[event_of_input_[i]]);
  }
  last_totals_ = totals;
  results_ = set_->evaluate(values);
}

std::string DerivedMetrics::why_no_value(std::size_t position) const {
  for (const std::size_t event : set_->events_of(position))
    if (!why_not_[event].empty()) return set_->events()[event] + ": " + why_not_[event];
  return "";
}

void DerivedMetrics::expose(Exposition& out) const {
  std::vector<std::pair<std::string, std::string>> unavailable;  // metric, reason
  for (std::size_t position = 0; position < results_.size(); ++position) {
    if (!std::isfinite(results_[position].value)) {
      const std::string why = why_no_value(position);
      unavailable.emplace_back(table_.metrics()[chosen_[position]].name,
                               why.empty() ? "its expression has no value for the counts of this interval" : why);
      continue;
    }
    const Family family{family_names_[position].c_str(), "gauge", "", helps_[position].c_str()};
    out.begin(family);
    out.sample(family);
    out.value(results_[position].value);
  }
  if (unavailable.empty()) return;
  out.begin(kUnavailable);
  for (const auto& [metric, reason] : unavailable) {
    out.sample(kUnavailable);
    out.label("metric", metric);
    out.label("reason", reason);
    out.value(std::uint64_t{1});
  }
}

std::vector<std::string> DerivedMetrics::unsupported() const {
  std::vector<std::string> said;
  for (std::size_t position = 0; position < chosen_.size(); ++position)
    if (const std::string why = why_no_value(position); !why.empty())
      said.push_back("metric " + table_.metrics()[chosen_[position]].name + ": " + why);
  return said;
}

}  // namespace

std::unique_ptr<Collector> collect_derived_metrics(const MetricsOptions& options) {
  if (options.metrics.empty()) return nullptr;
  return std::make_unique<DerivedMetrics>(options);
}

}  // namespace perfmon::serve
