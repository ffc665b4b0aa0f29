// SPDX-License-Identifier: Apache-2.0
// likwid's performance groups: the group file's sections, the CPU's likwid architecture, likwid's
// event names as perf's, and the metrics' formulas in perf's metric language.
#include "perfmon/likwid_group.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "counts/cpu_names.hpp"
#include "events/sources/libpfm.hpp"
#include "events/syntax/text.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"
#include "perfmon/nearest_names.hpp"

namespace perfmon {

namespace {

std::string trimmed(std::string_view text) {
  return std::string(events::trim(text));
}

// `line` 0: the file as a whole.
Error group_error(std::string_view source, std::size_t line, const std::string& what) {
  return Error(ErrorKind::InvalidArgument, std::string(source) + (line == 0 ? "" : ":" + std::to_string(line)) + ": " +
                                               what + " (likwid's group format: SHORT, EVENTSET, METRICS, LONG).");
}

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_identifier(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Intel's model numbers (family 6) to likwid's architectures, as likwid's topology names them.
std::string intel_arch(unsigned model, unsigned stepping) {
  switch (model) {
    case 0x1A:
    case 0x1E:
    case 0x1F:
      return "nehalem";
    case 0x2E:
      return "nehalemEX";
    case 0x25:
    case 0x2C:
      return "westmere";
    case 0x2F:
      return "westmereEX";
    case 0x2A:
      return "sandybridge";
    case 0x2D:
      return "sandybridgeEP";
    case 0x3A:
      return "ivybridge";
    case 0x3E:
      return "ivybridgeEP";
    case 0x3C:
    case 0x45:
    case 0x46:
      return "haswell";
    case 0x3F:
      return "haswellEP";
    case 0x3D:
    case 0x47:
      return "broadwell";
    case 0x56:
      return "broadwellD";
    case 0x4F:
      return "broadwellEP";
    case 0x4E:
    case 0x5E:
    case 0x8E:
    case 0x9E:
    case 0xA5:
    case 0xA6:
      return "skylake";
    case 0x55:
      return stepping >= 5 ? "CLX" : "skylakeX";
    case 0x7D:
    case 0x7E:
      return "ICL";
    case 0x6A:
    case 0x6C:
      return "ICX";
    case 0xA7:
      return "RKL";
    case 0x8C:
    case 0x8D:
      return "TGL";
    case 0x57:
    case 0x85:
      return "knl";
    case 0x37:
    case 0x4A:
    case 0x4D:
    case 0x5A:
    case 0x5D:
    case 0x4C:
      return "silvermont";
    case 0x5C:
    case 0x5F:
      return "goldmont";
    case 0x1C:
    case 0x26:
    case 0x27:
    case 0x35:
    case 0x36:
      return "atom";
    case 0x0F:
    case 0x17:
    case 0x1D:
      return "core2";
    default:
      return "";
  }
}

// A number as perf's lexer reads one (digits, a point, a lower-case exponent without '+'), in its
// shortest exact form: likwid's 1.E-06 is 1e-06.
std::string perf_number(std::string_view text) {
  const double value = std::strtod(std::string(text).c_str(), nullptr);
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string number = buffer;
  if (const std::size_t plus = number.find("e+"); plus != std::string::npos) number.erase(plus + 1, 1);
  return number;
}

}  // namespace

LikwidGroup parse_likwid_group(std::string_view text, std::string_view name, std::string_view arch,
                               std::string_view source) {
  LikwidGroup group;
  group.name = name;
  group.arch = arch;
  enum class Section { Header, Events, Metrics, Long } section = Section::Header;
  bool seen_events = false, seen_metrics = false;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    const std::string line = trimmed(raw);
    start = end + 1;
    ++number;
    if (section == Section::Long) {
      group.long_description += std::string(raw) + "\n";
      if (end == text.size()) break;
      continue;
    }
    if (line.empty() || line.starts_with('#')) continue;
    if (line.starts_with("SHORT")) {
      group.description = trimmed(std::string_view(line).substr(5));
    } else if (line == "EVENTSET") {
      section = Section::Events;
      seen_events = true;
    } else if (line == "METRICS") {
      section = Section::Metrics;
      seen_metrics = true;
    } else if (line == "LONG") {
      section = Section::Long;
    } else if (section == Section::Header) {
      if (line != "REQUIRE_NOHT") throw group_error(source, number, "'" + line + "' before EVENTSET");
    } else if (section == Section::Events) {
      const std::size_t space = line.find_first_of(" \t");
      if (space == std::string::npos) throw group_error(source, number, "the counter '" + line + "' has no event");
      group.counters.push_back({line.substr(0, space), trimmed(std::string_view(line).substr(space))});
    } else {
      // The name (a unit in brackets in it), then the formula: the line's last word, with the words
      // before it while its parentheses do not balance or an operator joins them (a long formula
      // may have spaces in it).
      std::vector<std::string> words;
      for (std::size_t at = 0; at < line.size();) {
        const std::size_t word = line.find_first_not_of(" \t", at);
        if (word == std::string::npos) break;
        const std::size_t after = std::min(line.find_first_of(" \t", word), line.size());
        words.push_back(line.substr(word, after - word));
        at = after;
      }
      if (words.size() < 2) throw group_error(source, number, "the metric '" + line + "' has no formula");
      auto is_operator = [](char c) { return c == '+' || c == '-' || c == '*' || c == '/'; };
      auto balance = [](const std::string& text) {
        return std::count(text.begin(), text.end(), '(') - std::count(text.begin(), text.end(), ')');
      };
      LikwidGroup::Formula metric;
      std::size_t first = words.size() - 1;
      metric.formula = words[first];
      while (first > 1 && (balance(metric.formula) < 0 || is_operator(metric.formula.front()) ||
                           is_operator(words[first - 1].back()))) {
        --first;
        metric.formula = words[first] + metric.formula;
      }
      for (std::size_t w = 0; w < first; ++w) metric.name += (w == 0 ? "" : " ") + words[w];
      if (const std::size_t open = metric.name.find('['), close = metric.name.find(']', open);
          open != std::string::npos && close != std::string::npos) {
        metric.unit = metric.name.substr(open + 1, close - open - 1);
        metric.name = trimmed(metric.name.substr(0, open)) +
                      (close + 1 < metric.name.size() ? " " + trimmed(metric.name.substr(close + 1)) : "");
        metric.name = trimmed(metric.name);
        if (metric.name.empty()) metric.name = metric.unit;  // "[MFLOP/s] formula": named by its unit
      }
      group.metrics.push_back(std::move(metric));
    }
    if (end == text.size()) break;
  }
  if (!seen_events) throw group_error(source, 0, "no EVENTSET");
  if (!seen_metrics) throw group_error(source, 0, "no METRICS");
  if (group.counters.empty()) throw group_error(source, 0, "an EVENTSET without events");
  return group;
}

std::string likwid_groups_dir() {
  if (const char* dir = std::getenv("LIKWID_PERFGROUPS"); dir != nullptr && *dir != '\0') return dir;
  return "/usr/share/likwid/perfgroups";
}

std::string likwid_arch(const std::string& cpuid) {
  if (cpuid.starts_with("0x")) {  // an arm64 MIDR
    const unsigned long long midr = std::strtoull(cpuid.c_str(), nullptr, 16);
    const unsigned implementer = (midr >> 24) & 0xff, part = (midr >> 4) & 0xfff;
    if (implementer == 0x41 && part == 0xd0c) return "arm8_n1";
    if (implementer == 0x46 && part == 0x001) return "arm64fx";
    if ((implementer == 0x43 && part == 0x0af) || (implementer == 0x42 && part == 0x516)) return "arm8_tx2";
    return "arm8";
  }
  unsigned family = 0, model = 0, stepping = 0;
  char vendor[32] = {};
  if (std::sscanf(cpuid.c_str(), "%31[^-]-%u-%x-%x", vendor, &family, &model, &stepping) < 3) return "";
  if (std::strcmp(vendor, "GenuineIntel") == 0 && family == 6) return intel_arch(model, stepping);
  if (std::strcmp(vendor, "AuthenticAMD") == 0) {
    if (family == 0x10) return "k10";
    if (family == 0x15) return "interlagos";
    if (family == 0x16) return "kabini";
    if (family == 0x17) return model >= 0x30 ? "zen2" : "zen";
    if (family == 0x19) return "zen3";  // likwid 5.2's groups for Zen 3 serve Zen 4 as well
  }
  return "";
}

std::vector<std::string> likwid_group_names(const std::string& dir, const std::string& arch) {
  std::vector<std::string> names;
  if (arch.empty()) return names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(dir.empty() ? likwid_groups_dir() : dir) / arch, error))
    if (entry.is_regular_file() && entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

LikwidGroup read_likwid_group(const std::string& dir, const std::string& arch, const std::string& name) {
  const std::string root = dir.empty() ? likwid_groups_dir() : dir;
  if (arch.empty())
    throw Error(ErrorKind::InvalidArgument,
                "likwid has no performance groups for this CPU, so there is no group '" + name + "'.");
  const std::vector<std::string> names = likwid_group_names(root, arch);
  if (names.empty())
    throw Error(ErrorKind::InvalidArgument, "There are no likwid performance groups in " + root + "/" + arch +
                                                ": install likwid (apt-get install likwid) or set LIKWID_PERFGROUPS.");
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const std::string& group : names) known += (known.empty() ? "" : ", ") + group;
    const std::vector<std::string> nearest = nearest_names(name, names);
    throw Error(ErrorKind::InvalidArgument, "likwid has no group '" + name + "' for " + arch +
                                                " (its groups: " + known + ")" +
                                                (nearest.empty() ? "." : "; did you mean '" + nearest.front() + "'?"));
  }
  const std::string path = root + "/" + arch + "/" + name + ".txt";
  const std::optional<std::string> text = kernel::read_regular_file(path);
  if (!text) throw Error(ErrorKind::InvalidArgument, "Cannot read " + path + ": " + std::strerror(errno) + ".", errno);
  return parse_likwid_group(*text, name, arch, path);
}

std::optional<LikwidGroup> likwid_group_of(const std::string& dir, const std::string& arch, std::string_view text) {
  const std::string name = trimmed(text);
  if (name.find_first_of(",:") == std::string::npos) {
    const std::vector<std::string> names = likwid_group_names(dir, arch);
    if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
    return read_likwid_group(dir, arch, name);
  }
  // likwid's EVENT:COUNTER[:OPTION...], each upper case (perf's names and modifiers are not).
  auto upper = [](std::string_view word) {
    return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '=' || c == 'x';
    });
  };
  LikwidGroup group;
  group.name = "Custom";
  group.arch = arch;
  for (std::string_view rest = name; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    const std::string item = trimmed(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos || !upper(std::string_view(item).substr(0, colon))) return std::nullopt;
    const std::string counter = item.substr(colon + 1);
    if (counter.empty() || !(counter[0] >= 'A' && counter[0] <= 'Z')) return std::nullopt;
    for (std::size_t at = 0; at <= counter.size();) {
      const std::size_t next = std::min(counter.find(':', at), counter.size());
      if (!upper(std::string_view(counter).substr(at, next - at))) return std::nullopt;
      at = next + 1;
    }
    group.counters.push_back({counter, item.substr(0, colon)});
  }
  return group;
}

std::string likwid_event_name(const std::string& arch, std::string_view counter, std::string_view event) {
  static const std::map<std::string_view, std::string_view> kFixed = {
      {"INSTR_RETIRED_ANY", "instructions"},
      {"CPU_CLK_UNHALTED_CORE", "cycles"},
      {"CPU_CLK_UNHALTED_REF", "ref-cycles"},
      {"TOPDOWN_SLOTS", "slots"},
      {"ACTUAL_CPU_CLOCK", "msr/aperf/"},
      {"MAX_CPU_CLOCK", "msr/mperf/"},
      {"PWR_PKG_ENERGY", "power/energy-pkg/"},
      {"PWR_DRAM_ENERGY", "power/energy-ram/"},
      {"PWR_PP0_ENERGY", "power/energy-cores/"},
      {"PWR_PP1_ENERGY", "power/energy-gpu/"},
      {"PWR_PLATFORM_ENERGY", "power/energy-psys/"},
      // AMD's, in likwid's own words (libpfm4 spells them otherwise): perf's generic events are these.
      {"RETIRED_INSTRUCTIONS", "instructions"},
      {"CPU_CLOCKS_UNHALTED", "cycles"},
      {"RETIRED_BRANCH_INSTR", "branches"},
      {"RETIRED_MISP_BRANCH_INSTR", "branch-misses"}};
  if (const auto fixed = kFixed.find(event); fixed != kFixed.end()) return std::string(fixed->second);
  // Ice Lake's and later's TMA counters: the core PMU's perf-metrics, the kernel's topdown events.
  static const std::map<std::string_view, std::string_view> kTopdown = {{"RETIRING", "topdown-retiring"},
                                                                        {"FRONTEND_BOUND", "topdown-fe-bound"},
                                                                        {"BACKEND_BOUND", "topdown-be-bound"},
                                                                        {"BAD_SPECULATION", "topdown-bad-spec"}};
  if (const auto topdown = kTopdown.find(event); counter.starts_with("TMA") && topdown != kTopdown.end())
    return std::string(topdown->second);
  // The counter's options as libpfm4's modifiers.
  std::string modifiers;
  for (std::size_t colon = counter.find(':'); colon != std::string_view::npos;) {
    const std::size_t next = counter.find(':', colon + 1);
    const std::string_view option = counter.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1);
    if (option == "EDGEDETECT") {
      modifiers += ":e=1";
    } else if (option == "INVERT") {
      modifiers += ":i=1";
    } else if (option.starts_with("THRESHOLD=")) {
      modifiers += ":c=" + std::to_string(std::strtoul(std::string(option.substr(10)).c_str(), nullptr, 0));
    } else {
      modifiers += ":" + std::string(option);  // an uncore filter: the catalogue says it cannot encode it
    }
    colon = next;
  }
  if (arch.starts_with("arm")) return std::string(event) + modifiers;  // the PMU's sysfs names, case aside
  // Intel's EVENT_UMASK: where the model's table has EVENT.UMASK, that; AMD's names as they are.
  const std::string model = counts::libpfm_model(arch);
  if (!model.empty() && events::libpfm_available()) {
    for (const events::LibpfmEvent& known : events::libpfm_events(model)) {
      std::string flat = known.name;
      std::replace(flat.begin(), flat.end(), '.', '_');
      if (flat == event) return known.name + modifiers;
    }
  }
  return std::string(event) + modifiers;
}

MetricTable likwid_group_metrics(const LikwidGroup& group) {
  // Counters by their spelling in formulas (options and all), longest first.
  std::vector<std::pair<std::string, std::string>> counters;
  for (const LikwidGroup::Counter& counter : group.counters)
    counters.emplace_back(counter.counter, likwid_event_name(group.arch, counter.counter, counter.event));
  MetricTable table;
  for (const LikwidGroup::Formula& metric : group.metrics) {
    std::string expression;
    const std::string& text = metric.formula;
    for (std::size_t i = 0; i < text.size();) {
      const char c = text[i];
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
        std::size_t end = i;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
        if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
          std::size_t exponent = end + 1;
          if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
          if (exponent < text.size() && std::isdigit(static_cast<unsigned char>(text[exponent]))) {
            end = exponent;
            while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
          }
        }
        expression += perf_number(std::string_view(text).substr(i, end - i));
        i = end;
      } else if (is_identifier_start(c)) {
        std::size_t end = i;
        while (end < text.size() && is_identifier(text[end])) ++end;
        // A counter's options follow it: PMC3:EDGEDETECT, CBOX0C0:STATE=0x3F.
        std::size_t with_options = end;
        while (with_options < text.size() && text[with_options] == ':') {
          std::size_t option = with_options + 1;
          while (option < text.size() && (is_identifier(text[option]) || text[option] == '=')) ++option;
          with_options = option;
        }
        const std::string word = text.substr(i, with_options - i);
        const auto counter =
            std::find_if(counters.begin(), counters.end(), [&](const auto& known) { return known.first == word; });
        if (counter != counters.end()) {
          expression += escaped_metric_name(counter->second);
        } else if (word == "time") {
          expression += "duration_time";
        } else if (word == "inverseClock") {
          expression += "(1 / #system_tsc_freq)";
        } else if (word == "num_sockets") {
          expression += "#num_packages";
        } else if (word == "num_numadomains") {
          expression += "#num_numa_nodes";
        } else {
          // A counter the EVENTSET does not define (likwid's own files have a few): left as a name,
          // which the catalogue refuses, so the metric says what it lacks.
          expression += escaped_metric_name(word);
        }
        i = with_options;
      } else {
        expression += c;
        ++i;
      }
    }
    MetricDefinition definition;
    definition.name = metric.name;
    // A name twice in a group (likwid allows it): the later one numbered.
    for (int n = 2; table.find(definition.name); ++n) definition.name = metric.name + " (" + std::to_string(n) + ")";
    definition.expression = expression;
    definition.unit = metric.unit;
    definition.groups = {group.name};
    definition.description = group.description;
    table.add(std::move(definition));
  }
  return table;
}

}  // namespace perfmon
