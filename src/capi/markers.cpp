// SPDX-License-Identifier: Apache-2.0
// The C ABI: marked regions (perfmon/marked_regions.hpp).
#include "capi/handles.hpp"
#include "perfmon/marked_regions.hpp"
#include "perfmon/marker_results.hpp"

using namespace perfmon::capi;

struct perfmon_markers {
  explicit perfmon_markers(const std::vector<std::string>& groups) : regions(groups) {
    for (std::size_t g = 0; g < regions.group_count(); ++g) names.push_back(regions.event_names(g));
  }
  perfmon::MarkedRegions regions;
  std::vector<std::vector<std::string>> names;
  std::string error;
  std::vector<perfmon::MarkedRegionResult> results;  // the last take
  std::vector<std::vector<perfmon_value>> result_values;
};

namespace {

int status_code(perfmon::MarkedRegions::Status status) {
  using Status = perfmon::MarkedRegions::Status;
  switch (status) {
    case Status::Done:
      return 0;
    case Status::AlreadyStarted:
      return PERFMON_MARKER_ALREADY_STARTED;
    case Status::NotStarted:
      return PERFMON_MARKER_NOT_STARTED;
    case Status::Running:
      return PERFMON_MARKER_RUNNING;
    case Status::NoCounters:
      return EIO;
  }
  return EIO;
}

perfmon_value value_of(const perfmon::CounterValue& value) {
  return {value.raw, value.enabled, value.running, value.lost, value.scaled()};
}

}  // namespace

extern "C" {

int perfmon_markers_open(const char* const* groups, size_t count, perfmon_markers** markers) {
  if (groups == nullptr || count == 0 || markers == nullptr)
    return null_argument("event groups and a place for the markers are needed.");
  *markers = nullptr;
  return guarded([&] {
    std::vector<std::string> lists;
    for (size_t g = 0; g < count; ++g) {
      if (groups[g] == nullptr) return null_argument("an event group is NULL.");
      lists.emplace_back(groups[g]);
    }
    *markers = std::make_unique<perfmon_markers>(lists).release();
    return 0;
  });
}

void perfmon_markers_close(perfmon_markers* markers) {
  std::unique_ptr<perfmon_markers> owned(markers);
}

#define PERFMON_MARKER_CALL(call)                                                          \
  if (markers == nullptr || tag == nullptr) return null_argument("no markers or no tag."); \
  return guarded([&] { return status_code(markers->regions.call(tag)); })

int perfmon_markers_register(perfmon_markers* markers, const char* tag) {
  PERFMON_MARKER_CALL(register_region);
}
int perfmon_markers_start(perfmon_markers* markers, const char* tag) {
  PERFMON_MARKER_CALL(start);
}
int perfmon_markers_stop(perfmon_markers* markers, const char* tag) {
  PERFMON_MARKER_CALL(stop);
}
int perfmon_markers_reset(perfmon_markers* markers, const char* tag) {
  PERFMON_MARKER_CALL(reset);
}
#undef PERFMON_MARKER_CALL

int perfmon_markers_get(perfmon_markers* markers, const char* tag, double* values, size_t* value_count, double* seconds,
                        uint64_t* count) {
  if (markers == nullptr || tag == nullptr || value_count == nullptr || seconds == nullptr || count == nullptr)
    return null_argument("markers, a tag and places for the results are needed.");
  return guarded([&] {
    std::vector<double> sums;
    std::uint64_t stops = 0;
    const bool known = markers->regions.get(tag, sums, *seconds, stops);
    *count = stops;
    const size_t given = std::min(*value_count, sums.size());
    for (size_t i = 0; i < given && values != nullptr; ++i) values[i] = sums[i];
    *value_count = given;
    return known ? 0 : ENOENT;
  });
}

int perfmon_markers_next_group(perfmon_markers* markers) {
  if (markers == nullptr) return null_argument("no markers.");
  return guarded([&] {
    markers->regions.next_group();
    return 0;
  });
}

size_t perfmon_markers_group_count(const perfmon_markers* markers) {
  return markers == nullptr ? 0 : markers->regions.group_count();
}

size_t perfmon_markers_active_group(const perfmon_markers* markers) {
  return markers == nullptr ? 0 : markers->regions.active_group();
}

size_t perfmon_markers_event_count(const perfmon_markers* markers, size_t group) {
  return markers == nullptr || group >= markers->names.size() ? 0 : markers->names[group].size();
}

const char* perfmon_markers_event_name(const perfmon_markers* markers, size_t group, size_t event) {
  if (markers == nullptr || group >= markers->names.size() || event >= markers->names[group].size()) return nullptr;
  return markers->names[group][event].c_str();
}

const char* perfmon_markers_error(const perfmon_markers* markers) {
  if (markers == nullptr) return "";
  std::vector<std::string> errors = markers->regions.errors();
  const_cast<perfmon_markers*>(markers)->error = errors.empty() ? "" : errors.front();
  return markers->error.c_str();
}

size_t perfmon_markers_take_results(perfmon_markers* markers) {
  if (markers == nullptr) return 0;
  try {
    markers->results = markers->regions.results();
    markers->result_values.clear();
    for (const perfmon::MarkedRegionResult& result : markers->results) {
      std::vector<perfmon_value>& values = markers->result_values.emplace_back();
      for (const perfmon::CounterValue& value : result.values) values.push_back(value_of(value));
    }
    return markers->results.size();
  } catch (const std::exception&) {
    markers->results.clear();
    markers->result_values.clear();
    return 0;
  }
}

int perfmon_markers_result(const perfmon_markers* markers, size_t index, perfmon_marked_result* result) {
  if (markers == nullptr || result == nullptr) return null_argument("no markers or no place for the result.");
  if (index >= markers->results.size()) return ERANGE;
  const perfmon::MarkedRegionResult& taken = markers->results[index];
  const std::vector<perfmon_value>& values = markers->result_values[index];
  *result = {taken.tag.c_str(), taken.group,   taken.tid,     taken.thread,  taken.cpu,
             taken.count,       taken.seconds, values.size(), values.data(), taken.emulated ? 1 : 0};
  return 0;
}

int perfmon_markers_write_results(const perfmon_markers* markers, const char* path) {
  if (markers == nullptr || path == nullptr) return null_argument("markers and a path are needed.");
  return guarded([&] {
    perfmon::write_marker_results(path, markers->regions);
    return 0;
  });
}

}  // extern "C"
