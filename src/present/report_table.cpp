// perf report --stdio's table (perf 6.1, --no-children): per event a header, then one row per
// entry, "    98.20%  command  file  [.] function", columns as wide as their widest cell.
#include <algorithm>
#include <cstdio>

#include "perfmon/address_space.hpp"
#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

namespace {

// perf's count with a unit (its convert_unit): 556, 1K, 12K, 3M.
std::string short_count(std::uint64_t count) {
  char unit = ' ';
  for (const char next : {'K', 'M', 'G'}) {
    if (count <= 1000) break;
    count /= 1000;
    unit = next;
  }
  return std::to_string(count) + unit;
}

struct Column {
  const char* title;
  std::vector<std::string> cells;
  std::size_t width = 0;
};

void pad(std::string& out, const std::string& text, std::size_t width) {
  out += text;
  out.append(width > text.size() ? width - text.size() : 0, ' ');
}

std::string symbol_cell(const Profile& profile, const ProfileEntry& key) {
  return std::string(key.kernel ? "[k] " : "[.] ") + printable(profile.name(key.symbol));
}

void print_chains(std::string& out, const Profile& profile, const present::ReportRow& row, std::uint64_t total) {
  if (row.chains.empty()) return;
  const std::string indent(12, ' ');
  out += indent + "|\n";
  char share[32];
  for (std::size_t c = 0; c < row.chains.size(); ++c) {
    const present::ReportChain& chain = row.chains[c];
    const bool last = c + 1 == row.chains.size();
    std::string lead, rest;
    if (row.chains.size() == 1) {
      lead = indent + "---";
      rest = indent + "   ";
    } else {
      std::snprintf(share, sizeof share, "%.2f%%", present::percent(chain.period, total));
      lead = indent + (last ? " --" : "|--") + share + "--";
      rest = indent + (last ? " " : "|") + std::string(lead.size() - indent.size() - 1, ' ');
    }
    for (std::size_t f = 0; f < chain.frames.size(); ++f)
      out += (f == 0 ? lead : rest) + printable(profile.name(chain.frames[f])) + "\n";
    if (!last) out += indent + "|\n";
  }
  out += "\n";
}

}  // namespace

std::vector<ReportKey> parse_report_keys(const std::string& keys) {
  std::vector<ReportKey> parsed;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = keys.find(',', at);
    const std::string key = keys.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (key == "comm")
      parsed.push_back(ReportKey::Command);
    else if (key == "dso")
      parsed.push_back(ReportKey::Dso);
    else if (key == "sym" || key == "symbol")
      parsed.push_back(ReportKey::Symbol);
    else if (key == "srcline")
      parsed.push_back(ReportKey::SourceLine);
    else
      throw Error(ErrorKind::InvalidArgument,
                  "unknown sort key '" + key + "'; give a list of comm, dso, sym and srcline, such as 'comm,dso,sym'.");
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return parsed;
}

std::string format_report_table(const Profile& profile, const ReportOptions& options) {
  std::string out = "#\n# Total Lost Samples: " + std::to_string(profile.lost_samples()) + "\n#\n";
  for (const EventProfile& event : profile.events()) {
    if (event.samples == 0) continue;
    out += "# Samples: " + short_count(event.samples) + " of event '" + printable(event.name) + "'\n";
    out += "# Event count (approx.): " + std::to_string(event.period) + "\n#\n";
    const std::vector<present::ReportRow> rows = present::report_rows(profile, event, options);

    std::vector<Column> columns;
    for (ReportKey key : options.sort) {
      Column column{key == ReportKey::Command  ? "Command"
                    : key == ReportKey::Dso    ? "Shared Object"
                    : key == ReportKey::Symbol ? "Symbol"
                                               : "Source:Line",
                    {}};
      for (const present::ReportRow& row : rows)
        column.cells.push_back(key == ReportKey::Command  ? printable(profile.name(row.key.command))
                               : key == ReportKey::Dso    ? printable(dso_short_name(profile.name(row.key.dso)))
                               : key == ReportKey::Symbol ? symbol_cell(profile, row.key)
                                                          : printable(profile.name(row.key.source)));
      column.width = std::string_view(column.title).size();
      for (const std::string& cell : column.cells) column.width = std::max(column.width, cell.size());
      columns.push_back(std::move(column));
    }
    std::string titles = "# Overhead", dots = "# ........";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const bool last = c + 1 == columns.size();
      titles += "  ";
      dots += "  ";
      pad(titles, columns[c].title, last ? 0 : columns[c].width);
      dots.append(columns[c].width, '.');
    }
    out += titles + "\n" + dots + "\n#\n";
    char share[32];
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::snprintf(share, sizeof share, "%9.2f%%", present::percent(rows[r].period, event.period));
      out += share;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        out += "  ";
        pad(out, columns[c].cells[r], c + 1 == columns.size() ? 0 : columns[c].width);
      }
      out += "\n";
      print_chains(out, profile, rows[r], event.period);
    }
    out += "\n\n";
  }
  return out;
}

namespace present {
std::string report_table_shape(const Profile& profile, const ReportOptions& options, const ReportView&) {
  return format_report_table(profile, options);
}
}  // namespace present

}  // namespace perfmon
