// SPDX-License-Identifier: Apache-2.0
// The open core: groups of events opened at every location of a target, as a groups x locations
// matrix of fds, in the spirit of libperf's evlist over cpu and thread maps. A counting session,
// the coming sampler and event sets all open, enable, disable, reset, read and map their events
// through it; the kernel's refusals go through diagnose/fallback.hpp's one decision.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernel/fd.hpp"
#include "kernel/mmap.hpp"
#include "kernel/read_format.hpp"
#include "monitor/attr.hpp"
#include "monitor/locations.hpp"
#include "perfmon/counter.hpp"
#include "perfmon/event.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/target.hpp"

namespace perfmon::monitor {

struct OpenedEvent {
  Event event;  // its attr as the kernel took it (fallbacks included)
  OpenFallbacks fallbacks;
  std::string unsupported;  // why this machine cannot count it; empty when it opened
};

// One group at one location: the leader first, then the members, in the kernel's order.
struct GroupFds {
  std::vector<std::size_t> events;  // event index of each fd
  std::vector<kernel::FileDescriptor> fds;
  std::vector<std::uint64_t> ids;              // PERF_EVENT_IOC_ID of each fd
  std::vector<kernel::EventMapping> mappings;  // one per fd, once mapped
};

struct OpenGroup {
  std::vector<std::size_t> members;  // event indices that opened somewhere, leader first
  std::vector<GroupFds> at;          // by location; no fds where the group does not count
  std::vector<std::uint64_t> words;  // one read(2) of the whole group
};

// Sets a tracepoint's ftrace filter on one of its fds. Throws perfmon::Error saying why when the
// event is not a tracepoint or the kernel refuses the filter.
void apply_filter(int fd, const Event& event, const std::string& filter);

class EventMatrix {
 public:
  // Opens every event of every group at every location of the target, disabled (a workload's
  // leaders are enabled by the kernel at its exec). A thread of another process that exits before
  // it is opened is left out (it no longer runs); only when all have, the target is gone. Throws
  // perfmon::Error.
  EventMatrix(const std::vector<EventGroup>& groups, const Target& target, OpenSettings settings);

  const Locations& locations() const noexcept { return locations_; }
  std::size_t event_count() const noexcept { return events_.size(); }
  const OpenedEvent& event(std::size_t index) const noexcept { return events_[index]; }
  const std::vector<OpenGroup>& groups() const noexcept { return groups_; }
  // What was done on the user's behalf (a fallback to user space, a weak group split), as sentences.
  const std::vector<std::string>& notes() const noexcept { return notes_; }

  // One ioctl per group and location; 0, or the errno of the first that failed.
  int enable() noexcept;
  int disable() noexcept;
  int reset() noexcept;
  // The same, throwing perfmon::Error that says what could not be done to `what` ("the counters").
  static void check_control(int err, const char* verb, const char* what);

  // Maps every fd's user page, for user-mode reads; 0, or the errno of the first that failed.
  int map_user_pages() noexcept;
  // Maps the ring buffers, `data_pages` pages each (a power of two), and sends the records of every
  // event into its ring (PERF_EVENT_IOC_SET_OUTPUT), as perf record does per CPU. 0, or the errno of
  // the first failure.
  int map_rings(std::size_t data_pages) noexcept;
  // The rings, one per CPU where the locations have CPUs, else one per location; the fd to poll for
  // each (-1 for a ring no event opened at, which stays unmapped).
  std::size_t ring_count() const noexcept { return rings_.size(); }
  const kernel::EventMapping& ring(std::size_t ring) const noexcept { return rings_[ring]; }
  int ring_fd(std::size_t ring) const noexcept { return ring_fds_[ring]; }
  std::size_t ring_of(std::size_t location) const noexcept { return ring_of_[location]; }

  // read() of a pinned group that the kernel could not keep on the PMU (it returns end of file).
  static constexpr int kNotScheduled = -1;

  // Reads a group at a location with one read(2) and hands each member's value to
  // store(event index, CounterValue). Returns 0, kNotScheduled or an errno. Allocates nothing.
  template <typename Store>
  int read(std::size_t group, std::size_t location, Store&& store) noexcept;

  // Reads the group's members in user mode from their mapped pages, one after the other, handing
  // each to store() as it goes. Returns how many were read: fewer than the group has when one is not
  // on a counter now (the caller then takes the whole group with read()).
  template <typename Store>
  std::size_t read_in_user_mode(std::size_t group, std::size_t location, Store&& store) const noexcept;

 private:
  void open_group(const std::vector<std::size_t>& indices, bool weak);
  // Opens one event at one location through the fallbacks. Returns the fd, or -errno.
  int open_event(std::size_t index, std::size_t location, int group_fd, bool weak_member);

  Locations locations_;
  OpenSettings settings_;
  kernel::GroupReadLayout layout_;
  std::vector<OpenedEvent> events_;
  std::vector<bool> opened_once_;  // by event: it opened at some location (its fallbacks are decided)
  std::vector<bool> exited_;       // by location: a thread that exited before it could be opened
  std::string exit_cause_;         // the first such exit, for when every thread has gone
  std::vector<OpenGroup> groups_;
  std::vector<int> leaders_;                 // every group's leader fd at every location: what the ioctls touch
  std::vector<kernel::EventMapping> rings_;  // once map_rings() has run
  std::vector<int> ring_fds_;                // by ring
  std::vector<std::size_t> ring_of_;         // by location
  std::vector<std::string> notes_;
  std::vector<std::string> user_space_only_;  // names, for one note
};

template <typename Store>
int EventMatrix::read(std::size_t g, std::size_t location, Store&& store) noexcept {
  OpenGroup& group = groups_[g];
  const GroupFds& at = group.at[location];
  if (at.fds.empty()) return 0;
  const ssize_t got = ::read(at.fds.front().get(), group.words.data(), group.words.size() * sizeof(std::uint64_t));
  if (got == 0) return kNotScheduled;
  if (got < 0) return errno;
  // A local copy: the values stored below are u64s, which the compiler must assume may alias the
  // layout's size_t fields and reload them after every store.
  const kernel::GroupReadLayout layout = layout_;
  const std::uint64_t* words = group.words.data();
  const long members = layout.members(words, static_cast<std::size_t>(got) / sizeof(std::uint64_t));
  if (members < 0) return EIO;
  const std::uint64_t enabled = layout.time_enabled(words), running = layout.time_running(words);
  for (std::size_t k = 0; k < static_cast<std::size_t>(members) && k < at.ids.size(); ++k) {
    // Members come back in the order they were opened; ids guard that assumption.
    std::size_t slot = k;
    if (layout.id(words, k) != at.ids[k]) {
      slot = 0;
      while (slot < at.ids.size() && at.ids[slot] != layout.id(words, k)) ++slot;
      if (slot == at.ids.size()) continue;
    }
    store(at.events[slot], CounterValue{layout.value(words, k), enabled, running, layout.lost(words, k)});
  }
  return 0;
}

template <typename Store>
std::size_t EventMatrix::read_in_user_mode(std::size_t g, std::size_t location, Store&& store) const noexcept {
  const GroupFds& at = groups_[g].at[location];
  std::size_t k = 0;
  for (kernel::UserRead user; k < at.mappings.size() && at.mappings[k].read_counter(user); ++k)
    store(at.events[k], CounterValue{user.count, user.enabled, user.running, 0});
  return k;
}

}  // namespace perfmon::monitor
