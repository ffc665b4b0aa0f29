// SPDX-License-Identifier: Apache-2.0
// speedscope's file format (github.com/jlfwong/speedscope, src/lib/file-format-spec.ts): shared
// frames, and per event and thread a "sampled" profile whose samples are the distinct stacks (frame
// indexes from the outermost in) weighted by their periods.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

namespace {

// Clocks count nanoseconds; other events, events.
bool counts_nanoseconds(std::string_view event) {
  return event.starts_with("cpu-clock") || event.starts_with("task-clock");
}

}  // namespace

std::string format_speedscope(const Profile& profile, const std::string& name) {
  nlohmann::ordered_json frames = nlohmann::ordered_json::array();
  std::map<std::string, std::size_t> frame_of;  // by name
  auto frame = [&](NameId id) {
    const std::string text = printable(profile.name(id));
    auto [at, added] = frame_of.try_emplace(text, frame_of.size());
    if (added) frames.push_back({{"name", text}});
    return at->second;
  };
  struct Thread {
    nlohmann::ordered_json profile;
    std::uint64_t weight = 0;
  };
  std::vector<Thread> threads;
  for (const EventProfile& event : profile.events()) {
    if (event.samples == 0) continue;
    // The thread each node is under (the roots' children), and each thread's samples.
    std::vector<std::uint32_t> thread_of(event.stacks.size(), 0);
    std::map<std::uint32_t, std::size_t> index_of;             // thread node -> in `threads`
    for (std::uint32_t n = 1; n < event.stacks.size(); ++n) {  // a parent comes before its children
      const std::uint32_t parent = event.stacks[n].parent;
      thread_of[n] = parent == 0 ? n : thread_of[parent];
      if (parent != 0) continue;
      index_of[n] = threads.size();
      Thread& thread = threads.emplace_back();
      thread.profile = {{"type", "sampled"},
                        {"name", printable(event.name) + ": " + printable(profile.name(event.stacks[n].name))},
                        {"unit", counts_nanoseconds(event.name) ? "nanoseconds" : "none"},
                        {"startValue", 0},
                        {"endValue", 0},
                        {"samples", nlohmann::ordered_json::array()},
                        {"weights", nlohmann::ordered_json::array()}};
    }
    std::vector<std::size_t> path;
    for (std::uint32_t n = 1; n < event.stacks.size(); ++n) {
      const StackNode& node = event.stacks[n];
      if (node.self_period == 0 || node.parent == 0) continue;
      path.clear();
      for (std::uint32_t at = n; event.stacks[at].parent != 0; at = event.stacks[at].parent)
        path.push_back(frame(event.stacks[at].name));
      std::reverse(path.begin(), path.end());
      Thread& thread = threads[index_of[thread_of[n]]];
      thread.profile["samples"].push_back(path);
      thread.profile["weights"].push_back(node.self_period);
      thread.weight += node.self_period;
    }
  }
  // The busiest thread first: speedscope opens on it.
  std::stable_sort(threads.begin(), threads.end(),
                   [](const Thread& a, const Thread& b) { return a.weight > b.weight; });
  nlohmann::ordered_json profiles = nlohmann::ordered_json::array();
  for (Thread& thread : threads) {
    thread.profile["endValue"] = thread.weight;
    profiles.push_back(std::move(thread.profile));
  }
  nlohmann::ordered_json document = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                                     {"shared", {{"frames", std::move(frames)}}},
                                     {"profiles", std::move(profiles)},
                                     {"name", printable(name)},
                                     {"activeProfileIndex", 0},
                                     {"exporter", "perfmon"}};
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace present {
std::string speedscope_shape(const Profile& profile, const ReportOptions&, const ReportView& view) {
  return format_speedscope(profile, view.title);
}
}  // namespace present

}  // namespace perfmon
