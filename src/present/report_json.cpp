// SPDX-License-Identifier: Apache-2.0
#include <nlohmann/json.hpp>

#include "present/report_rows.hpp"

namespace perfmon {

std::string format_report_json(const Profile& profile, const ReportOptions& options) {
  nlohmann::ordered_json document;
  document["lost_samples"] = profile.lost().samples;
  document["lost_records"] = profile.lost().records;
  document["events"] = nlohmann::ordered_json::array();
  for (const EventProfile& event : profile.events()) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const present::ReportRow& row : present::report_rows(profile, event, options)) {
      nlohmann::ordered_json line;
      line["overhead"] = present::percent(row.period, event.period);
      line["samples"] = row.samples;
      line["period"] = row.period;
      if (options.children) {
        line["children"] = present::percent(row.children_period, event.period);
        line["children_period"] = row.children_period;
      }
      for (ReportKey key : options.sort) {
        if (key == ReportKey::Command) line["comm"] = profile.name(row.key.command);
        if (key == ReportKey::Dso) line["dso"] = profile.name(row.key.dso);
        if (key == ReportKey::Symbol) {
          line["sym"] = profile.name(row.key.symbol);
          line["kernel"] = row.key.kernel;
        }
        if (key == ReportKey::SourceLine) line["srcline"] = profile.name(row.key.source);
      }
      if (options.callchains) {
        nlohmann::ordered_json chains = nlohmann::ordered_json::array();
        for (const present::ReportChain& chain : row.chains) {
          nlohmann::ordered_json frames = nlohmann::ordered_json::array();
          for (NameId frame : chain.frames) frames.push_back(profile.name(frame));
          chains.push_back({{"overhead", present::percent(chain.period, event.period)},
                            {"period", chain.period},
                            {"frames", std::move(frames)}});
        }
        line["callchains"] = std::move(chains);
      }
      rows.push_back(std::move(line));
    }
    document["events"].push_back(
        {{"event", event.name}, {"samples", event.samples}, {"period", event.period}, {"rows", std::move(rows)}});
  }
  // Names come from the recorded programs: bytes that are not UTF-8 become U+FFFD, not an exception.
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace present {
std::string report_json_shape(const Profile& profile, const ReportOptions& options, const ReportView&) {
  return format_report_json(profile, options);
}
}  // namespace present

}  // namespace perfmon
