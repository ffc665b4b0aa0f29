// SPDX-License-Identifier: Apache-2.0
// Tables from data/, compiled in.
#pragma once

namespace perfmon::events {

extern const char* const kIntelArchitecturalEventsCsv;  // data/intel-architectural-events.csv
extern const char* const kFreebsdPmcCoreCsv;            // data/freebsd-pmc-core.csv

}  // namespace perfmon::events
