// SPDX-License-Identifier: Apache-2.0
#include "perfmon/program_regions.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/error.hpp"
#include "perfmon/marked_regions.hpp"
#include "perfmon/marker_results.hpp"

namespace perfmon {

namespace {

// The process's regions where perfmon set the environment for them, opened at the first region.
struct ProgramRegions {
  std::optional<MarkedRegions> regions;
  std::string results_path;
  std::atomic<bool> told{false};  // a counter that could not be opened, said once
};

std::vector<std::string> groups_of(const std::string& lists) {
  std::vector<std::string> groups;
  for (std::size_t from = 0;;) {
    const std::size_t bar = lists.find('|', from);
    groups.push_back(lists.substr(from, bar - from));
    if (bar == std::string::npos) return groups;
    from = bar + 1;
  }
}

void write_results();

// Never destroyed: the results are written as the process exits (an atexit handler registered as
// it opens, which would run after the destructor of a static constructed before it).
ProgramRegions* opened() {
  union Holder {
    Holder() : state() {}
    ~Holder() {}
    ProgramRegions state;
  };
  static ProgramRegions* const state = []() -> ProgramRegions* {
    const char* events = std::getenv("PERFMON_MARKERS_EVENTS");
    const char* path = std::getenv("PERFMON_MARKERS_JSON");
    if (events == nullptr || *events == '\0' || path == nullptr || *path == '\0') return nullptr;
    static Holder holder;
    try {
      holder.state.regions.emplace(groups_of(events));
    } catch (const Error& error) {
      std::fprintf(stderr, "WARN: perfmon cannot count the program's regions: %s\n", error.what());
      return nullptr;
    }
    holder.state.results_path = path;
    std::atexit(write_results);
    return &holder.state;
  }();
  return state;
}

void write_results() {
  ProgramRegions* state = opened();
  try {
    write_marker_results(state->results_path, *state->regions);
  } catch (const Error& error) {
    std::fprintf(stderr, "WARN: cannot write perfmon's marker results: %s\n", error.what());
  }
}

void said(ProgramRegions& state, MarkedRegions::Status status) {
  if (status != MarkedRegions::Status::NoCounters || state.told.exchange(true)) return;
  const std::vector<std::string> errors = state.regions->errors();
  std::fprintf(stderr, "WARN: perfmon cannot count this thread's events: %s\n",
               errors.empty() ? "its counters could not be opened." : errors.front().c_str());
}

// A region's start or stop, where perfmon counts them.
void mark(std::string_view name, MarkedRegions::Status (MarkedRegions::*call)(std::string_view), const char* what) {
  ProgramRegions* state = opened();
  if (state == nullptr) return;
  try {
    said(*state, ((*state->regions).*call)(name));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "WARN: perfmon cannot %s region: %s\n", what, error.what());
  }
}

}  // namespace

bool program_regions_counted() noexcept {
  return opened() != nullptr;
}

void program_region_start(std::string_view name) noexcept {
  mark(name, &MarkedRegions::start, "start");
}

void program_region_stop(std::string_view name) noexcept {
  mark(name, &MarkedRegions::stop, "stop");
}

}  // namespace perfmon
