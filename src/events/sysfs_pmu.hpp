// PMUs the kernel registers under /sys/bus/event_source/devices: type, format bit fields, named
// events with their scale and unit, and the CPUs they count on.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon::events {

// A run of bits in one of the attr's config words: word 0 is config, 1 config1, 2 config2.
struct BitRange {
  int word = 0;
  int low = 0;
  int high = 0;
};

// A format term such as "event" = "config:0-7" or "umask" = "config:8-15,32-35".
struct FormatField {
  std::string name;
  std::vector<BitRange> ranges;  // the value's low bits go into the first range
  int width() const;
};

struct PmuEventAlias {
  std::string name;
  std::string terms;  // "event=0x3c,umask=0x00"
  double scale = 1.0;
  std::string unit;
  std::string description;
};

struct Pmu {
  std::string name;
  std::uint32_t type = 0;
  std::vector<FormatField> formats;
  std::vector<PmuEventAlias> events;
  std::vector<int> cpus;          // empty: every CPU
  std::vector<std::string> caps;  // caps/<name> as "name=value": counters, widths, PMU name

  const FormatField* format(std::string_view term) const;
  const PmuEventAlias* event(std::string_view name) const;
};

// Parses the text of a format file ("config1:0-3,8"); throws perfmon::Error when malformed.
FormatField parse_format_field(std::string name, std::string_view text);

// Writes value into the attr bits the field names; throws perfmon::Error when it does not fit.
void pack_format_value(const FormatField& field, std::uint64_t value, perf_event_attr& attr);

// Reads every PMU below `devices_dir` (normally /sys/bus/event_source/devices), sorted by name.
std::vector<Pmu> discover_pmus(const std::string& devices_dir);

}  // namespace perfmon::events
