// SPDX-License-Identifier: Apache-2.0
#include "perfmon/metric_table.hpp"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "arch/x86/cpuid.hpp"
#include "counts/common_metrics.hpp"
#include "counts/model_metrics.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"
#include "perfmon/nearest_names.hpp"
#include "perfmon/papi_presets.hpp"
#include "perfmon/probe.hpp"

namespace perfmon {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const std::size_t end = text.find(separator);
    std::string_view part = text.substr(0, end);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) parts.emplace_back(part);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return parts;
}

std::string lower_cased(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// A JSON document that is an array of objects whose values are all strings (perf's metric tables,
// and perfmon's own, one object a line), read without building nlohmann's document: a run that
// chooses metrics reads a CPU's table of some 300 of them. Nothing (for the general reader to
// explain) where the text is anything else.
using FlatObject = std::vector<std::pair<std::string, std::string>>;
std::optional<std::vector<FlatObject>> read_flat_objects(std::string_view json) {
  std::size_t at = 0;
  auto skip_blanks = [&] {
    while (at < json.size() && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' || json[at] == '\t')) ++at;
  };
  auto take = [&](char wanted) {
    skip_blanks();
    if (at >= json.size() || json[at] != wanted) return false;
    ++at;
    return true;
  };
  auto string = [&](std::string& out) {
    if (!take('"')) return false;
    while (at < json.size() && json[at] != '"') {
      // The plain run up to the next quote or escape, at once.
      std::size_t special = at;
      while (special < json.size() && json[special] != '"' && json[special] != '\\') ++special;
      out.append(json.substr(at, special - at));
      at = special;
      if (at >= json.size() || json[at] == '"') break;
      ++at;  // the backslash
      if (at >= json.size()) return false;
      switch (const char escape = json[at++]) {
        case '"':
        case '\\':
        case '/':
          out += escape;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (at + 4 > json.size()) return false;
          unsigned code = 0;
          for (int k = 0; k < 4; ++k) {
            const char h = json[at++];
            code = code * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
            if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
          }
          if (code >= 0xd800 && code < 0xe000) return false;  // surrogates: the general reader's
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
          }
          break;
        }
        default:
          return false;
      }
    }
    return take('"');
  };
  std::vector<FlatObject> objects;
  if (!take('[')) return std::nullopt;
  if (take(']')) return objects;
  do {
    if (!take('{')) return std::nullopt;
    FlatObject object;
    if (!take('}')) {
      do {
        std::string key, value;
        if (!string(key) || !take(':') || !string(value)) return std::nullopt;
        object.emplace_back(std::move(key), std::move(value));
      } while (take(','));
      if (!take('}')) return std::nullopt;
    }
    objects.push_back(std::move(object));
  } while (take(','));
  if (!take(']')) return std::nullopt;
  skip_blanks();
  if (at != json.size()) return std::nullopt;
  return objects;
}

Error table_error(std::string_view source, const std::string& what) {
  return Error(ErrorKind::InvalidArgument, "The metric table " + std::string(source) + " " + what);
}

}  // namespace

MetricTable MetricTable::from_json(std::string_view json, std::string_view source) {
  std::optional<std::vector<FlatObject>> entries = read_flat_objects(json);
  if (!entries) {
    // Anything else, read by the general reader, which says what is wrong.
    const nlohmann::json document = nlohmann::json::parse(json, nullptr, false);
    if (document.is_discarded() || !document.is_array())
      throw table_error(source, "is not perf's metrics JSON (an array of objects): check the file.");
    entries.emplace();
    for (std::size_t i = 0; i < document.size(); ++i) {
      const nlohmann::json& entry = document[i];
      if (!entry.is_object())
        throw table_error(source, "has an entry that is not an object (entry " + std::to_string(i + 1) + ").");
      FlatObject& object = entries->emplace_back();
      for (const auto& [key, value] : entry.items()) {
        if (value.is_string())
          object.emplace_back(key, value.get<std::string>());
        else
          object.emplace_back(key, std::string(1, '\0'));  // not a string: refused below if it is a metric's field
      }
    }
  }
  MetricTable table;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const FlatObject& entry = (*entries)[i];
    auto field = [&](std::string_view name) -> const std::string* {
      for (const auto& [key, value] : entry)
        if (key == name) return &value;
      return nullptr;
    };
    if (field("MetricName") == nullptr || field("MetricExpr") == nullptr) continue;  // an event's entry
    auto text = [&](const char* name) -> std::string {
      const std::string* value = field(name);
      if (value == nullptr) return "";
      if (*value == std::string(1, '\0'))
        throw table_error(source, "gives " + std::string(name) + " of entry " + std::to_string(i + 1) +
                                      " as something other than a string.");
      return *value;
    };
    MetricDefinition metric;
    metric.name = text("MetricName");
    metric.expression = text("MetricExpr");
    metric.groups = split(text("MetricGroup"), ';');
    metric.threshold = text("MetricThreshold");
    metric.constraint = text("MetricConstraint");
    metric.description = text("BriefDescription");
    if (const std::string scale_unit = text("ScaleUnit"); !scale_unit.empty()) {
      char* end = nullptr;
      metric.scale = std::strtod(scale_unit.c_str(), &end);
      if (end == scale_unit.c_str() || !std::isfinite(metric.scale))
        throw table_error(source, "gives " + metric.name + " the ScaleUnit '" + scale_unit +
                                      "', which does not start with a number (such as 100%).");
      metric.unit = end;
    }
    try {
      table.add(std::move(metric));
    } catch (const Error& error) {
      throw table_error(source, std::string("has ") + error.what());
    }
  }
  return table;
}

namespace {

// The directory a perf mapfile.csv names for `cpuid`: the first "core" row whose pattern matches.
std::optional<std::string> mapped_model(std::string_view mapfile, const std::string& cpuid) {
  std::istringstream rows{std::string(mapfile)};
  for (std::string line; std::getline(rows, line);) {
    const std::vector<std::string> fields = split(line, ',');
    if (fields.size() < 4 || fields[0].starts_with("#") || fields[0] == "Family-model" || fields[3] != "core") continue;
    if (cpu_id_matches(fields[0], cpuid)) return fields[2];
  }
  return std::nullopt;
}

}  // namespace

MetricTable MetricTable::for_cpu(const std::string& directory, const std::string& cpuid) {
  const std::filesystem::path root(directory), mapfile = root / "mapfile.csv";
  // Files a user names: read only where they are regular files (a FIFO never holds perfmon).
  const std::optional<std::string> mapped = kernel::read_regular_file(mapfile.string());
  if (!mapped && errno == ENOENT)
    throw Error(ErrorKind::InvalidArgument, "There is no " + mapfile.string() +
                                                ": give the directory of perf's pmu-events for this architecture "
                                                "(such as tools/perf/pmu-events/arch/x86 of a Linux source tree).");
  if (!mapped)
    throw Error(
        ErrorKind::InvalidArgument,
        "Cannot read " + mapfile.string() + ": " +
            (errno == EINVAL || errno == EISDIR ? std::string("it is not a regular file") : std::strerror(errno)) +
            "; it should be perf's mapfile.csv.",
        errno);
  const std::optional<std::string> directory_of_cpu = mapped_model(*mapped, cpuid);
  if (!directory_of_cpu)
    throw Error(ErrorKind::InvalidArgument, mapfile.string() + " has no row for this CPU (" +
                                                (cpuid.empty() ? std::string("its id could not be read") : cpuid) +
                                                "): perf's tables do not cover it.");
  const std::filesystem::path model = root / *directory_of_cpu;
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(model, error))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  if (error)
    throw Error(ErrorKind::InvalidArgument, "The metrics of this CPU (" + cpuid + ") should be in " + model.string() +
                                                ", which cannot be read: " + error.message() + ".");
  std::sort(files.begin(), files.end());
  MetricTable table;
  for (const std::filesystem::path& file : files) {
    const std::optional<std::string> json = kernel::read_regular_file(file.string());
    if (!json)
      throw Error(ErrorKind::InvalidArgument, "Cannot read " + file.string() + ": " + std::strerror(errno) + ".",
                  errno);
    table.merge(from_json(*json, file.string()));
  }
  return table;
}

MetricTable MetricTable::shipped(const std::string& cpuid) {
  const std::optional<std::string> model = mapped_model(counts::kModelsMapfile, cpuid);
  if (!model) return {};
  for (const counts::ModelMetrics& entry : counts::model_metrics())
    if (entry.model == *model) return from_json(entry.json, "data/metrics/models/" + *model + "/metrics.json");
  return {};
}

std::string MetricTable::shipped_model(const std::string& cpuid) {
  return mapped_model(counts::kModelsMapfile, cpuid).value_or("");
}

void MetricTable::merge(MetricTable other) {
  for (MetricDefinition& metric : other.metrics_) {
    if (const std::optional<std::size_t> known = find(metric.name)) {
      metrics_[*known] = std::move(metric);
    } else {
      index_.emplace(lower_cased(metric.name), metrics_.size());
      metrics_.push_back(std::move(metric));
    }
  }
}

MetricTable MetricTable::for_this_machine(const std::string& pmu_events_dir, bool papi_presets) {
  const std::string cpuid = this_cpu_id();
  MetricTable table = common();
  if (papi_presets) table.merge(papi_presets_for(cpuid));
  table.merge(pmu_events_dir.empty() ? shipped(cpuid) : for_cpu(pmu_events_dir, cpuid));
  return table;
}

bool names_papi_presets(std::string_view list) {
  return std::ranges::any_of(split(list, ','),
                             [](const std::string& name) { return ::strncasecmp(name.c_str(), "PAPI", 4) == 0; });
}

bool is_tool_event(std::string_view event) {
  return event == "duration_time" || event == "user_time" || event == "system_time";
}

MetricTable MetricTable::common() {
  return from_json(counts::kCommonMetricsJson, "data/metrics/common.json");
}

void MetricTable::add(MetricDefinition metric) {
  if (metric.name.empty()) throw Error(ErrorKind::InvalidArgument, "a metric without a name.");
  if (!index_.emplace(lower_cased(metric.name), metrics_.size()).second)
    throw Error(ErrorKind::InvalidArgument, "the metric " + metric.name + " twice: each name once, case aside.");
  metrics_.push_back(std::move(metric));
}

std::optional<std::size_t> MetricTable::find(std::string_view name) const {
  const auto found = index_.find(lower_cased(name));
  if (found == index_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> MetricTable::groups() const {
  std::set<std::string> names;
  for (const MetricDefinition& metric : metrics_) names.insert(metric.groups.begin(), metric.groups.end());
  return {names.begin(), names.end()};
}

std::string MetricTable::topdown_group(long level) const {
  for (const std::string& group : groups())
    if (group == "TopdownL" + std::to_string(level) || group == "PipelineL" + std::to_string(level)) return group;
  return "";
}

std::vector<std::size_t> MetricTable::select(std::string_view list) const {
  std::vector<std::size_t> chosen;
  auto choose = [&](std::size_t index) {
    if (std::find(chosen.begin(), chosen.end(), index) == chosen.end()) chosen.push_back(index);
  };
  for (const std::string& wanted : split(list, ',')) {
    if (const std::optional<std::size_t> metric = find(wanted)) {
      choose(*metric);
      continue;
    }
    bool grouped = false;
    for (std::size_t i = 0; i < metrics_.size(); ++i)
      if (std::any_of(metrics_[i].groups.begin(), metrics_[i].groups.end(),
                      [&](const std::string& group) { return same_name(group, wanted); })) {
        choose(i);
        grouped = true;
      }
    if (grouped) continue;
    std::vector<std::string> known = groups();
    for (const MetricDefinition& metric : metrics_) known.push_back(metric.name);
    throw Error(ErrorKind::InvalidArgument, "'" + wanted + "' is neither a metric nor a group of metrics here" +
                                                did_you_mean(nearest_names(wanted, known)) +
                                                " (perfmon list metrics shows them).");
  }
  if (chosen.empty()) throw Error(ErrorKind::InvalidArgument, "no metric named: give a metric or a group of metrics.");
  return chosen;
}

MetricSet::MetricSet(const MetricTable& table, std::vector<std::size_t> chosen, const MetricFacts& facts)
    : table_(&table) {
  const std::vector<MetricDefinition>& metrics = table.metrics();
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> position_of(metrics.size(), kNone);
  std::vector<bool> visiting(metrics.size(), false);
  std::vector<std::string> path;
  auto parsed = [&](const MetricDefinition& metric, const std::string& text, const char* what) {
    try {
      MetricExpression expression = MetricExpression::parse(text);
      expression.resolve(facts);
      return expression;
    } catch (const Error& error) {
      // "The metric expression 'T' does not parse: at ...", said of this metric.
      const std::string_view said = error.what();
      const std::size_t where = said.find("does not parse: ");
      throw Error(ErrorKind::InvalidArgument, "The " + std::string(what) + " of the metric " + metric.name + ", '" +
                                                  text + "', " + std::string(said.substr(where)));
    }
  };
  // A metric after the metrics its expression names: their values are its inputs.
  std::function<void(std::size_t)> compile = [&](std::size_t m) {
    if (position_of[m] != kNone) return;
    path.push_back(metrics[m].name);
    if (visiting[m]) {
      std::string cycle;
      for (const std::string& name : path) cycle += (cycle.empty() ? "" : " -> ") + name;
      throw Error(ErrorKind::InvalidArgument,
                  "The metric " + metrics[m].name + " refers to itself (" + cycle + "): the table is wrong.");
    }
    visiting[m] = true;
    MetricExpression expression = parsed(metrics[m], metrics[m].expression, "expression");
    const std::vector<bool> needed = expression.needed();
    for (std::size_t i = 0; i < expression.names().size(); ++i)
      if (const std::optional<std::size_t> referred = table.find(expression.names()[i]); referred && needed[i])
        compile(*referred);
    visiting[m] = false;
    path.pop_back();
    position_of[m] = compiled_.size();
    compiled_.push_back({m, std::move(expression), {}, std::nullopt, {}, {}});
  };
  for (std::size_t m : chosen) compile(m);
  // Thresholds, once every value is known: they may name any metric, their own too.
  for (std::size_t j = 0; j < compiled_.size(); ++j) {  // grows with the metrics thresholds name
    const MetricDefinition& metric = metrics[compiled_[j].metric];
    if (metric.threshold.empty()) continue;
    MetricExpression threshold = parsed(metric, metric.threshold, "threshold");
    const std::vector<bool> needed = threshold.needed();
    for (std::size_t i = 0; i < threshold.names().size(); ++i)
      if (const std::optional<std::size_t> referred = table.find(threshold.names()[i]); referred && needed[i])
        compile(*referred);
    compiled_[j].threshold = std::move(threshold);
  }
  // Slots: the events first, then each compiled metric's value, then one that is never set (NaN)
  // for the names a branch ruled out by the facts would read.
  auto add_events = [&](const MetricExpression& expression) {
    const std::vector<bool> needed = expression.needed();
    for (std::size_t i = 0; i < expression.names().size(); ++i) {
      const std::string& name = expression.names()[i];
      if (needed[i] && !table.find(name) && std::find(events_.begin(), events_.end(), name) == events_.end())
        events_.push_back(name);
    }
  };
  for (const Compiled& compiled : compiled_) {
    add_events(compiled.expression);
    if (compiled.threshold) add_events(*compiled.threshold);
  }
  const std::size_t unknown = events_.size() + compiled_.size();
  auto slots_of = [&](const MetricExpression& expression) {
    const std::vector<bool> needed = expression.needed();
    std::vector<std::size_t> slots;
    for (std::size_t i = 0; i < expression.names().size(); ++i) {
      const std::string& name = expression.names()[i];
      const std::optional<std::size_t> referred = table.find(name);
      if (!needed[i] || (referred && position_of[*referred] == kNone))
        slots.push_back(unknown);
      else if (referred)
        slots.push_back(events_.size() + position_of[*referred]);
      else
        slots.push_back(static_cast<std::size_t>(std::find(events_.begin(), events_.end(), name) - events_.begin()));
    }
    return slots;
  };
  for (Compiled& compiled : compiled_) {
    compiled.inputs = slots_of(compiled.expression);
    for (std::size_t slot : compiled.inputs) {
      // An event, or the events of a metric compiled before this one.
      if (slot == unknown) continue;
      const std::vector<std::size_t> needed =
          slot < events_.size() ? std::vector<std::size_t>{slot} : compiled_[slot - events_.size()].events;
      for (std::size_t event : needed)
        if (std::find(compiled.events.begin(), compiled.events.end(), event) == compiled.events.end())
          compiled.events.push_back(event);
    }
    if (compiled.threshold) compiled.threshold_inputs = slots_of(*compiled.threshold);
  }
  for (std::size_t m : chosen) chosen_.push_back(position_of[m]);
}

std::vector<MetricResult> MetricSet::evaluate(std::span<const double> values, std::span<const double> errors) const {
  const std::size_t events = events_.size();
  std::vector<double> slots(events + compiled_.size() + 1, std::nan("")), slot_errors(slots.size(), 0);
  for (std::size_t i = 0; i < events && i < values.size(); ++i) {
    slots[i] = values[i];
    slot_errors[i] = i < errors.size() ? errors[i] : 0;
  }
  std::vector<double> in, in_errors, scratch;
  auto gather = [&](const std::vector<std::size_t>& inputs) {
    in.clear();
    in_errors.clear();
    for (std::size_t slot : inputs) {
      in.push_back(slots[slot]);
      in_errors.push_back(slot_errors[slot]);
    }
  };
  for (std::size_t j = 0; j < compiled_.size(); ++j) {
    gather(compiled_[j].inputs);
    scratch.resize(compiled_[j].expression.scratch_size());
    const MetricValue value = compiled_[j].expression.evaluate(in, in_errors, scratch);
    slots[events + j] = value.value;
    slot_errors[events + j] = value.error;
  }
  std::vector<MetricResult> results;
  for (std::size_t position : chosen_) {
    const Compiled& compiled = compiled_[position];
    const MetricDefinition& metric = table_->metrics()[compiled.metric];
    MetricResult result{compiled.metric, slots[events + position] * metric.scale,
                        slot_errors[events + position] * std::fabs(metric.scale), std::nullopt};
    if (compiled.threshold && std::isfinite(slots[events + position])) {
      gather(compiled.threshold_inputs);
      const double past = compiled.threshold->evaluate(in);
      if (!std::isnan(past)) result.over_threshold = past != 0;
    }
    results.push_back(result);
  }
  return results;
}

namespace {

std::string read_cpu_id() {
  // arm64: the MIDR, as sysfs gives it.
  if (std::string midr = kernel::read_first_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
      !midr.empty())
    return midr;
  // x86: perf's "%s-%u-%X-%X" of vendor, family, model and stepping, from CPUID as the kernel
  // derives them for /proc/cpuinfo. Elsewhere none.
  const std::optional<arch::X86Signature> signature = arch::host_x86_signature();
  if (!signature) return "";
  char id[96];
  std::snprintf(id, sizeof id, "%s-%u-%X-%X", signature->vendor.c_str(), signature->family, signature->model,
                signature->stepping);
  return id;
}

}  // namespace

std::string this_cpu_id() {
  if (const char* stand_in = std::getenv("PERF_CPUID"); stand_in != nullptr && *stand_in != '\0') return stand_in;
  static const std::string id = read_cpu_id();  // read once
  return id;
}

namespace {

// perf's #system_tsc_freq: CPUID leaf 15H's crystal clock times its ratio, else the frequency in
// the CPU's brand string ("... @ 2.10GHz"); none elsewhere (arm64) or where neither says.
std::optional<double> system_tsc_freq() {
  if (const std::optional<arch::CpuidRegisters> leaf = arch::host_cpuid(0x15);
      leaf && leaf->eax != 0 && leaf->ebx != 0 && leaf->ecx != 0)
    return static_cast<double>(leaf->ecx) * leaf->ebx / leaf->eax;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (!line.starts_with("model name")) continue;
    const std::size_t at = line.rfind('@');
    if (at == std::string::npos) return std::nullopt;
    char* end = nullptr;
    const double ghz = std::strtod(line.c_str() + at + 1, &end);
    if (end != line.c_str() + at + 1 && std::string_view(end).starts_with("GHz") && ghz > 0) return ghz * 1e9;
    return std::nullopt;
  }
  return std::nullopt;
}

// How many distinct combinations of `fields` the CPUs' topology files take
// (perf's #num_cores: package and core ids; #num_packages; #num_dies).
double distinct_topology(std::initializer_list<const char*> fields) {
  std::set<std::string> seen;
  std::error_code error;
  for (const auto& cpu : std::filesystem::directory_iterator("/sys/devices/system/cpu", error)) {
    const std::string name = cpu.path().filename().string();
    if (!name.starts_with("cpu") || name.size() == 3 || !std::isdigit(static_cast<unsigned char>(name[3]))) continue;
    std::string key;
    for (const char* field : fields) {
      std::ifstream in(cpu.path() / "topology" / field);
      std::string value;
      if (!(in >> value)) return std::nan("");
      key += value + "/";
    }
    seen.insert(key);
  }
  return seen.empty() ? std::nan("") : static_cast<double>(seen.size());
}

// perf's #slots: the pipeline's issue slots per cycle, as the core PMU's caps/slots give them.
std::optional<double> core_slots() {
  std::error_code error;
  for (const auto& pmu : std::filesystem::directory_iterator("/sys/bus/event_source/devices", error)) {
    std::ifstream in(pmu.path() / "caps" / "slots");
    if (double slots = 0; in >> slots && slots > 0) return slots;
  }
  return std::nullopt;
}

// Intel's CHAS_PER_SOCKET (#chas_per_socket in perfmon's tables): uncore CHA PMUs per package.
std::optional<double> chas_per_socket() {
  std::error_code error;
  double chas = 0;
  for (const auto& pmu : std::filesystem::directory_iterator("/sys/bus/event_source/devices", error))
    if (pmu.path().filename().string().starts_with("uncore_cha_")) ++chas;
  const double packages = distinct_topology({"physical_package_id"});
  if (chas == 0 || !(packages > 0)) return std::nullopt;
  return chas / packages;
}

// likwid's num_numadomains (#num_numa_nodes in perfmon's conversion of its groups).
std::optional<double> numa_nodes() {
  std::error_code error;
  double nodes = 0;
  for (const auto& node : std::filesystem::directory_iterator("/sys/devices/system/node", error)) {
    const std::string name = node.path().filename().string();
    if (name.starts_with("node") && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4]))) ++nodes;
  }
  return nodes > 0 ? std::optional<double>(nodes) : std::nullopt;
}

std::optional<double> known(double value) {
  return std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

}  // namespace

MetricFacts this_machine_facts(const EventCatalog& catalog) {
  MetricFacts facts;
  facts.cpuid = this_cpu_id();
  facts.literal = [](std::string_view literal) -> std::optional<double> {
    if (literal == "#num_cpus") return static_cast<double>(::sysconf(_SC_NPROCESSORS_CONF));
    if (literal == "#num_cpus_online") return static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
    if (literal == "#num_cores") return known(distinct_topology({"physical_package_id", "core_id"}));
    if (literal == "#num_packages") return known(distinct_topology({"physical_package_id"}));
    if (literal == "#num_dies") return known(distinct_topology({"physical_package_id", "die_id"}));
    if (literal == "#system_tsc_freq") return system_tsc_freq();
    if (literal == "#slots") return core_slots();
    if (literal == "#chas_per_socket") return chas_per_socket();
    if (literal == "#num_numa_nodes") return numa_nodes();
    if (literal == "#smt_on") {
      std::ifstream active("/sys/devices/system/cpu/smt/active");
      int on = 0;
      if (active >> on) return on != 0 ? 1 : 0;
      return 0;  // no SMT control: no sibling threads
    }
    return std::nullopt;
  };
  facts.has_event = [&catalog](std::string_view event) {
    try {
      return probe_event(catalog.resolve(event).attr).empty();
    } catch (const Error&) {
      return false;
    }
  };
  return facts;
}

}  // namespace perfmon
