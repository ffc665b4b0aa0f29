// SPDX-License-Identifier: Apache-2.0
// perfmon's table of the metrics every machine has (data/metrics/common.json), compiled in.
#pragma once

namespace perfmon::counts {

extern const char* const kCommonMetricsJson;

}  // namespace perfmon::counts
