// SPDX-License-Identifier: Apache-2.0
// perfmon list: every event this machine can resolve, by source, each marked usable here or not;
// with --pmu, a CPU model's table; `list metrics` and `list metricgroups`, the metrics -M takes.
#include <fnmatch.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/likwid_group.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/papi_presets.hpp"
#include "perfmon/probe.hpp"

namespace perfmon::cli {

namespace {

const std::map<std::string, std::string> kSourceAliases = {
    {"hw", "hardware"},           {"hardware", "hardware"}, {"sw", "software"},           {"software", "software"},
    {"cache", "hw-cache"},        {"hwcache", "hw-cache"},  {"hw-cache", "hw-cache"},     {"pmu", "pmu"},
    {"tracepoint", "tracepoint"}, {"raw", "raw"},           {"breakpoint", "breakpoint"}, {"bp", "breakpoint"},
    {"vendor", "vendor"},         {"libpfm", "vendor"},     {"pmc.core", "pmc.core"},     {"freebsd", "pmc.core"},
};

const char* heading(const std::string& source) {
  if (source == "hardware") return "Hardware events (generic)";
  if (source == "software") return "Software events";
  if (source == "hw-cache") return "Hardware cache events (generic)";
  if (source == "pmu") return "PMU events (sysfs)";
  if (source == "tracepoint") return "Tracepoints";
  if (source == "vendor") return "CPU model events (libpfm4)";
  if (source == "pmc.core") return "Intel Core Solo/Duo events (FreeBSD pmc.core; on that CPU only)";
  if (source == "raw") return "Raw events";
  return "Hardware breakpoints";
}

bool matches(const CatalogEntry& entry, const std::string& pattern) {
  if (pattern.empty()) return true;
  if (auto alias = kSourceAliases.find(pattern); alias != kSourceAliases.end()) return entry.source == alias->second;
  std::string glob = pattern.find_first_of("*?[") == std::string::npos ? "*" + pattern + "*" : pattern;
  return fnmatch(glob.c_str(), entry.name.c_str(), FNM_CASEFOLD) == 0;
}

std::string row(const std::string& name, const std::string& text) {
  return "  " + name + std::string(name.size() < 44 ? 44 - name.size() : 0, ' ') + " " + text + "\n";
}

// perfmon list --pmu MODEL: a CPU model's table, whatever the host.
int list_model(const EventCatalog& catalog, const std::string& pattern, bool json) {
  const std::vector<CatalogEntry> entries = catalog.model_entries();
  std::string out;
  for (const CatalogEntry& entry : entries) {
    if (!matches(entry, pattern)) continue;
    if (json)
      out +=
          nlohmann::ordered_json{
              {"name", entry.name}, {"source", entry.source}, {"pmu", entry.pmu}, {"description", entry.description}}
              .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
          "\n";
    else
      out += row(entry.name, entry.description);
  }
  const bool pmc_core = !entries.empty() && entries.front().source == "pmc.core";
  const std::string title =
      "Events of CPU model " + catalog.cpu_model() + " (" + (pmc_core ? "FreeBSD pmc.core" : "libpfm4") + "):\n";
  std::fputs(((json ? "" : title) + out).c_str(), stdout);
  return 0;
}

// A metric's ScaleUnit as perf's JSON writes it: the scale (shortest form) and the unit.
std::string scale_unit(const MetricDefinition& metric) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.17g", metric.scale);
  // The shortest form that reads back the same: 100, 6.103515625e-05.
  for (int digits = 1; digits <= 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, metric.scale);
    if (std::strtod(shorter, nullptr) == metric.scale) {
      std::snprintf(scale, sizeof scale, "%s", shorter);
      break;
    }
  }
  return scale + metric.unit;
}

// perfmon list metrics | metricgroups: the metrics perfmon stat -M takes, each with its groups and
// expression, marked where one of its events cannot be counted here (and why); or the groups.
int list_metrics(const EventCatalog& catalog, const MetricTable& table, bool groups_only, bool json,
                 const std::string& heading = "Metrics (perfmon stat -M NAME or GROUP):") {
  std::string out;
  if (groups_only) {
    for (const std::string& group : table.groups()) {
      std::string members;
      for (const MetricDefinition& metric : table.metrics())
        if (std::find(metric.groups.begin(), metric.groups.end(), group) != metric.groups.end())
          members += (members.empty() ? "" : ", ") + metric.name;
      out += json ? nlohmann::ordered_json{{"MetricGroup", group}, {"MetricName", members}}.dump() + "\n"
                  : row(group, members);
    }
    std::fputs(((json ? "" : "Metric groups:\n") + out).c_str(), stdout);
    return 0;
  }
  std::map<std::string, std::string> reason_of;  // event -> why it cannot be counted here ("" it can)
  std::map<std::string, std::vector<std::string>> unusable_by_reason;  // reason -> metrics
  for (std::size_t m = 0; m < table.metrics().size(); ++m) {
    const MetricDefinition& metric = table.metrics()[m];
    const MetricSet set(table, {m}, {});
    std::string unusable, lacking;  // why, and the event it is about
    for (const std::string& event : set.events()) {
      if (is_tool_event(event)) continue;
      if (!reason_of.contains(event)) {
        try {
          reason_of[event] = probe_event(catalog.resolve(event).attr);
        } catch (const Error& error) {
          reason_of[event] = error.what();
        }
      }
      if (!reason_of[event].empty() && unusable.empty()) {
        unusable = reason_of[event];
        lacking = event;
      }
    }
    std::string groups;
    for (const std::string& group : metric.groups) groups += (groups.empty() ? "" : ";") + group;
    if (json) {
      nlohmann::ordered_json line{{"MetricGroup", groups},
                                  {"MetricName", metric.name},
                                  {"MetricExpr", metric.expression},
                                  {"ScaleUnit", scale_unit(metric)},
                                  {"BriefDescription", metric.description}};
      if (!metric.threshold.empty()) line["MetricThreshold"] = metric.threshold;
      line["usable"] = unusable.empty();
      line["reason"] = unusable.empty() ? "" : lacking + ": " + unusable;
      out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
      continue;
    }
    std::string text = unusable.empty() ? "" : "[not usable here: " + lacking + "]";
    if (!metric.description.empty()) text += (text.empty() ? "" : " ") + metric.description;
    if (!groups.empty()) text += (text.empty() ? "[" : " [") + groups + "]";
    out += row(metric.name, text);
    out += row("", "= " + metric.expression);
    if (!unusable.empty()) unusable_by_reason[unusable].push_back(metric.name);
  }
  if (!unusable_by_reason.empty()) {
    out += "\nNot usable here:\n";
    for (const auto& [reason, names] : unusable_by_reason)
      out += "  " + std::to_string(names.size()) + " metric" + (names.size() == 1 ? "" : "s") + " (" + names.front() +
             (names.size() > 1 ? ", ..." : "") + "): " + reason + "\n";
  }
  std::fputs(((json ? "" : heading + "\n") + out).c_str(), stdout);
  return 0;
}

// perfmon list likwid-groups: likwid's performance groups for this CPU (perfmon stat -g NAME).
int list_likwid_groups(bool json) {
  const std::string cpuid = this_cpu_id();
  const std::string arch = likwid_arch(cpuid);
  const std::vector<std::string> names = likwid_group_names("", arch);
  if (names.empty()) {
    std::printf("%s\n", arch.empty() ? ("likwid has no performance groups for this CPU (" + cpuid + ").").c_str()
                                     : ("There are no likwid performance groups in " + likwid_groups_dir() + "/" +
                                        arch + ": install likwid (apt-get install likwid) or set LIKWID_PERFGROUPS.")
                                           .c_str());
    return 0;
  }
  std::string out;
  for (const std::string& name : names) {
    std::string description;
    try {
      description = read_likwid_group("", arch, name).description;
    } catch (const Error& error) {
      description = std::string("[cannot be read: ") + error.what() + "]";
    }
    out += json ? nlohmann::ordered_json{{"LikwidGroup", name}, {"Arch", arch}, {"BriefDescription", description}}.dump(
                      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                      "\n"
                : row(name, description);
  }
  std::fputs(((json ? ""
                    : "likwid's performance groups for " + arch + " (perfmon stat -g NAME), from " +
                          likwid_groups_dir() + ":\n") +
              out)
                 .c_str(),
             stdout);
  return 0;
}

}  // namespace

int run_list(std::span<char* const> args) {
  bool json = false;
  bool raw_dump = false;
  std::string model, metrics_dir;
  std::vector<Option> options = {
      {0, "metrics-dir", "dir",
       "with metrics or metricgroups: also this CPU's metrics from perf's pmu-events laid out as in Linux's "
       "tools/perf/pmu-events/arch/ARCH",
       [&](std::string_view v) { metrics_dir = std::string(v); }},
      {0, "pmu", "model",
       "list a CPU model's events (libpfm4's names: skl, icl, spr, ...; coreduo for pmc.core), on any machine",
       [&](std::string_view v) { model = std::string(v); }},
      {'j', "json", "", "print one JSON object per event", [&](std::string_view) { json = true; }},
      {0, "raw-dump", "", "print the names only, on one line, unprobed (as perf's; what bash completion reads)",
       [&](std::string_view) { raw_dump = true; }},
  };
  std::vector<std::string> rest;
  if (auto status = parse_command_line(args, "list",
                                       "perfmon list [--json|--raw-dump] [--pmu MODEL] "
                                       "[hw|sw|cache|pmu|vendor|pmc.core|tracepoint|raw|breakpoint|metrics|"
                                       "metricgroups|likwid-groups|papi-presets|GLOB]",
                                       options, rest, [](const std::vector<std::string>& words) {
                                         if (words.size() > 1) throw UsageError("list takes at most one pattern");
                                       }))
    return *status;
  const std::string pattern = rest.empty() ? "" : rest.front();
  try {
    CatalogPaths paths;
    paths.cpu_model = model;
    EventCatalog catalog(paths);
    if (!model.empty()) return list_model(catalog, pattern, json);
    if (pattern == "likwid-groups") return list_likwid_groups(json);
    if (pattern == "papi-presets") {
      const std::string cpu = papi_cpu(this_cpu_id());
      return list_metrics(catalog, papi_presets_for(this_cpu_id()), false, json,
                          "PAPI's presets for " + (cpu.empty() ? std::string("this CPU (none in PAPI's table)") : cpu) +
                              " (perfmon stat -M NAME; the PAPI high-level library's events):");
    }
    if (pattern == "metrics" || pattern == "metricgroups")
      return list_metrics(catalog, MetricTable::for_this_machine(metrics_dir), pattern == "metricgroups", json);
    if (raw_dump) {
      std::string names;
      for (const CatalogEntry& entry : catalog.entries())
        if (matches(entry, pattern)) names += (names.empty() ? "" : " ") + entry.name;
      std::puts(names.c_str());
      return 0;
    }
    std::string out, current;
    std::map<std::string, std::vector<std::string>> unusable;  // reason -> events
    std::size_t shown = 0;
    // Opening a tracepoint event costs the kernel a synchronisation (tens of ms), and all
    // tracepoints are allowed or refused alike: one probe speaks for them all.
    std::optional<std::string> tracepoint_reason;
    auto probe = [&](const CatalogEntry& entry) -> std::string {
      if (!entry.has_attr) return "";
      if (entry.source != "tracepoint") return probe_event(entry.attr);
      if (!tracepoint_reason) tracepoint_reason = probe_event(entry.attr);
      return *tracepoint_reason;
    };
    for (const CatalogEntry& entry : catalog.entries()) {
      if (!matches(entry, pattern)) continue;
      ++shown;
      std::string reason = probe(entry);
      if (json) {
        nlohmann::ordered_json line{
            {"name", entry.name}, {"source", entry.source}, {"pmu", entry.pmu}, {"description", entry.description}};
        line["usable"] = entry.has_attr ? nlohmann::ordered_json(reason.empty()) : nlohmann::ordered_json();
        line["reason"] = reason;
        out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
        continue;
      }
      if (entry.source != current) {
        current = entry.source;
        out += std::string(out.empty() ? "" : "\n") + heading(current) + ":\n";
      }
      const char* label = reason.empty()                       ? ""
                          : counts_whole_cpus_only(entry.attr) ? "[CPU-wide only: -a or -C] "
                                                               : "[not usable here] ";
      out += row(entry.name, label + entry.description);
      if (!reason.empty()) unusable[reason].push_back(entry.name);
    }
    if (!json && !unusable.empty()) {
      out += "\nNot usable here:\n";
      for (const auto& [reason, names] : unusable)
        out += "  " + std::to_string(names.size()) + " event" + (names.size() == 1 ? "" : "s") + " (" + names.front() +
               (names.size() > 1 ? ", ..." : "") + "): " + reason + "\n";
    }
    // Tracepoints this user cannot see are missing, not absent: say why, once.
    const bool wants_tracepoints = pattern.empty() || pattern == "tracepoint" || pattern.find(':') != std::string::npos;
    if (wants_tracepoints && !catalog.tracefs_problem().empty()) {
      std::fprintf(stderr, "perfmon list: %s tracepoints: %s\n", shown == 0 ? "cannot list" : "without",
                   printable(catalog.tracefs_problem()).c_str());
      if (shown == 0) return 1;
    } else if (shown == 0) {
      std::fprintf(stderr,
                   "perfmon list: no event matches '%s'; try a shorter pattern, or one of hw, sw, cache, pmu, "
                   "tracepoint.\n",
                   printable(pattern).c_str());
      return 1;
    }
    std::fputs(out.c_str(), stdout);
    return 0;
  } catch (const Error& error) {
    return report_error("list", error, 1);
  }
}

}  // namespace perfmon::cli
