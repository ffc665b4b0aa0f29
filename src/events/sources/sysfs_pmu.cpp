// SPDX-License-Identifier: Apache-2.0
#include "events/sources/sysfs_pmu.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "kernel/cpu_list.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

namespace fs = std::filesystem;

int FormatField::width() const {
  int bits = 0;
  for (const BitRange& range : ranges) bits += range.high - range.low + 1;
  return bits;
}

std::string FormatField::describe() const {
  std::string text = name + "=";
  int word = ranges.front().word;
  text += word == 0 ? "config:" : "config" + std::to_string(word) + ":";
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(ranges[i].low);
    if (ranges[i].high != ranges[i].low) text += "-" + std::to_string(ranges[i].high);
  }
  return text;
}

const FormatField* PmuDetails::format(std::string_view term) const {
  for (const FormatField& field : formats)
    if (field.name == term) return &field;
  return nullptr;
}

const PmuEventAlias* PmuDetails::event(std::string_view wanted) const {
  for (const PmuEventAlias& alias : events)
    if (alias.name == wanted) return &alias;
  return nullptr;
}

bool is_core_pmu(std::string_view name, std::uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW || name == "cpu_core" ||
         name == "cpu_atom" || name.starts_with("armv8_") || name.starts_with("armv7_");
}

namespace {

[[noreturn]] void malformed(const std::string& name, const std::string& why) {
  throw Error(ErrorKind::Unsupported,
              "malformed PMU format '" + name + "': " + why + "; the kernel's sysfs entry is not understood.");
}

int parse_bit(std::string_view text, std::string_view whole, const std::string& name) {
  int bit = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bit);
  if (ec != std::errc() || end != text.data() + text.size() || bit < 0 || bit > 63)
    malformed(name, "'" + std::string(whole) + "' (expected e.g. config:0-7)");
  return bit;
}

std::string read_first_line(const fs::path& path) {
  return kernel::read_first_line(path.string());
}

void read_details(const fs::path& directory, PmuDetails& details) {
  std::error_code ec;
  for (const fs::directory_entry& format : fs::directory_iterator(directory / "format", ec)) {
    try {
      details.formats.push_back(parse_format_field(format.path().filename().string(), read_first_line(format.path())));
    } catch (const Error&) {
      // A format this version cannot parse is left out; events that need it report the missing term.
    }
  }
  std::sort(details.formats.begin(), details.formats.end(),
            [](const FormatField& a, const FormatField& b) { return a.name < b.name; });
  for (const fs::directory_entry& event : fs::directory_iterator(directory / "events", ec)) {
    std::string name = event.path().filename().string();
    if (name.find('.') != std::string::npos) continue;  // .scale, .unit, .snapshot, .per-pkg
    PmuEventAlias alias;
    alias.name = name;
    alias.terms = read_first_line(event.path());
    std::string scale = read_first_line(event.path().string() + ".scale");
    if (!scale.empty()) alias.scale = std::strtod(scale.c_str(), nullptr);
    alias.unit = read_first_line(event.path().string() + ".unit");
    details.events.push_back(std::move(alias));
  }
  std::sort(details.events.begin(), details.events.end(),
            [](const PmuEventAlias& a, const PmuEventAlias& b) { return a.name < b.name; });
  for (const fs::directory_entry& cap : fs::directory_iterator(directory / "caps", ec))
    details.caps.push_back(cap.path().filename().string() + "=" + read_first_line(cap.path()));
  std::sort(details.caps.begin(), details.caps.end());
}

}  // namespace

Pmu::Pmu(std::string pmu_name, std::uint32_t pmu_type, std::vector<int> pmu_cpus, std::string directory)
    : name(std::move(pmu_name)), type(pmu_type), cpus(std::move(pmu_cpus)), directory_(std::move(directory)) {}

const PmuDetails& Pmu::details() const {
  std::call_once(*once_, [this] { read_details(directory_, details_); });
  return details_;
}

FormatField parse_format_field(std::string name, std::string_view text) {
  FormatField field;
  field.name = std::move(name);
  std::string_view whole = text;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) malformed(field.name, "'" + std::string(whole) + "' has no ':'");
  std::string_view word_name = text.substr(0, colon);
  int word = -1;
  if (word_name == "config")
    word = 0;
  else if (word_name == "config1")
    word = 1;
  else if (word_name == "config2")
    word = 2;
  else if (word_name == "config3")
    word = 3;
  else
    malformed(field.name, "unknown attr word '" + std::string(word_name) + "'");
  text.remove_prefix(colon + 1);
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t dash = item.find('-');
    BitRange range;
    range.word = word;
    range.low = parse_bit(item.substr(0, dash), whole, field.name);
    range.high = dash == std::string_view::npos ? range.low : parse_bit(item.substr(dash + 1), whole, field.name);
    if (range.high < range.low) malformed(field.name, "bit range '" + std::string(item) + "' runs backwards");
    field.ranges.push_back(range);
  }
  if (field.ranges.empty()) malformed(field.name, "'" + std::string(whole) + "' names no bits");
  return field;
}

void pack_format_value(const FormatField& field, std::uint64_t value, perf_event_attr& attr) {
  int width = field.width();
  if (width < 64 && (value >> width) != 0) {
    char text[160];
    std::snprintf(text, sizeof text, "value 0x%llx does not fit term '%s' (%d bits, at most 0x%llx).",
                  static_cast<unsigned long long>(value), field.name.c_str(), width,
                  static_cast<unsigned long long>((std::uint64_t{1} << width) - 1));
    throw Error(ErrorKind::InvalidEvent, text);
  }
  for (const BitRange& range : field.ranges) {
    int bits = range.high - range.low + 1;
    std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    std::uint64_t part = value & mask;
    value = bits == 64 ? 0 : value >> bits;
    __u64* target = nullptr;
    switch (range.word) {
      case 0:
        target = &attr.config;
        break;
      case 1:
        target = &attr.config1;
        break;
      case 2:
        target = &attr.config2;
        break;
      default:
        throw Error(ErrorKind::Unsupported, "term '" + field.name +
                                                "' lives in config3, which this build's kernel headers do not have; "
                                                "rebuild perfmon against Linux 6.3 or newer headers.");
    }
    *target = (*target & ~(mask << range.low)) | (part << range.low);
  }
}

std::vector<Pmu> discover_pmus(const std::string& devices_dir) {
  std::vector<Pmu> pmus;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(devices_dir, ec)) {
    std::string type = read_first_line(entry.path() / "type");
    std::uint32_t type_number = 0;
    auto [end, parse_error] = std::from_chars(type.data(), type.data() + type.size(), type_number);
    if (type.empty() || parse_error != std::errc() || end != type.data() + type.size()) continue;
    std::string mask = read_first_line(entry.path() / "cpumask");
    if (mask.empty()) mask = read_first_line(entry.path() / "cpus");
    std::vector<int> cpus;
    if (!mask.empty() && kernel::parse_cpu_list(mask, kernel::kMaxKernelCpus, cpus) != kernel::CpuListError::None)
      cpus.clear();
    pmus.emplace_back(entry.path().filename().string(), type_number, std::move(cpus), entry.path().string());
  }
  std::sort(pmus.begin(), pmus.end(), [](const Pmu& a, const Pmu& b) { return a.name < b.name; });
  return pmus;
}

}  // namespace perfmon::events
