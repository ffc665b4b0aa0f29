// SPDX-License-Identifier: Apache-2.0
// perfmon info: the capability doctor — what this machine and kernel allow, and why.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/cache_geometry.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/system_info.hpp"

namespace perfmon::cli {

namespace {

template <typename T>
std::string optional_text(const std::optional<T>& value, const std::string& none = "unknown") {
  return value ? std::to_string(*value) : none;
}

std::string emulator_text(const EmulatorInfo& emulator) {
  if (!emulator.available) return "not available: " + emulator.reason;
  return emulator.qemu + " " + emulator.qemu_version + ", plugin API " + std::to_string(emulator.plugin_api_version) +
         ", " + emulator.plugin + " (perfmon stat --emulate, perfmon record --emulate)";
}

// The caches as the emulated CPU's cache model takes them.
std::string caches_text(const CacheHierarchy& caches) {
  return "L1I " + caches.l1i.describe() + "; L1D " + caches.l1d.describe() + "; LL " + caches.ll.describe() + " (" +
         caches.source + ")";
}

nlohmann::ordered_json cache_json(const CacheGeometry& cache) {
  return {{"size", cache.size}, {"associativity", cache.associativity}, {"line_size", cache.line_size}};
}

std::string text_report(const SystemInfo& info, const EmulatorInfo& emulator) {
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
  line("permissions", info.permission_summary);
  if (info.privileged) line("unprivileged", info.unprivileged_summary);
  line("limits", "max sample rate " + optional_text(info.max_sample_rate) + " Hz, perf_event_mlock_kb " +
                     optional_text(info.mlock_kb) + ", ulimit -l " + optional_text(info.memlock_limit_kb, "unlimited") +
                     " KiB, NMI watchdog " + (info.nmi_watchdog ? (*info.nmi_watchdog ? "on" : "off") : "unknown"));
  std::string access;
  for (const auto& [knob, value] : info.user_access) access += (access.empty() ? "" : ", ") + knob + "=" + value;
  line("user reads",
       access.empty() ? "no rdpmc or perf_user_access knob (no hardware PMU to read from user mode)" : access);
  line("tracefs", info.tracefs.empty() ? info.tracefs_problem : info.tracefs);
  line("emulated CPU", emulator_text(emulator));
  line("caches", caches_text(host_cache_hierarchy()));
  if (!info.advice.empty()) {
    out += "advice\n";
    for (const std::string& advice : info.advice) out += "  - " + advice + "\n";
  }
  return out;
}

std::string json_report(const SystemInfo& info, const EmulatorInfo& emulator) {
  using Json = nlohmann::ordered_json;
  auto optional = [](const auto& value) { return value ? Json(*value) : Json(); };
  Json pmus = Json::array();
  for (const PmuSummary& pmu : info.pmus)
    pmus.push_back({{"name", pmu.name},
                    {"type", pmu.type},
                    {"core", pmu.core},
                    {"events", pmu.event_count},
                    {"cpus", pmu.cpus},
                    {"formats", pmu.formats},
                    {"caps", pmu.caps}});
  Json user_access = Json::object();
  for (const auto& [knob, value] : info.user_access) user_access[knob] = value;
  Json report = {
      {"kernel", info.kernel},
      {"cpu",
       {{"vendor", info.cpu_vendor},
        {"model_name", info.cpu_model},
        {"family", optional(info.family)},
        {"model", optional(info.model)},
        {"stepping", optional(info.stepping)}}},
      {"hypervisor", info.hypervisor},
      {"hypervisor_vendor", info.hypervisor_vendor},
      {"hardware_pmu", info.hardware_pmu},
      {"hardware_pmu_name", info.hardware_pmu_name},
      {"hardware_pmu_explanation", info.hardware_pmu_explanation},
  };
  if (info.counters) {
    const CounterCapacity& c = *info.counters;
    report["counters"] = {{"source", c.source},
                          {"version", optional(c.version)},
                          {"general_purpose", optional(c.general_purpose)},
                          {"general_width", optional(c.general_width)},
                          {"fixed", optional(c.fixed)},
                          {"fixed_width", optional(c.fixed_width)}};
  }
  report["pmus"] = pmus;
  report["perf_event_paranoid"] = info.paranoid;
  report["paranoid_meaning"] = info.paranoid_meaning;
  report["root"] = info.root;
  report["cap_perfmon"] = info.cap_perfmon;
  report["cap_sys_admin"] = info.cap_sys_admin;
  report["privileged"] = info.privileged;
  report["permission_summary"] = info.permission_summary;
  report["unprivileged"] = {{"tried", info.unprivileged_tried},
                            {"own_user_space", info.unprivileged_own_user_space},
                            {"own_kernel", info.unprivileged_own_kernel},
                            {"cpu_wide", info.unprivileged_cpu_wide},
                            {"summary", info.unprivileged_summary}};
  report["max_sample_rate"] = optional(info.max_sample_rate);
  report["perf_event_mlock_kb"] = optional(info.mlock_kb);
  report["memlock_limit_kb"] = optional(info.memlock_limit_kb);
  report["nmi_watchdog"] = optional(info.nmi_watchdog);
  report["user_access"] = user_access;
  report["tracefs"] = info.tracefs;
  report["tracefs_problem"] = info.tracefs_problem;
  report["emulated_cpu"] = {{"available", emulator.available},
                            {"qemu", emulator.qemu},
                            {"qemu_version", emulator.qemu_version},
                            {"plugin", emulator.plugin},
                            {"plugin_api_version", emulator.plugin_api_version},
                            {"reason", emulator.reason}};
  const CacheHierarchy caches = host_cache_hierarchy();
  report["caches"] = {{"l1i", cache_json(caches.l1i)},
                      {"l1d", cache_json(caches.l1d)},
                      {"ll", cache_json(caches.ll)},
                      {"source", caches.source}};
  report["advice"] = info.advice;
  // Text read from sysfs and tracefs may be any bytes: what is not UTF-8 becomes U+FFFD.
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
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
    EmulatorInfo emulator = emulator_info();
    if (!emulator.qemu.empty()) emulator.qemu_version = qemu_version(emulator.qemu);
    if (!info.hardware_pmu && emulator.available)
      info.advice.push_back(
          "No hardware PMU here: 'perfmon stat --emulate -- COMMAND' counts a command's instructions exactly on "
          "QEMU's emulated CPU, and 'perfmon record --emulate -g -- COMMAND' samples it every 100,000 of them "
          "(docs/emulated.md).");
    std::fputs((json ? json_report(info, emulator) : text_report(info, emulator)).c_str(), stdout);
    return 0;
  } catch (const Error& error) {
    return report_error("info", error, 1);
  }
}

}  // namespace perfmon::cli
