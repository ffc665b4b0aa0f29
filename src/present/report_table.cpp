// SPDX-License-Identifier: Apache-2.0
// perf report --stdio's table (perf 6.1, --no-children): per event a header, then one row per
// entry, "    98.20%  command  file  [.] function", columns as wide as their widest cell.
#include <algorithm>
#include <charconv>
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
  ReportKey key;
  std::size_t width = 0;
};

// printf's "%9.2f%%", perf's overhead column, without printf parsing its format for each of a
// hundred thousand rows (std::to_chars rounds as printf does).
void append_share(std::string& out, double percent) {
  char digits[32];
  const std::size_t size = static_cast<std::size_t>(
      std::to_chars(digits, digits + sizeof digits, percent, std::chars_format::fixed, 2).ptr - digits);
  if (size < 9) out.append(9 - size, ' ');
  out.append(digits, size);
  out += '%';
}

// Spaces after what `out` took since `start`, up to `width`.
void pad_from(std::string& out, std::size_t start, std::size_t width) {
  const std::size_t taken = out.size() - start;
  out.append(width > taken ? width - taken : 0, ' ');
}

// A row's cell in a column, appended to `out` (made twice, to measure and to write: a profile of a
// stripped program has a row per address, and its cells kept would be a tenth of the report's memory).
void append_cell(std::string& out, const Profile& profile, const ProfileEntry& key, ReportKey column) {
  switch (column) {
    case ReportKey::Command:
      append_printable(out, profile.name(key.command));
      break;
    case ReportKey::Dso:
      append_printable(out, dso_short_name(profile.name(key.dso)));
      break;
    case ReportKey::Symbol:
      out += key.kernel ? "[k] " : "[.] ";
      append_printable(out, profile.name(key.symbol));
      break;
    case ReportKey::SourceLine:
      append_printable(out, profile.name(key.source));
      break;
  }
}

}  // namespace

std::string format_call_chains(const Profile& profile, std::span<const CallChainShare> chains) {
  if (chains.empty()) return "";
  const std::string indent(12, ' ');
  std::string out = indent + "|\n";
  char share[32];
  for (std::size_t c = 0; c < chains.size(); ++c) {
    const bool last = c + 1 == chains.size();
    std::string lead, rest;
    if (chains.size() == 1) {
      lead = indent + "---";
      rest = indent + "   ";
    } else {
      std::snprintf(share, sizeof share, "%.2f%%", chains[c].percent);
      lead = indent + (last ? " --" : "|--") + share + "--";
      rest = indent + (last ? " " : "|") + std::string(lead.size() - indent.size() - 1, ' ');
    }
    for (std::size_t f = 0; f < chains[c].frames.size(); ++f)
      out += (f == 0 ? lead : rest) + printable(profile.name(chains[c].frames[f])) + "\n";
    if (!last) out += indent + "|\n";
  }
  return out + "\n";
}

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

void parse_report_fields(const std::string& fields, ReportOptions& options) {
  options.show_overhead = options.sample_counts = options.show_period = false;
  std::string keys;
  std::size_t key_count = 0, at = 0;
  for (;;) {
    const std::size_t comma = fields.find(',', at);
    const std::string field = fields.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (field == "overhead")
      options.show_overhead = true;
    else if (field == "sample" || field == "samples")
      options.sample_counts = true;
    else if (field == "period")
      options.show_period = true;
    else  // an empty field stays one, which parse_report_keys refuses
      keys += (key_count++ == 0 ? "" : ",") + field;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  try {
    options.sort = key_count == 0 ? std::vector<ReportKey>{} : parse_report_keys(keys);
  } catch (const Error&) {
    throw Error(ErrorKind::InvalidArgument,
                "-F takes overhead, sample, period and the sort keys comm, dso, sym and "
                "srcline, such as 'overhead,comm,sym'; not '" +
                    fields + "'.");
  }
}

std::string format_report_table(const Profile& profile, const ReportOptions& options) {
  // perf's line counts PERF_RECORD_LOST_SAMPLES; records of any kind that a full ring dropped are
  // another count, said apart where there were any.
  const RecordLoss& lost = profile.lost();
  std::string out;
  if (!options.quiet) {
    out = "#\n# Total Lost Samples: " + std::to_string(lost.samples) + "\n";
    if (lost.records != 0)
      out += "# Lost records: " + std::to_string(lost.records) + " (records of any kind a full ring could not take" +
             (lost.samples_known ? ")" : "; how many were samples the file does not say)") + "\n";
    out += "#\n";
  }
  for (const EventProfile& event : profile.events()) {
    if (event.samples == 0) continue;
    const std::vector<present::ReportRow> rows = present::report_rows(profile, event, options);
    if (options.quiet) {
      if (!out.empty()) out += "\n";
    } else {
      out += "# Samples: " + short_count(event.samples) + " of event '" + printable(event.name) + "'\n";
      out += "# Event count (approx.): " + std::to_string(event.period) + "\n#\n";
    }

    std::vector<Column> columns;
    std::string cell;
    std::size_t row_bytes = 0;  // of the rows' lines, chains aside: the text is made in one piece
    for (ReportKey key : options.sort) {
      Column column{key == ReportKey::Command  ? "Command"
                    : key == ReportKey::Dso    ? "Shared Object"
                    : key == ReportKey::Symbol ? "Symbol"
                                               : "Source:Line",
                    key};
      column.width = std::string_view(column.title).size();
      const bool last = columns.size() + 1 == options.sort.size();
      for (const present::ReportRow& row : rows) {
        cell.clear();
        append_cell(cell, profile, row.key, key);
        const std::size_t size = cell.size();
        column.width = std::max(column.width, size);
        if (last) row_bytes += size;
      }
      columns.push_back(column);
    }
    // The figures' columns, perf's: Children and Self (--children) or Overhead, Samples (-n), Period.
    std::string titles = "#", dots = "#";
    if (options.children) {
      titles += " Children      Self";
      dots += " ........  ........";
    } else if (options.show_overhead) {
      titles += " Overhead";
      dots += " ........";
    }
    if (options.sample_counts) {  // perf's -n: "%12" under a right-aligned title
      titles += "       Samples";
      dots += "  ............";
    }
    if (options.show_period) {
      titles += "        Period";
      dots += "  ............";
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const bool last = c + 1 == columns.size();
      titles += "  ";
      dots += "  ";
      const std::size_t start = titles.size();
      titles += columns[c].title;
      pad_from(titles, start, last ? 0 : columns[c].width);
      dots.append(columns[c].width, '.');
      row_bytes += (2 + (last ? 0 : columns[c].width)) * rows.size();
    }
    if (!options.quiet) out += titles + "\n" + dots + "\n#\n";
    out.reserve(out.size() + row_bytes + 11 * rows.size() + 2);
    auto append_number = [&out](std::uint64_t number) {
      const std::string digits = std::to_string(number);
      out.append(2 + (digits.size() < 12 ? 12 - digits.size() : 0), ' ');
      out += digits;
    };
    std::vector<CallChainShare> chain_shares;
    for (const present::ReportRow& row : rows) {
      const std::size_t line = out.size();
      if (options.children) {
        append_share(out, present::percent(row.children_period, event.period));
        append_share(out, present::percent(row.period, event.period));
      } else if (options.show_overhead) {
        append_share(out, present::percent(row.period, event.period));
      }
      if (options.sample_counts) append_number(row.samples);
      if (options.show_period) append_number(row.period);
      for (std::size_t c = 0; c < columns.size(); ++c) {
        if (c != 0 || out.size() != line) out += "  ";
        const std::size_t start = out.size();
        append_cell(out, profile, row.key, columns[c].key);
        pad_from(out, start, c + 1 == columns.size() ? 0 : columns[c].width);
      }
      out += "\n";
      if (!row.chains.empty()) {
        chain_shares.clear();
        for (const present::ReportChain& chain : row.chains)
          chain_shares.push_back({chain.frames, present::percent(chain.period, event.period)});
        out += format_call_chains(profile, chain_shares);
      }
    }
    if (!options.quiet) out += "\n\n";
  }
  return out;
}

namespace present {
std::string report_table_shape(const Profile& profile, const ReportOptions& options, const ReportView&) {
  return format_report_table(profile, options);
}
}  // namespace present

}  // namespace perfmon
