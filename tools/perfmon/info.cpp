// perfmon info: the capability doctor — what this machine and kernel allow, and why.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/system_info.hpp"
#include "report/stat_report.hpp"

namespace perfmon::cli {

namespace {

template <typename T>
std::string optional_text(const std::optional<T>& value, const std::string& none = "unknown") {
  return value ? std::to_string(*value) : none;
}

std::string text_report(const SystemInfo& info) {
  std::string out;
  auto line = [&](const char* key, const std::string& value) {
    char head[32];
    std::snprintf(head, sizeof head, "%-16s", key);
    out += head + value + "\n";
  };
  line("kernel", info.kernel);
  std::string cpu = info.cpu_vendor;
  if (info.family)
    cpu += " family " + std::to_string(*info.family) + " model " + std::to_string(*info.model) + " stepping " +
           std::to_string(*info.stepping);
  if (!info.cpu_model.empty()) cpu += ": " + info.cpu_model;
  line("cpu", cpu);
  line("hypervisor",
       info.hypervisor ? "yes" + (info.hypervisor_vendor.empty() ? "" : " (" + info.hypervisor_vendor + ")") : "no");
  line("hardware PMU", info.hardware_pmu_explanation);
  if (info.counters) {
    const CounterCapacity& c = *info.counters;
    std::string text = optional_text(c.general_purpose) + " general-purpose counters";
    if (c.general_width) text += " of " + std::to_string(*c.general_width) + " bits";
    if (c.fixed) text += ", " + std::to_string(*c.fixed) + " fixed of " + optional_text(c.fixed_width) + " bits";
    if (c.version) text += ", perfmon version " + std::to_string(*c.version);
    text += " (" + c.source + (info.hardware_pmu ? "" : "; the CPU has them, but they are not exposed here") + ")";
    line("counters", text);
  }
  out += "PMUs (sysfs)\n";
  for (const PmuSummary& pmu : info.pmus) {
    char row[96];
    std::snprintf(row, sizeof row, "  %-20s type %-4u %3zu events", pmu.name.c_str(), pmu.type, pmu.event_count);
    std::string text = row;
    if (!pmu.cpus.empty()) text += "  cpus " + pmu.cpus;
    for (const std::string& format : pmu.formats) text += "  " + format;
    out += text + "\n";
    if (!pmu.caps.empty()) {
      std::string caps = "    caps:";
      for (const std::string& cap : pmu.caps) caps += " " + cap;
      out += caps + "\n";
    }
  }
  line("permissions", "perf_event_paranoid " + std::to_string(info.paranoid) + " (" + info.paranoid_meaning + "); " +
                          info.permission_summary);
  line("limits", "max sample rate " + optional_text(info.max_sample_rate) + " Hz, perf_event_mlock_kb " +
                     optional_text(info.mlock_kb) + ", ulimit -l " + optional_text(info.memlock_limit_kb, "unlimited") +
                     " KiB, NMI watchdog " + (info.nmi_watchdog ? (*info.nmi_watchdog ? "on" : "off") : "unknown"));
  std::string access;
  for (const auto& [knob, value] : info.user_access) access += (access.empty() ? "" : ", ") + knob + "=" + value;
  line("user reads",
       access.empty() ? "no rdpmc or perf_user_access knob (no hardware PMU to read from user mode)" : access);
  line("tracefs", info.tracefs.empty() ? "not mounted" : info.tracefs);
  if (!info.advice.empty()) {
    out += "advice\n";
    for (const std::string& advice : info.advice) out += "  - " + advice + "\n";
  }
  return out;
}

std::string json_report(const SystemInfo& info) {
  using report::json_quote;
  auto opt = [](const auto& value) { return value ? std::to_string(*value) : std::string("null"); };
  std::string out = "{\n";
  out += "  \"kernel\": " + json_quote(info.kernel) + ",\n";
  out += "  \"cpu\": {\"vendor\": " + json_quote(info.cpu_vendor) + ", \"model_name\": " + json_quote(info.cpu_model) +
         ", \"family\": " + opt(info.family) + ", \"model\": " + opt(info.model) +
         ", \"stepping\": " + opt(info.stepping) + "},\n";
  out += "  \"hypervisor\": " + std::string(info.hypervisor ? "true" : "false") +
         ", \"hypervisor_vendor\": " + json_quote(info.hypervisor_vendor) + ",\n";
  out += "  \"hardware_pmu\": " + std::string(info.hardware_pmu ? "true" : "false") +
         ", \"hardware_pmu_name\": " + json_quote(info.hardware_pmu_name) +
         ", \"hardware_pmu_explanation\": " + json_quote(info.hardware_pmu_explanation) + ",\n";
  if (info.counters)
    out += "  \"counters\": {\"source\": " + json_quote(info.counters->source) +
           ", \"version\": " + opt(info.counters->version) +
           ", \"general_purpose\": " + opt(info.counters->general_purpose) +
           ", \"general_width\": " + opt(info.counters->general_width) + ", \"fixed\": " + opt(info.counters->fixed) +
           ", \"fixed_width\": " + opt(info.counters->fixed_width) + "},\n";
  out += "  \"pmus\": [";
  for (std::size_t i = 0; i < info.pmus.size(); ++i) {
    const PmuSummary& pmu = info.pmus[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_quote(pmu.name) +
           ", \"type\": " + std::to_string(pmu.type) + ", \"events\": " + std::to_string(pmu.event_count) +
           ", \"cpus\": " + json_quote(pmu.cpus) + ", \"formats\": [";
    for (std::size_t k = 0; k < pmu.formats.size(); ++k) out += std::string(k ? ", " : "") + json_quote(pmu.formats[k]);
    out += "], \"caps\": [";
    for (std::size_t k = 0; k < pmu.caps.size(); ++k) out += std::string(k ? ", " : "") + json_quote(pmu.caps[k]);
    out += "]}";
  }
  out += "],\n";
  out += "  \"perf_event_paranoid\": " + std::to_string(info.paranoid) +
         ", \"paranoid_meaning\": " + json_quote(info.paranoid_meaning) + ",\n";
  out += "  \"root\": " + std::string(info.root ? "true" : "false") +
         ", \"cap_perfmon\": " + (info.cap_perfmon ? "true" : "false") +
         ", \"cap_sys_admin\": " + (info.cap_sys_admin ? "true" : "false") +
         ", \"permission_summary\": " + json_quote(info.permission_summary) + ",\n";
  out += "  \"max_sample_rate\": " + opt(info.max_sample_rate) + ", \"perf_event_mlock_kb\": " + opt(info.mlock_kb) +
         ", \"memlock_limit_kb\": " + opt(info.memlock_limit_kb) + ", \"nmi_watchdog\": " + opt(info.nmi_watchdog) +
         ",\n";
  out += "  \"user_access\": {";
  for (std::size_t i = 0; i < info.user_access.size(); ++i)
    out += std::string(i ? ", " : "") + json_quote(info.user_access[i].first) + ": " +
           json_quote(info.user_access[i].second);
  out += "},\n  \"tracefs\": " + json_quote(info.tracefs) + ",\n  \"advice\": [";
  for (std::size_t i = 0; i < info.advice.size(); ++i) out += std::string(i ? ", " : "") + json_quote(info.advice[i]);
  return out + "]\n}\n";
}

}  // namespace

int run_info(std::span<char* const> args) {
  bool json = false;
  std::vector<std::string> rest;
  if (auto status = parse_command_line(args, "info", "perfmon info [--json]",
                                       {{'j', "json", "", "print JSON", [&](std::string_view) { json = true; }}}, rest,
                                       [](const std::vector<std::string>& words) {
                                         if (!words.empty()) throw UsageError("info takes no arguments");
                                       }))
    return *status;
  try {
    EventCatalog catalog;
    SystemInfo info = collect_system_info(catalog);
    std::fputs((json ? json_report(info) : text_report(info)).c_str(), stdout);
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "perfmon info: %s\n", error.what());
    return 1;
  }
}

}  // namespace perfmon::cli
