// SPDX-License-Identifier: Apache-2.0
#include "perfmon/regions.hpp"

#include <algorithm>

namespace perfmon {

namespace {

// The reading's values: each event's total, and each event's at every location (event-major).
void values_of(const Reading& now, std::vector<CounterValue>& total, std::vector<CounterValue>& at) {
  total.clear();
  at.clear();
  for (const ReadingEvent& event : now.events) {
    total.push_back(event.value);
    at.insert(at.end(), event.at.begin(), event.at.end());
  }
}

// `sums` += `later` - `earlier`, element by element (a reading's shape does not change while a
// measurement runs; a sum starts empty).
void add_change(std::vector<CounterValue>& sums, const std::vector<CounterValue>& later,
                const std::vector<CounterValue>& earlier) {
  sums.resize(std::max(sums.size(), later.size()));
  for (std::size_t i = 0; i < later.size() && i < earlier.size(); ++i) sums[i] += later[i] - earlier[i];
}

}  // namespace

RegionCounts::Region* RegionCounts::find(std::string_view name) {
  auto it = std::find_if(regions_.begin(), regions_.end(), [&](const Region& region) { return region.name == name; });
  return it == regions_.end() ? nullptr : &*it;
}

RegionCounts::Change RegionCounts::begin(std::string_view name, const Reading& now) {
  Region* region = find(name);
  if (region == nullptr) {
    region = &regions_.emplace_back();
    region->name = std::string(name);
  }
  if (region->open) return Change::AlreadyOpen;
  values_of(now, region->start, region->start_at);
  region->opened = std::chrono::steady_clock::now();
  region->times += 1;
  region->open = true;
  return Change::Done;
}

RegionCounts::Change RegionCounts::end(std::string_view name, const Reading& now) {
  Region* region = find(name);
  if (region == nullptr || !region->open) return Change::NotOpen;
  std::vector<CounterValue> total, at;
  values_of(now, total, at);
  add_change(region->sums, total, region->start);
  add_change(region->sums_at, at, region->start_at);
  region->elapsed += std::chrono::steady_clock::now() - region->opened;
  region->open = false;
  return Change::Done;
}

bool RegionCounts::is_open(std::string_view name) const noexcept {
  return std::any_of(regions_.begin(), regions_.end(),
                     [&](const Region& region) { return region.open && region.name == name; });
}

std::size_t RegionCounts::open_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(regions_.begin(), regions_.end(), [](const Region& region) { return region.open; }));
}

std::vector<RegionCounts::Summary> RegionCounts::summaries() const {
  std::vector<Summary> out;
  const auto now = std::chrono::steady_clock::now();
  for (const Region& region : regions_) {
    Summary summary{region.name, region.times, region.elapsed, region.open};
    if (region.open) summary.elapsed += now - region.opened;
    out.push_back(std::move(summary));
  }
  return out;
}

Reading RegionCounts::with_regions(const Reading& now) const {
  Reading out = now;
  std::vector<CounterValue> total, at;
  values_of(now, total, at);
  for (const Region& region : regions_) {
    std::vector<CounterValue> sums = region.sums, sums_at = region.sums_at;
    if (region.open) {
      add_change(sums, total, region.start);
      add_change(sums_at, at, region.start_at);
    }
    std::size_t at_index = 0;
    for (std::size_t e = 0; e < now.events.size(); ++e) {
      ReadingEvent event = now.events[e];
      event.label = region.name;
      event.label_kind = "region";
      event.value = e < sums.size() ? sums[e] : CounterValue{};
      for (CounterValue& value : event.at) value = at_index < sums_at.size() ? sums_at[at_index++] : CounterValue{};
      event.estimate.reset();
      out.events.push_back(std::move(event));
    }
  }
  return out;
}

}  // namespace perfmon
