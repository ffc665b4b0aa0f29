// SPDX-License-Identifier: Apache-2.0
// perfmon's per-model metric tables (data/metrics/models, generated from Intel's and Arm's data by
// scripts/generate-metric-tables), compiled in: perf's mapfile.csv and each model's metrics.json.
#pragma once

#include <span>
#include <string_view>

namespace perfmon::counts {

struct ModelMetrics {
  std::string_view model;  // the directory the mapfile names: "sapphirerapids", "neoverse-n1"
  std::string_view json;
};

extern const std::string_view kModelsMapfile;
std::span<const ModelMetrics> model_metrics();

}  // namespace perfmon::counts
