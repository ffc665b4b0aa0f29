#include "event_arguments.hpp"

#include <cerrno>

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
  };
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

std::vector<Option> sampling_rate_options(long& period, long& frequency) {
  return {
      {'c', "count", "n", "a sample every n events",
       [&](std::string_view v) { period = parse_long(v, "--count", 1, (1L << 62)); }},
      {'F', "freq", "hz", "about hz samples a second on each CPU or thread (default 4000)",
       [&](std::string_view v) { frequency = parse_long(v, "--freq", 1, 1'000'000); }},
  };
}

std::string default_sampled_event(const EventCatalog& catalog, std::string& why) {
  const std::string refused = probe_event(catalog.resolve("cycles").attr);
  if (refused.empty()) return "cycles";
  why = "sampling cpu-clock, not cycles: " + refused;
  return "cpu-clock";
}

}  // namespace perfmon::cli
