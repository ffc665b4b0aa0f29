// SPDX-License-Identifier: Apache-2.0
// The exporter: its collectors read under one lock, then write their families into the scrape's
// text (collectors.cpp lists them; exposition.cpp writes the formats).
#include <mutex>

#include "perfmon/metrics.hpp"
#include "serve/collector.hpp"
#include "serve/exposition.hpp"

namespace perfmon {

ExpositionFormat exposition_for(std::string_view accept) {
  return accept.find("application/openmetrics-text") != std::string_view::npos ? ExpositionFormat::OpenMetrics
                                                                               : ExpositionFormat::Prometheus004;
}

std::string_view content_type(ExpositionFormat format) {
  return format == ExpositionFormat::OpenMetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                                 : "text/plain; version=0.0.4; charset=utf-8";
}

struct MetricsExporter::State {
  std::mutex reading;
  std::vector<std::unique_ptr<serve::Collector>> collectors;
};

MetricsExporter::MetricsExporter(MetricsOptions options) : state_(std::make_unique<State>()) {
  state_->collectors = serve::make_collectors(options);
}

MetricsExporter::~MetricsExporter() = default;

std::vector<std::string> MetricsExporter::unsupported() const {
  const std::lock_guard<std::mutex> lock(state_->reading);
  std::vector<std::string> said;
  for (const auto& collector : state_->collectors)
    for (std::string& line : collector->unsupported()) said.push_back(std::move(line));
  return said;
}

std::vector<std::string> MetricsExporter::not_counted() const {
  const std::lock_guard<std::mutex> lock(state_->reading);
  std::vector<std::string> said;
  for (const auto& collector : state_->collectors)
    for (std::string& line : collector->not_counted()) said.push_back(std::move(line));
  return said;
}

std::string MetricsExporter::scrape(ExpositionFormat format) {
  const std::lock_guard<std::mutex> lock(state_->reading);
  serve::Exposition out(format);
  for (const auto& collector : state_->collectors) collector->collect();
  for (const auto& collector : state_->collectors) collector->expose(out);
  return out.finish();
}

}  // namespace perfmon
