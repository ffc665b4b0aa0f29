// SPDX-License-Identifier: Apache-2.0
// PMUs the kernel registers under /sys/bus/event_source/devices: type, the CPUs they count on, and
// (read on first use) their format bit fields, named events with scale and unit, and caps.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <mutex>
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
  std::string describe() const;  // "event=config:0-7"
};

struct PmuEventAlias {
  std::string name;
  std::string terms;  // "event=0x3c,umask=0x00"
  double scale = 1.0;
  std::string unit;
};

struct PmuDetails {
  std::vector<FormatField> formats;
  std::vector<PmuEventAlias> events;
  std::vector<std::string> caps;  // caps/<name> as "name=value": counters, widths, PMU name

  const FormatField* format(std::string_view term) const;
  const PmuEventAlias* event(std::string_view name) const;
};

class Pmu {
 public:
  Pmu(std::string name, std::uint32_t type, std::vector<int> cpus, std::string directory);

  std::string name;
  std::uint32_t type = 0;
  std::vector<int> cpus;  // empty: every CPU

  // Read from sysfs on first use: a server's uncore PMUs hold thousands of event files, which a
  // command naming only generic events never needs. Safe to call from several threads.
  const PmuDetails& details() const;

 private:
  std::string directory_;
  std::unique_ptr<std::once_flag> once_ = std::make_unique<std::once_flag>();
  mutable PmuDetails details_;
};

// Does this PMU count the CPU's own events? The PMU behind PERF_TYPE_RAW (x86's "cpu"), the hybrid
// x86 cpu_core/cpu_atom, and arm's armv8_*/armv7_* PMUs; for an event's attr, the generic hardware
// types (PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE) too.
bool is_core_pmu(std::string_view name, std::uint32_t type);

// Parses the text of a format file ("config1:0-3,8"); throws perfmon::Error when malformed.
FormatField parse_format_field(std::string name, std::string_view text);

// Writes value into the attr bits the field names; throws perfmon::Error when it does not fit.
void pack_format_value(const FormatField& field, std::uint64_t value, perf_event_attr& attr);

// Every PMU below `devices_dir` (normally /sys/bus/event_source/devices), sorted by name: each
// one's name, type and CPUs, the rest left for details().
std::vector<Pmu> discover_pmus(const std::string& devices_dir);

}  // namespace perfmon::events
