// SPDX-License-Identifier: Apache-2.0
// PAPI's preset table (data/papi/papi_events.csv, BSD-3-Clause), compiled in.
#pragma once

#include <string_view>

namespace perfmon::counts {

extern const std::string_view kPapiEventsCsv;

}  // namespace perfmon::counts
