// perfmon list: every event this machine can resolve, by source, each marked usable here or not.
#include <fnmatch.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "events/freebsd_pmc.hpp"
#include "events/libpfm.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/probe.hpp"
#include "report/stat_report.hpp"

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

}  // namespace

// perfmon list --pmu MODEL: a CPU model's events from libpfm4, whatever the host.
int list_model(const std::string& model, const std::string& pattern, bool json) {
  std::vector<events::LibpfmEvent> list;
  if (model == events::kPmcCoreModel) {
    for (const events::PmcCoreEvent& event : events::pmc_core_events()) {
      std::string description = event.description;
      std::string qualifiers = events::pmc_core_qualifiers(event);
      if (!qualifiers.empty()) description += " [" + qualifiers + "]";
      if (event.counters != events::kPmcAnyCounter)
        description += " [" + events::describe_pmc_counters(event.counters) + " only]";
      list.push_back({"pmc.core/" + event.name + "/", description});
    }
  } else {
    list = events::libpfm_events(model);
  }
  if (list.empty()) {
    std::string known;
    for (const std::string& name : events::libpfm_models()) known += (known.empty() ? "" : ", ") + name;
    std::fprintf(stderr, "perfmon list: no CPU model '%s'; libpfm4 knows: %s; perfmon's own table: %s.\n",
                 model.c_str(), known.empty() ? "none (built without libpfm4)" : known.c_str(),
                 std::string(events::kPmcCoreModel).c_str());
    return 1;
  }
  std::string out;
  for (const events::LibpfmEvent& event : list) {
    CatalogEntry entry;
    entry.name = event.name;
    if (!matches(entry, pattern)) continue;
    if (json)
      out += "{\"name\": " + report::json_quote(event.name) +
             ", \"source\": " + report::json_quote(model == events::kPmcCoreModel ? "pmc.core" : "vendor") +
             ", \"pmu\": " + report::json_quote(model) + ", \"description\": " + report::json_quote(event.description) +
             "}\n";
    else
      out += "  " + event.name + std::string(event.name.size() < 44 ? 44 - event.name.size() : 1, ' ') + " " +
             event.description + "\n";
  }
  std::string origin = model == events::kPmcCoreModel ? "FreeBSD pmc.core" : "libpfm4";
  std::fputs(((json ? "" : "Events of CPU model " + model + " (" + origin + "):\n") + out).c_str(), stdout);
  return 0;
}

int run_list(std::span<char* const> args) {
  bool json = false;
  std::string model;
  std::vector<Option> options = {
      {0, "pmu", "model",
       "list a CPU model's events (libpfm4's names: skl, icl, spr, ...; coreduo for pmc.core), on any machine",
       [&](std::string_view v) { model = std::string(v); }},
      {'j', "json", "", "print one JSON object per event", [&](std::string_view) { json = true; }},
  };
  std::vector<std::string> rest;
  if (auto status = parse_command_line(
          args, "list",
          "perfmon list [--json] [--pmu MODEL] [hw|sw|cache|pmu|vendor|pmc.core|tracepoint|raw|breakpoint|GLOB]",
          options, rest, [](const std::vector<std::string>& words) {
            if (words.size() > 1) throw UsageError("list takes at most one pattern");
          }))
    return *status;
  const std::string pattern = rest.empty() ? "" : rest.front();
  try {
    if (!model.empty()) return list_model(model, pattern, json);
    EventCatalog catalog;
    std::vector<CatalogEntry> entries = catalog.entries();
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
    for (const CatalogEntry& entry : entries) {
      if (!matches(entry, pattern)) continue;
      ++shown;
      std::string reason = probe(entry);
      if (json) {
        out += "{\"name\": " + report::json_quote(entry.name) + ", \"source\": " + report::json_quote(entry.source) +
               ", \"description\": " + report::json_quote(entry.description) +
               ", \"usable\": " + (entry.has_attr ? (reason.empty() ? "true" : "false") : "null") +
               ", \"reason\": " + report::json_quote(reason) + "}\n";
        continue;
      }
      if (entry.source != current) {
        current = entry.source;
        out += std::string(out.empty() ? "" : "\n") + heading(current) + ":\n";
      }
      char row[512];
      std::snprintf(row, sizeof row, "  %-44s %s%s\n", entry.name.c_str(), reason.empty() ? "" : "[not usable here] ",
                    entry.description.c_str());
      out += row;
      if (!reason.empty()) unusable[reason].push_back(entry.name);
    }
    if (!json && !unusable.empty()) {
      out += "\nNot usable here:\n";
      for (const auto& [reason, names] : unusable)
        out += "  " + std::to_string(names.size()) + " event" + (names.size() == 1 ? "" : "s") + " (" + names.front() +
               (names.size() > 1 ? ", ..." : "") + "): " + reason + "\n";
    }
    if (shown == 0) {
      std::fprintf(stderr,
                   "perfmon list: no event matches '%s'; try a shorter pattern, or one of hw, sw, cache, pmu, "
                   "tracepoint.\n",
                   pattern.c_str());
      return 1;
    }
    std::fputs(out.c_str(), stdout);
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "perfmon list: %s\n", error.what());
    return 1;
  }
}

}  // namespace perfmon::cli
