// SPDX-License-Identifier: Apache-2.0
// perfmon top's rows: the entries of a live Profile's event, merged by the sort keys, each refresh's
// new samples added to weights that decay by 7/8 at every refresh, as perf top's do: a function
// that stops running fades out over a few refreshes instead of staying on top for the whole run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon::cli {

struct TopRow {
  std::string command, dso, symbol;  // those of the sort keys; the others ""
  bool kernel = false;
  double weight = 0;          // the decayed period
  std::uint64_t samples = 0;  // since the start
};

// What came in since the refresh before.
struct TopRefresh {
  std::uint64_t samples = 0, kernel_samples = 0;
};

class TopRows {
 public:
  enum class Order { Overhead, Samples, Name };

  explicit TopRows(std::vector<ReportKey> keys) : keys_(std::move(keys)) {}
  // Decays every row's weight and adds the event's samples since the last refresh.
  TopRefresh refresh(const Profile& profile, std::size_t event);
  // The rows with weight, in `order`, of the file `dso` ("" every file).
  std::vector<TopRow> rows(Order order, const std::string& dso) const;
  double total_weight() const noexcept { return total_; }
  const std::vector<ReportKey>& keys() const noexcept { return keys_; }

 private:
  std::vector<ReportKey> keys_;
  std::vector<TopRow> rows_;
  std::map<std::string, std::size_t> row_of_key_;
  std::vector<std::size_t> row_of_entry_;  // by the profile's entry index (entries only grow)
  std::vector<std::uint64_t> period_seen_, samples_seen_;
  double total_ = 0;
};

}  // namespace perfmon::cli
