// Tables from data/, compiled in.
#pragma once

namespace perfmon::events {

extern const char* const kIntelArchitecturalEventsCsv;  // data/intel-architectural-events.csv

}  // namespace perfmon::events
