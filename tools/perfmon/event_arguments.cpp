// SPDX-License-Identifier: Apache-2.0
#include "event_arguments.hpp"

#include <cerrno>
#include <fstream>

#include "perfmon/error.hpp"
#include "perfmon/probe.hpp"

namespace perfmon::cli {

std::vector<Option> EventArguments::options(std::string_view event_help) {
  return {
      {'e', "event", "event", event_help, [this](std::string_view v) { lists.emplace_back(v); }},
      {0, "filter", "expr",
       "count only the occurrences of the tracepoint of the -e before it whose fields pass expr (ftrace's syntax: "
       "'fd == 0', 'error_code & 2')",
       [this](std::string_view v) {
         if (lists.empty())
           throw UsageError(
               "--filter follows the -e of a tracepoint, as in perf: -e syscalls:sys_enter_read --filter "
               "'fd == 0'");
         if (v.find_first_not_of(' ') == std::string_view::npos)
           throw UsageError("--filter needs an expression over the tracepoint's fields, like 'fd == 0'");
         filters.emplace_back(lists.size() - 1, std::string(v));
       }},
      {0, "all-user", "", "count every event in user space only (as :u on each)",
       [this](std::string_view) { only_ring = 'u'; }},
      {0, "all-kernel", "", "count every event in the kernel only (as :k on each)",
       [this](std::string_view) { only_ring = 'k'; }},
  };
}

void EventArguments::restrict_rings(std::vector<EventGroup>& groups) const {
  if (only_ring == 0) return;
  for (EventGroup& group : groups)
    for (Event& event : group.events) {
      event.attr.exclude_user = only_ring == 'k';
      event.attr.exclude_kernel = only_ring == 'u';
      event.attr.exclude_hv = 1;
      if (!event.name.ends_with(std::string(":") + only_ring)) event.name += std::string(":") + only_ring;
    }
}

void EventArguments::group_all(std::vector<EventGroup>& groups) const {
  if (!one_group || groups.size() < 2) return;
  EventGroup all;
  for (EventGroup& group : groups)
    for (Event& event : group.events) all.events.push_back(std::move(event));
  groups.assign(1, std::move(all));
}

Option EventArguments::group_option(char short_name) {
  return {short_name, "group", "", "put every event in one group, counted together (as one -e '{a,b,...}')",
          [this](std::string_view) { one_group = true; }};
}

std::vector<EventGroup> EventArguments::parse(const EventCatalog& catalog) const {
  std::vector<EventGroup> groups;
  for (std::size_t index = 0; index < lists.size(); ++index) {
    std::vector<EventGroup> parsed = catalog.parse(lists[index]);
    Event& last = parsed.back().events.back();
    // Two filters on one event must both pass, as perf joins them.
    for (const auto& [list, filter] : filters) {
      if (list != index) continue;
      if (last.attr.type != PERF_TYPE_TRACEPOINT)
        throw Error(ErrorKind::InvalidArgument,
                    "--filter '" + filter + "' follows '" + last.name +
                        "', which is not a tracepoint: put it right after the -e of a tracepoint.",
                    EINVAL);
      last.filter = last.filter.empty() ? filter : "(" + last.filter + ") && (" + filter + ")";
    }
    for (EventGroup& group : parsed) groups.push_back(std::move(group));
  }
  return groups;
}

namespace {

// The kernel's ceiling on sampling frequencies, as perf's -F max reads it.
long highest_sample_rate() {
  std::ifstream file("/proc/sys/kernel/perf_event_max_sample_rate");
  long rate = 0;
  if (!(file >> rate) || rate < 1)
    throw UsageError(
        "-F max reads the kernel's most samples a second from /proc/sys/kernel/perf_event_max_sample_rate, "
        "which cannot be read here: give a number, such as -F 4000");
  return rate;
}

}  // namespace

std::vector<Option> sampling_rate_options(long& period, long& frequency) {
  return {
      {'c', "count", "n", "a sample every n events",
       [&](std::string_view v) { period = parse_long(v, "--count", 1, (1L << 62)); }},
      {'F', "freq", "hz",
       "about hz samples a second on each CPU or thread (default 4000); max: the kernel's most "
       "(kernel.perf_event_max_sample_rate)",
       [&](std::string_view v) {
         frequency = v == "max" ? highest_sample_rate() : parse_long(v, "--freq", 1, 1'000'000);
       }},
  };
}

namespace {
// --call-graph fp | dwarf[,SIZE], as perf takes it.
void parse_call_graph(std::string_view text, CallGraphChoice& choice) {
  const std::size_t comma = text.find(',');
  const std::string_view mode = text.substr(0, comma);
  choice.callchains = true;
  choice.user_stack_bytes = 0;
  if (mode == "fp" && comma == std::string_view::npos) return;
  if (mode != "dwarf") throw UsageError("--call-graph takes fp or dwarf[,SIZE], not '" + std::string(text) + "'");
  const long size =
      comma == std::string_view::npos ? 8192 : parse_long(text.substr(comma + 1), "--call-graph dwarf,SIZE", 8, 65528);
  if (size % 8 != 0)
    throw UsageError("--call-graph dwarf's stack size is a multiple of 8 bytes, such as 8192; not " +
                     std::to_string(size));
  choice.user_stack_bytes = static_cast<std::uint32_t>(size);
}
}  // namespace

std::vector<Option> call_graph_options(CallGraphChoice& choice) {
  return {
      {'g', "", "", "record callchains (frame pointers)", [&](std::string_view) { choice.callchains = true; }},
      {0, "call-graph", "fp|dwarf[,size]",
       "callchains by frame pointers, or by copying size bytes of user stack (default 8192) to unwind with "
       "DWARF CFI: about 8 KiB a sample",
       [&](std::string_view v) { parse_call_graph(v, choice); }},
  };
}

std::string default_sampled_event(const EventCatalog& catalog, std::string& why) {
  const std::string refused = probe_event(catalog.resolve("cycles").attr);
  if (refused.empty()) return "cycles";
  why = "sampling cpu-clock, not cycles: " + refused;
  return "cpu-clock";
}

}  // namespace perfmon::cli
