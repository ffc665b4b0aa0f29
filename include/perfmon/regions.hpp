// SPDX-License-Identifier: Apache-2.0
// perfmon: named regions of a measurement that runs on — what its counters counted between each
// begin(NAME) and end(NAME), summed per name from readings taken at those moments (perfmon stat's
// "enable NAME" / "disable NAME" on its control channel, control_channel.hpp). Regions may nest
// and overlap, each with its own sums; the counters must be counting while any region is open.
//
//   perfmon::RegionCounts regions;
//   session.read();
//   regions.begin("solve", session.reading());
//   solve();
//   session.read();
//   regions.end("solve", session.reading());
//   perfmon::Reading all = regions.with_regions(session.reading());  // stat_rows(all): a row per region and event
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/reading.hpp"

namespace perfmon {

class RegionCounts {
 public:
  enum class Change {
    Done,
    AlreadyOpen,  // begin of an open region: it goes on from its first begin
    NotOpen,      // end of a region that is not open: nothing is added
  };
  // Opens region `name` at `now`, the measurement's reading at this moment.
  Change begin(std::string_view name, const Reading& now);
  // Closes it: what each event counted since its begin is added to the region's sums.
  Change end(std::string_view name, const Reading& now);
  bool is_open(std::string_view name) const noexcept;
  std::size_t open_count() const noexcept;

  struct Summary {
    std::string name;
    std::uint64_t times = 0;              // how often it was opened
    std::chrono::nanoseconds elapsed{0};  // wall time open, summed (up to now for an open one)
    bool open = false;
  };
  // The regions in the order first opened.
  std::vector<Summary> summaries() const;

  // `now`, and after its events each region's: the same events, labelled with the region's name
  // (label_kind "region"), valued with what they counted while it was open (up to `now` for one
  // still open), in total and per location; without estimates (a region is a part of each slice).
  Reading with_regions(const Reading& now) const;

 private:
  struct Region {
    std::string name;
    std::vector<CounterValue> sums, sums_at;  // per event; per event and location
    std::vector<CounterValue> start, start_at;
    std::chrono::steady_clock::time_point opened;
    std::chrono::nanoseconds elapsed{0};
    std::uint64_t times = 0;
    bool open = false;
  };
  Region* find(std::string_view name);

  std::vector<Region> regions_;
};

}  // namespace perfmon
