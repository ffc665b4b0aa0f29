// SPDX-License-Identifier: Apache-2.0
#include "top_rows.hpp"

#include <algorithm>
#include <tuple>

#include "perfmon/address_space.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

namespace {
bool has(const std::vector<ReportKey>& keys, ReportKey key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}
}  // namespace

TopRefresh TopRows::refresh(const Profile& profile, std::size_t event) {
  constexpr double kDecay = 7.0 / 8.0;  // perf top's
  for (TopRow& row : rows_) row.weight *= kDecay;
  total_ *= kDecay;
  TopRefresh added;
  const std::vector<ProfileEntry>& entries = profile.events().at(event).entries;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ProfileEntry& entry = entries[i];
    if (i == row_of_entry_.size()) {
      TopRow row;
      if (has(keys_, ReportKey::Command)) row.command = printable(profile.name(entry.command));
      if (has(keys_, ReportKey::Dso)) row.dso = printable(dso_short_name(profile.name(entry.dso)));
      if (has(keys_, ReportKey::Symbol)) {
        row.symbol = printable(profile.name(entry.symbol));
        row.kernel = entry.kernel;
      }
      const std::string key = row.command + '\0' + row.dso + '\0' + row.symbol + (row.kernel ? "k" : "u");
      auto [known, added_row] = row_of_key_.try_emplace(key, rows_.size());
      if (added_row) rows_.push_back(std::move(row));
      row_of_entry_.push_back(known->second);
      period_seen_.push_back(0);
      samples_seen_.push_back(0);
    }
    const std::uint64_t period = entry.period - period_seen_[i], samples = entry.samples - samples_seen_[i];
    period_seen_[i] = entry.period;
    samples_seen_[i] = entry.samples;
    TopRow& row = rows_[row_of_entry_[i]];
    row.weight += static_cast<double>(period);
    row.samples += samples;
    total_ += static_cast<double>(period);
    added.samples += samples;
    if (entry.kernel) added.kernel_samples += samples;
  }
  return added;
}

std::vector<TopRow> TopRows::rows(Order order, const std::string& dso) const {
  std::vector<TopRow> shown;
  for (const TopRow& row : rows_)
    // Rows that would show 0.00% are gone, as perf top drops those its decay brought to nothing.
    if (total_ > 0 && row.weight / total_ >= 0.00005 && (dso.empty() || row.dso == dso)) shown.push_back(row);
  std::stable_sort(shown.begin(), shown.end(), [order](const TopRow& a, const TopRow& b) {
    switch (order) {
      case Order::Samples:
        return a.samples > b.samples;
      case Order::Name:
        return std::tie(a.symbol, a.dso, a.command) < std::tie(b.symbol, b.dso, b.command);
      case Order::Overhead:
        break;
    }
    return a.weight > b.weight;
  });
  return shown;
}

}  // namespace perfmon::cli
