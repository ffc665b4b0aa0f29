// SPDX-License-Identifier: Apache-2.0
// perfmon top's rows: the entries of a live Profile's event, merged by the sort keys, each refresh's
// new samples added to weights that decay by 7/8 at every refresh, as perf top's do: a function
// that stops running fades out over a few refreshes instead of staying on top for the whole run.
// With call stacks (-g), each row also weighs the stacks that pass through its function (perf's
// Children) and keeps the chains that end in it, decayed alike.
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
  double weight = 0;           // the decayed period of the samples taken in the function
  double children_weight = 0;  // with stacks: that of the stacks through it (its own samples too)
  std::uint64_t samples = 0;   // since the start
  std::size_t index = 0;       // the row's, for chains()
};

// What came in since the refresh before.
struct TopRefresh {
  std::uint64_t samples = 0, kernel_samples = 0;
};

// A call chain of a row: its frames from the sampled function out, and its decayed weight.
struct TopChain {
  std::vector<NameId> frames;
  double weight = 0;
};

struct TopStacks {
  bool chains = false;        // -g: the profile has stacks; rows get children weights and chains
  bool children = true;       // rank (and show) rows by their children weight (perf top -g's default)
  std::size_t max_stack = 0;  // --max-stack: the frames of a chain used, from the sampled function (0: all)
};

class TopRows {
 public:
  enum class Order { Overhead, Samples, Name };

  explicit TopRows(std::vector<ReportKey> keys, TopStacks stacks = {}) : keys_(std::move(keys)), stacks_(stacks) {}
  // Decays every row's weight and adds the event's samples since the last refresh.
  TopRefresh refresh(const Profile& profile, std::size_t event);
  // The rows with weight, in `order`, of the file `dso` ("" every file).
  std::vector<TopRow> rows(Order order, const std::string& dso) const;
  // The chains that end in a row, merged by their frames, largest first, each at least
  // `least_share` of the total weight (perf's 0.5 % by default).
  std::vector<TopChain> chains(const Profile& profile, const TopRow& row, double least_share = 0.005) const;
  double total_weight() const noexcept { return total_; }
  const std::vector<ReportKey>& keys() const noexcept { return keys_; }
  const TopStacks& stacks() const noexcept { return stacks_; }
  bool shows_children() const noexcept { return stacks_.chains && stacks_.children; }

 private:
  std::size_t row_of(const std::string& command, const std::string& dso, const std::string& symbol, bool kernel);
  void add_stacks(const Profile& profile, const EventProfile& event);

  std::vector<ReportKey> keys_;
  TopStacks stacks_;
  std::vector<TopRow> rows_;
  std::map<std::string, std::size_t> row_of_key_;
  std::vector<std::size_t> row_of_entry_;  // by the profile's entry index (entries only grow)
  std::vector<std::uint64_t> period_seen_, samples_seen_;
  // With stacks: each node's row (none for a command's or an inlined function's) and command node;
  // each stack end's period seen; each row's chains by the node they end at.
  std::vector<std::size_t> row_of_node_;
  std::vector<std::uint32_t> command_of_node_;
  std::vector<std::uint64_t> end_period_seen_;
  std::vector<std::map<std::uint32_t, double>> chains_of_row_;
  std::size_t event_ = 0;  // the profile's event refreshed from, whose nodes the chains end at
  double total_ = 0;
};

}  // namespace perfmon::cli
