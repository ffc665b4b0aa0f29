#include "perfmon/session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "kernel/explain.hpp"
#include "kernel/fd.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/privileges.hpp"
#include "kernel/read_format.hpp"
#include "kernel/user_page.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

// A group as opened at one location: the leader first, then the members, in kernel order.
struct GroupAtLocation {
  std::vector<kernel::FileDescriptor> fds;
  std::vector<std::uint64_t> ids;
  std::vector<kernel::UserPage> pages;  // one per fd, with user-mode reads
};

struct OpenGroup {
  std::vector<std::size_t> members;       // event indices that opened (leader first)
  std::vector<GroupAtLocation> at;        // by location; empty fds where the group does not apply
  std::vector<std::uint64_t> read_words;  // scratch for one read(2)
};

std::string resolve_cgroup_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.starts_with('/') && fs::is_directory(path, ec)) return path;
  for (const char* root : {"/sys/fs/cgroup/perf_event", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    fs::path candidate = fs::path(root) / path;
    if (fs::is_directory(candidate, ec)) return candidate.string();
  }
  throw Error("no cgroup '" + path + "': give a path below /sys/fs/cgroup (for example system.slice).", ENOENT);
}

}  // namespace

struct CounterSession::State {
  SessionOptions options;
  Target target;
  std::vector<Event> events;
  std::vector<std::string> unsupported;  // reason by event; empty when supported
  std::vector<Location> locations;
  std::vector<CounterValue> values;   // [event * locations + location]
  std::vector<unsigned char> failed;  // pinned group in error state, same layout
  std::vector<OpenGroup> groups;
  std::vector<int> leaders;  // every group leader's fd at every location: what start/stop/reset touch
  bool user_reads = false;
  std::size_t user_mode_reads = 0;
  std::vector<std::string> notes;
  kernel::FileDescriptor cgroup_fd;
  std::uint64_t read_format = 0;

  void open_group(const std::vector<std::size_t>& indices);
  int open_member(Event& event, perf_event_attr attr, std::size_t location, int group_fd);
};

int CounterSession::State::open_member(Event& event, perf_event_attr attr, std::size_t location, int group_fd) {
  const Location& where = locations[location];
  pid_t pid = where.tid;
  unsigned long flags = 0;
  if (target.kind == Target::Kind::Self) pid = 0;
  if (target.kind == Target::Kind::Cgroup) {
    pid = cgroup_fd.get();
    flags |= PERF_FLAG_PID_CGROUP;
  }
  if (event.max_precise) attr.precise_ip = 3;
  while (true) {
    int fd = kernel::perf_event_open_raw(attr, pid, where.cpu, group_fd, flags);
    if (fd >= 0) {
      event.attr.precise_ip = attr.precise_ip;
      return fd;
    }
    int err = -fd;
    if (event.max_precise && attr.precise_ip > 0 && (err == EINVAL || err == EOPNOTSUPP)) {
      --attr.precise_ip;
      continue;
    }
    // perf's fallback: where paranoid forbids kernel counting, count user space only and say so.
    if ((err == EACCES || err == EPERM) && !attr.exclude_kernel && !kernel::is_perf_privileged()) {
      attr.exclude_kernel = 1;
      attr.exclude_hv = 1;
      event.attr.exclude_kernel = 1;
      event.attr.exclude_hv = 1;
      notes.push_back("kernel.perf_event_paranoid=" + std::to_string(kernel::perf_event_paranoid()) +
                      " forbids counting the kernel: '" + event.name + "' counts user space only.");
      event.name += event.name.find(':') == std::string::npos || event.pmu == "tracepoint" ? ":u" : "u";
      continue;
    }
    return fd;
  }
}

void CounterSession::State::open_group(const std::vector<std::size_t>& indices) {
  OpenGroup group;
  group.at.resize(locations.size());
  for (std::size_t location = 0; location < locations.size(); ++location) {
    GroupAtLocation& at = group.at[location];
    for (std::size_t index : indices) {
      Event& event = events[index];
      if (!unsupported[index].empty()) continue;
      int cpu = locations[location].cpu;
      if (cpu >= 0 && !event.cpus.empty() && std::find(event.cpus.begin(), event.cpus.end(), cpu) == event.cpus.end())
        continue;  // the PMU does not count on this CPU (uncore or hybrid cpumask)
      bool leader = at.fds.empty();
      perf_event_attr attr = event.attr;
      attr.size = sizeof attr;
      attr.read_format = read_format;
      attr.disabled = leader ? 1 : 0;
      attr.enable_on_exec = leader && target.enable_on_exec ? 1 : 0;
      attr.inherit = options.inherit && !target.cpu_wide() ? 1 : 0;
      attr.pinned = leader && event.pinned ? 1 : 0;
      const bool core_pmu_event = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE ||
                                  attr.type == PERF_TYPE_RAW || event.pmu.starts_with("armv8_pmuv3");
      if (user_reads && core_pmu_event) kernel::request_user_access(attr);
      int fd = open_member(event, attr, location, leader ? -1 : at.fds.front().get());
      if (fd < 0) {
        int err = -fd;
        if (options.skip_unsupported && kernel::is_unsupported_errno(err) && location == 0) {
          unsupported[index] = kernel::open_failure_cause(err, event.attr, locations[location].tid, cpu);
          continue;
        }
        pid_t pid = target.kind == Target::Kind::Self ? 0 : locations[location].tid;
        throw Error(
            kernel::describe_open_failure(err, attr, pid, cpu, leader ? -1 : at.fds.front().get(),
                                          target.kind == Target::Kind::Cgroup ? PERF_FLAG_PID_CGROUP : 0, event.name),
            err);
      }
      at.fds.emplace_back(fd);
      if (user_reads) at.pages.emplace_back(fd);
      at.ids.push_back(kernel::event_id(fd));
      if (location == 0) group.members.push_back(index);
    }
  }
  group.read_words.resize(kernel::GroupReadLayout(read_format).words(group.members.size()));
  if (!group.members.empty()) groups.push_back(std::move(group));
}

CounterSession::CounterSession(const std::vector<EventGroup>& event_groups, const Target& target,
                               SessionOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = options;
  s.target = target;
  s.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                  (kernel::supports_format_lost() ? PERF_FORMAT_LOST : 0);
  switch (target.kind) {
    case Target::Kind::Self:
      s.locations.push_back({0, -1});
      break;
    case Target::Kind::Threads:
      for (pid_t tid : target.threads) s.locations.push_back({tid, -1});
      break;
    case Target::Kind::Cgroup:
      s.cgroup_fd.reset(::open(resolve_cgroup_path(target.cgroup).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!s.cgroup_fd) throw Error("cannot open cgroup '" + target.cgroup + "': " + std::strerror(errno) + ".", errno);
      [[fallthrough]];
    case Target::Kind::Cpus:
      for (int cpu : target.cpus) s.locations.push_back({-1, cpu});
      break;
  }
  if (s.locations.empty()) throw Error("nothing to monitor: the target names no thread and no CPU.", EINVAL);
  std::vector<std::vector<std::size_t>> members;
  for (const EventGroup& group : event_groups) {
    members.emplace_back();
    for (const Event& event : group.events) {
      members.back().push_back(s.events.size());
      s.events.push_back(event);
    }
  }
  if (s.events.empty()) throw Error("no events to count: name at least one with -e.", EINVAL);
  if (options.user_space_reads) {
    std::string why = target.kind != Target::Kind::Self || options.inherit
                          ? "they need the calling thread as the target, without inherit"
                          : kernel::user_access_unavailable_reason();
    if (why.empty())
      s.user_reads = true;
    else
      s.notes.push_back("user-mode counter reads are off (" + why + "); counters are read with read(2).");
  }
  s.unsupported.resize(s.events.size());
  s.values.resize(s.events.size() * s.locations.size());
  s.failed.resize(s.values.size());
  for (const auto& indices : members) {
    bool weak = indices.size() > 1 &&
                std::any_of(indices.begin(), indices.end(), [&](std::size_t i) { return s.events[i].weak_group; });
    if (!weak) {
      s.open_group(indices);
      continue;
    }
    // ':W', perf's weak group: if the kernel refuses the group whole, count its events apart.
    try {
      s.open_group(indices);
    } catch (const Error& error) {
      std::string names;
      for (std::size_t i : indices) names += (names.empty() ? "" : ",") + s.events[i].name;
      std::string why = error.what();
      if (why.ends_with('.')) why.pop_back();
      s.notes.push_back("the weak group {" + names + "} could not be opened whole (" + why +
                        "); its events are counted as separate groups.");
      for (std::size_t i : indices) s.open_group({i});
    }
  }
  for (const OpenGroup& group : s.groups)
    for (const GroupAtLocation& at : group.at)
      if (!at.fds.empty()) s.leaders.push_back(at.fds.front().get());
}

CounterSession::~CounterSession() = default;
CounterSession::CounterSession(CounterSession&&) noexcept = default;
CounterSession& CounterSession::operator=(CounterSession&&) noexcept = default;

namespace {
void for_each_leader(const std::vector<int>& leaders, int (*op)(int, bool) noexcept, const char* verb) {
  for (int fd : leaders) {
    if (int err = -op(fd, true); err != 0)
      throw Error(std::string("cannot ") + verb + " the counters: " + std::strerror(err) + ".", err);
  }
}
}  // namespace

void CounterSession::start() {
  for_each_leader(state_->leaders, kernel::enable, "start");
}
void CounterSession::stop() {
  for_each_leader(state_->leaders, kernel::disable, "stop");
}
void CounterSession::reset() {
  for_each_leader(state_->leaders, kernel::reset, "reset");
}

int CounterSession::read(ReadMethod method) noexcept {
  State& s = *state_;
  s.user_mode_reads = 0;
  const std::size_t location_count = s.locations.size();
  const kernel::GroupReadLayout layout(s.read_format);
  int first_error = 0;
  for (OpenGroup& group : s.groups) {
    for (std::size_t location = 0; location < location_count; ++location) {
      GroupAtLocation& at = group.at[location];
      if (at.fds.empty()) continue;
      if (method == ReadMethod::Fastest && !at.pages.empty()) {
        std::size_t k = 0;
        for (kernel::UserRead user; k < at.pages.size() && at.pages[k].read(user); ++k) {
          CounterValue& value = s.values[group.members[k] * location_count + location];
          value.raw = user.count;
          value.enabled = user.enabled;
          value.running = user.running;
        }
        if (k == at.pages.size()) {
          s.user_mode_reads += k;
          continue;
        }
        // A member is not on a counter right now: read(2) below takes the whole group.
      }
      const std::size_t bytes = group.read_words.size() * sizeof(std::uint64_t);
      ssize_t got = ::read(at.fds.front().get(), group.read_words.data(), bytes);
      if (got == 0) {
        // A pinned group that could not stay on the PMU: the kernel signals it with EOF.
        for (std::size_t index : group.members) s.failed[index * location_count + location] = 1;
        continue;
      }
      const std::uint64_t* words = group.read_words.data();
      long members = got < 0 ? -1 : layout.members(words, static_cast<std::size_t>(got) / sizeof(std::uint64_t));
      if (members < 0) {
        if (first_error == 0) first_error = got < 0 ? errno : EIO;
        continue;
      }
      const std::uint64_t enabled = layout.time_enabled(words), running = layout.time_running(words);
      for (std::size_t k = 0; k < static_cast<std::size_t>(members) && k < at.ids.size(); ++k) {
        // Members come back in the order they were opened; ids guard that assumption.
        std::size_t slot = k;
        if (layout.id(words, k) != at.ids[k]) {
          slot =
              static_cast<std::size_t>(std::find(at.ids.begin(), at.ids.end(), layout.id(words, k)) - at.ids.begin());
          if (slot >= at.ids.size()) continue;
        }
        CounterValue& value = s.values[group.members[slot] * location_count + location];
        value.raw = layout.value(words, k);
        value.enabled = enabled;
        value.running = running;
        value.lost = layout.lost(words, k);
      }
    }
  }
  return first_error;
}

std::size_t CounterSession::event_count() const noexcept {
  return state_->events.size();
}
const Event& CounterSession::event(std::size_t index) const noexcept {
  return state_->events[index];
}
bool CounterSession::supported(std::size_t index) const noexcept {
  return state_->unsupported[index].empty();
}
const std::string& CounterSession::unsupported_reason(std::size_t index) const noexcept {
  return state_->unsupported[index];
}
bool CounterSession::scheduling_failed(std::size_t index) const noexcept {
  const std::size_t n = state_->locations.size();
  for (std::size_t location = 0; location < n; ++location)
    if (state_->failed[index * n + location]) return true;
  return false;
}
std::size_t CounterSession::user_mode_reads() const noexcept {
  return state_->user_mode_reads;
}

const std::vector<Location>& CounterSession::locations() const noexcept {
  return state_->locations;
}

CounterValue CounterSession::value(std::size_t index) const noexcept {
  CounterValue total;
  const std::size_t n = state_->locations.size();
  for (std::size_t location = 0; location < n; ++location) total += state_->values[index * n + location];
  return total;
}

CounterValue CounterSession::value(std::size_t index, std::size_t location) const noexcept {
  return state_->values[index * state_->locations.size() + location];
}

const std::vector<std::string>& CounterSession::notes() const noexcept {
  return state_->notes;
}

}  // namespace perfmon
