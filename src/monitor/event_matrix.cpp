// SPDX-License-Identifier: Apache-2.0
#include "monitor/event_matrix.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "diagnose/explain.hpp"
#include "diagnose/fallback.hpp"
#include "diagnose/privileges.hpp"
#include "kernel/perf_event.hpp"
#include "perfmon/error.hpp"

namespace perfmon::monitor {

namespace {

// Thrown inside open_group when a ':W' group must be opened as single events.
struct SplitWeakGroup {
  std::string cause;
};

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

}  // namespace

EventMatrix::EventMatrix(const std::vector<EventGroup>& groups, const Target& target, OpenSettings settings)
    : locations_(target, settings.threads_per_cpu), settings_(settings), layout_(settings.read_format) {
  settings_.inherit = settings.inherit && !locations_.cpu_wide();  // CPU-wide events cannot inherit
  std::vector<std::vector<std::size_t>> members;
  std::vector<bool> weak;
  for (const EventGroup& group : groups) {
    members.emplace_back();
    bool any_weak = false;
    for (const Event& event : group.events) {
      members.back().push_back(events_.size());
      events_.push_back({event, {}, {}});
      any_weak |= event.weak_group;
    }
    weak.push_back(any_weak && group.events.size() > 1);
  }
  if (events_.empty())
    throw Error(ErrorKind::InvalidArgument, "no events to count: the event groups are empty.", EINVAL);
  opened_once_.assign(events_.size(), false);
  exited_.assign(locations_.size(), false);
  for (std::size_t g = 0; g < members.size() && !settings_.counted_elsewhere; ++g) open_group(members[g], weak[g]);
  if (std::all_of(exited_.begin(), exited_.end(), [](bool exited) { return exited; }))
    throw Error(ErrorKind::NoSuchTarget, exit_cause_, ESRCH);
  for (const OpenGroup& group : groups_)
    for (const GroupFds& at : group.at)
      if (!at.fds.empty()) leaders_.push_back(at.fds.front().get());
  if (!user_space_only_.empty())
    notes_.push_back("kernel.perf_event_paranoid=" + std::to_string(diagnose::perf_event_paranoid()) +
                     " forbids counting the kernel, so " + quoted_list(user_space_only_) +
                     (user_space_only_.size() == 1 ? " counts" : " count") + " user space only.");
}

void apply_filter(int fd, const Event& event, const std::string& filter) {
  if (event.attr.type != PERF_TYPE_TRACEPOINT)
    throw Error(ErrorKind::InvalidArgument,
                "'" + event.name + "' is not a tracepoint: only tracepoints take a filter over their fields.", EINVAL);
  if (int err = kernel::set_filter(fd, filter.c_str()); err != 0)
    throw Error(ErrorKind::InvalidArgument,
                "the kernel refused the filter '" + filter + "' of '" + event.name + "' (" + std::strerror(-err) +
                    "): a filter compares the tracepoint's fields (listed in its format file under tracefs), like "
                    "'error_code & 2' or 'ret < 0'.",
                -err);
}

int EventMatrix::open_event(std::size_t index, std::size_t location, int group_fd, bool weak_member) {
  OpenedEvent& opened = events_[index];
  std::optional<diagnose::Privilege> privilege;  // read only if the kernel refuses
  while (true) {
    const bool leader = group_fd < 0;
    perf_event_attr attr = complete_attr(opened.event, leader, settings_);
    int fd =
        kernel::perf_event_open(attr, locations_.pid(location), locations_.cpu(location), group_fd, locations_.flags());
    if (fd >= 0) return fd;
    if (!privilege) privilege = diagnose::current_privilege();
    diagnose::NextAttempt next = diagnose::next_attempt({attr, -fd, opened.event.max_precise, weak_member}, *privilege);
    switch (next.fallback) {
      case diagnose::Fallback::LowerPrecision:
        opened.fallbacks.lower_precision = true;
        opened.event.attr.precise_ip = next.attr.precise_ip;
        break;
      case diagnose::Fallback::UserSpaceOnly:
        opened.fallbacks.user_space_only = true;
        opened.event.attr.exclude_kernel = next.attr.exclude_kernel;
        opened.event.attr.exclude_hv = next.attr.exclude_hv;
        user_space_only_.push_back(opened.event.name);
        break;
      case diagnose::Fallback::SplitGroup:
        throw SplitWeakGroup{diagnose::describe_open_failure(-fd, attr, locations_.pid(location),
                                                             locations_.cpu(location), group_fd, locations_.flags(),
                                                             opened.event.name)};
      case diagnose::Fallback::None:
        return fd;
    }
  }
}

void EventMatrix::open_group(const std::vector<std::size_t>& indices, bool weak) {
  OpenGroup group;
  group.at.resize(locations_.size());
  try {
    for (std::size_t location = 0; location < locations_.size(); ++location) {
      GroupFds& at = group.at[location];
      const int cpu = locations_.cpu(location);
      if (exited_[location]) continue;
      for (std::size_t index : indices) {
        OpenedEvent& opened = events_[index];
        if (!opened.unsupported.empty()) continue;
        const std::vector<int>& cpus = opened.event.cpus;
        if (cpu >= 0 && !cpus.empty() && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
          continue;  // the PMU does not count on this CPU (uncore or hybrid cpumask)
        const int group_fd = at.fds.empty() ? -1 : at.fds.front().get();
        const int fd = open_event(index, location, group_fd, weak && group_fd >= 0);
        if (fd < 0) {
          const int err = -fd;
          if (err == ESRCH && locations_.other_threads()) {
            // The thread exited between the listing of the target's threads and now: nothing of
            // it is left to count. What it counted in earlier groups stays.
            exited_[location] = true;
            if (exit_cause_.empty())
              exit_cause_ = diagnose::describe_open_failure(err, opened.event.attr, locations_.pid(location), cpu,
                                                            group_fd, locations_.flags(), opened.event.name);
            at = GroupFds{};
            break;
          }
          // Where the event is first tried, "this machine cannot count it" is reported, not fatal.
          if (settings_.skip_unsupported && diagnose::is_unsupported_errno(err) && !opened_once_[index]) {
            opened.unsupported = diagnose::open_failure_cause(err, opened.event.attr, locations_.pid(location), cpu);
            continue;
          }
          throw Error(diagnose::open_error_kind(err),
                      diagnose::describe_open_failure(err, complete_attr(opened.event, group_fd < 0, settings_),
                                                      locations_.pid(location), cpu, group_fd, locations_.flags(),
                                                      opened.event.name),
                      err);
        }
        at.events.push_back(index);
        at.fds.emplace_back(fd);
        if (!opened.event.filter.empty()) apply_filter(fd, opened.event, opened.event.filter);
        at.ids.push_back(kernel::event_id(fd));
        if (!opened_once_[index]) {
          opened_once_[index] = true;
          group.members.push_back(index);
        }
      }
    }
  } catch (const SplitWeakGroup& split) {
    // perf's weak group: the kernel refuses the group whole, so its events count apart.
    group = OpenGroup{};  // closes what did open, before the events are opened again
    std::string list;
    for (std::size_t index : indices) {
      list += (list.empty() ? "" : ",") + events_[index].event.name;
      events_[index].fallbacks.split_from_group = true;
      opened_once_[index] = false;
    }
    notes_.push_back("the weak group {" + list + "} could not be opened whole, so its events are counted as " +
                     "separate groups: " + split.cause);
    for (std::size_t index : indices) open_group({index}, false);
    return;
  }
  if (group.members.empty()) return;
  std::size_t largest = 0;
  for (const GroupFds& at : group.at) largest = std::max(largest, at.fds.size());
  group.words.resize(layout_.words(largest));
  groups_.push_back(std::move(group));
}

namespace {
int for_each_leader(const std::vector<int>& leaders, int (*op)(int, bool) noexcept) noexcept {
  for (int fd : leaders)
    if (int err = -op(fd, true); err != 0) return err;
  return 0;
}
}  // namespace

int EventMatrix::enable() noexcept {
  return for_each_leader(leaders_, kernel::enable);
}
int EventMatrix::disable() noexcept {
  return for_each_leader(leaders_, kernel::disable);
}
int EventMatrix::reset() noexcept {
  return for_each_leader(leaders_, kernel::reset);
}

int EventMatrix::map_user_pages() noexcept {
  for (OpenGroup& group : groups_) {
    for (GroupFds& at : group.at) {
      at.mappings.resize(at.fds.size());
      for (std::size_t k = 0; k < at.fds.size(); ++k)
        if (int err = at.mappings[k].map(at.fds[k].get(), 0); err != 0) return err;
    }
  }
  return 0;
}

void EventMatrix::check_control(int err, const char* verb, const char* what) {
  if (err != 0)
    throw Error(ErrorKind::System, std::string("cannot ") + verb + " " + what + ": " + std::strerror(err) + ".", err);
}

int EventMatrix::map_rings(std::size_t data_pages) noexcept {
  // One ring per CPU where locations have a CPU, else one per location (a thread on any CPU).
  rings_.clear();
  ring_fds_.clear();
  ring_of_.assign(locations_.size(), 0);
  std::vector<std::pair<int, std::size_t>> ring_of_cpu;  // (cpu, ring)
  for (std::size_t location = 0; location < locations_.size(); ++location) {
    const int cpu = locations_.cpu(location);
    auto shared = std::find_if(ring_of_cpu.begin(), ring_of_cpu.end(), [&](const auto& r) { return r.first == cpu; });
    if (cpu >= 0 && shared != ring_of_cpu.end()) {
      ring_of_[location] = shared->second;
      continue;
    }
    ring_of_[location] = rings_.size();
    if (cpu >= 0) ring_of_cpu.emplace_back(cpu, rings_.size());
    rings_.emplace_back();
    ring_fds_.push_back(-1);
  }
  for (const OpenGroup& group : groups_) {
    for (std::size_t location = 0; location < group.at.size(); ++location) {
      for (const kernel::FileDescriptor& fd : group.at[location].fds) {
        const std::size_t ring = ring_of_[location];
        if (ring_fds_[ring] < 0) {
          if (int err = rings_[ring].map(fd.get(), data_pages); err != 0) return err;
          ring_fds_[ring] = fd.get();
        } else if (int err = kernel::set_output(fd.get(), ring_fds_[ring]); err != 0) {
          return -err;
        }
      }
    }
  }
  return 0;
}

}  // namespace perfmon::monitor
