// SPDX-License-Identifier: Apache-2.0
// perfmon: counters for Prometheus — events counted system-wide per CPU (and per cgroup where
// asked), groups kept whole, exposed in Prometheus' text format 0.0.4 or OpenMetrics 1.0. What
// `perfmon serve` answers at /metrics; usable in any program that serves its own.
//
//   perfmon::EventCatalog catalog;
//   perfmon::MetricsExporter exporter({catalog.parse("task-clock,{cycles,instructions}")});
//   std::string text = exporter.scrape(perfmon::exposition_for(accept_header));
//
// One family per quantity, the event a label (event names hold ':', '/' and ',', which metric
// names cannot): perfmon_event_count_total (the raw count: events while the event was on the
// PMU), perfmon_event_scaled_count_total (the multiplexing estimate, summed a read at a time so
// that it only grows), perfmon_event_enabled_seconds_total and perfmon_event_running_seconds_total
// (a dashboard tells an estimate from a count by their ratio), each {event, pmu, cpu[, cgroup]};
// perfmon_event_unsupported_info{event, pmu, reason} 1 for an event this machine cannot count,
// which is left out of the others (a scrape never fails for it).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/event.hpp"

namespace perfmon {

struct MetricsOptions {
  std::vector<EventGroup> groups;
  std::vector<int> cpus;  // the CPUs counted on; empty: every online CPU
  // Each counted apart, on the same CPUs (a path below the cgroup mount); "PARENT/*" counts each
  // child of PARENT, those that appear later too, and drops one when it goes (looked at each scrape).
  std::vector<std::string> cgroups;
  // Metrics (metric_table.hpp) over each scrape interval, from their own events counted on the same
  // CPUs: one gauge family each, perfmon_metric_<name> (IPC: perfmon_metric_ipc), and
  // perfmon_metric_unavailable_info{metric, reason} for one this machine cannot compute. Names or
  // groups as perf stat -M takes them; "" none. metrics_dir: perf's pmu-events for this CPU's own.
  std::string metrics;
  std::string metrics_dir;
};

enum class ExpositionFormat {
  Prometheus004,  // text/plain; version=0.0.4
  OpenMetrics,    // application/openmetrics-text; version=1.0.0, ended by "# EOF"
};

// The format an HTTP Accept header asks for: OpenMetrics where it names it, else text 0.0.4.
ExpositionFormat exposition_for(std::string_view accept);
// The Content-Type of an answer in that format.
std::string_view content_type(ExpositionFormat format);

class MetricsExporter {
 public:
  // Opens and starts the events on every CPU, and in every cgroup. Throws perfmon::Error (an
  // event list the kernel refuses whole, a cgroup that does not exist, no permission).
  explicit MetricsExporter(MetricsOptions options);
  ~MetricsExporter();
  MetricsExporter(const MetricsExporter&) = delete;
  MetricsExporter& operator=(const MetricsExporter&) = delete;

  // Reads every counter and writes every family. Callers may scrape from several threads at once:
  // one reads at a time.
  std::string scrape(ExpositionFormat format);

  // The events this machine cannot count, with why ("event: reason"), once each.
  std::vector<std::string> unsupported() const;
  // The watched cgroups not counted now, with why ("PATH: not counted: ..."): each cgroup takes a
  // descriptor per event and CPU, and those the descriptor limit (less a reserve for the server)
  // has no room for are said here and in perfmon_cgroup_not_counted_info, never silently missing.
  std::vector<std::string> not_counted() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
