// SPDX-License-Identifier: Apache-2.0
// Events counted system-wide per CPU, and per cgroup where asked (those below a watched parent as
// they come and go): each read a Reading, its raw, scaled, enabled and running values the series,
// and the events this machine cannot count said with why.
#include <sys/resource.h>

#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "monitor/locations.hpp"
#include "perfmon/error.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"
#include "serve/collector.hpp"

namespace perfmon::serve {

namespace {

constexpr Family kCount{
    "perfmon_event_count", "counter", "",
    "Events counted while the event was on the PMU (the raw count), by event, PMU, CPU and cgroup."};
constexpr Family kScaled{"perfmon_event_scaled_count", "counter", "",
                         "Events estimated over the whole enabled time where the event was multiplexed: each read's "
                         "count scaled by its enabled over running time, summed."};
constexpr Family kEnabled{"perfmon_event_enabled_seconds", "counter", "seconds",
                          "Time the event was enabled (counting or waiting for a counter)."};
constexpr Family kRunning{"perfmon_event_running_seconds", "counter", "seconds",
                          "Time the event was on the PMU, counting: less than enabled when it was multiplexed."};
constexpr Family kUnsupported{"perfmon_event_unsupported", "info", "",
                              "An event this machine cannot count, and why; it is left out of the other families."};
constexpr Family kNotCounted{"perfmon_cgroup_not_counted", "info", "",
                             "A cgroup that is not counted, and why (too few file descriptors, say); it has no series "
                             "in the other families."};

// Descriptors kept for what is not a counter: the server's connections (64 at most) and its files.
constexpr std::size_t kReservedDescriptors = 96;

// The process's open descriptors now.
std::size_t open_descriptors() {
  std::size_t count = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    ++count;
  return count;
}

std::size_t descriptor_limit() {
  rlimit limit{};
  return ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
             ? static_cast<std::size_t>(limit.rlim_cur)
             : std::numeric_limits<std::size_t>::max();
}

class EventCounters final : public Collector {
 public:
  explicit EventCounters(const MetricsOptions& options);
  void collect() override;
  void expose(Exposition& out) const override;
  std::vector<std::string> unsupported() const override;
  std::vector<std::string> not_counted() const override;

 private:
  // One session per counted thing: the CPUs, and each cgroup on them.
  struct Counted {
    std::string cgroup;  // "" for the CPUs themselves
    CounterSession session;
    bool watched = false;  // a child of a watched cgroup: dropped when it goes
    Reading reading;       // the last read
    // By event and location: the scaled count summed so far, a read's share at a time.
    std::vector<double> scaled;
  };

  void count(const std::string& cgroup, bool watched);
  // A watched child counted, or said not counted (with why) where descriptors run short.
  void count_watched(const std::string& cgroup);
  // The children of each watched cgroup, as they are now: new ones counted, gone ones dropped.
  void look_at_watched();
  // Every series of a family: for each counted thing, event and CPU with a value.
  template <typename ValueOf>
  void lines(Exposition& out, const Family& family, ValueOf value_of) const;

  std::vector<EventGroup> groups_;
  SessionOptions options_;
  Target cpus_;
  std::vector<std::string> watched_;  // "PARENT" of each "PARENT/*"
  std::vector<std::unique_ptr<Counted>> counted_;
  std::map<std::string, std::string> not_counted_;  // watched children, by path: why not
  std::size_t descriptors_per_cgroup_ = 0;          // the CPUs' session's: a cgroup's has as many
  std::size_t descriptors_used_ = 0;                // by the sessions, counted as they open
  std::size_t descriptor_budget_ = 0;               // for sessions: the limit less what else is open, less a reserve
};

EventCounters::EventCounters(const MetricsOptions& options)
    : groups_(options.groups), cpus_(options.cpus.empty() ? Target::all_cpus() : Target::cpu_list(options.cpus)) {
  options_.inherit = false;
  options_.skip_unsupported = true;
  // Every series is told apart by its labels: an event twice would give each of its series twice,
  // which Prometheus refuses whole.
  std::set<std::pair<std::string, std::string>> events;
  for (const EventGroup& group : groups_)
    for (const Event& event : group.events)
      if (!events.insert({event.name, event.pmu}).second)
        throw Error(ErrorKind::InvalidArgument,
                    "'" + event.name + "' is given twice: name each event once (its series would repeat).", EINVAL);
  count("", false);
  descriptors_per_cgroup_ = descriptors_used_;
  const std::size_t limit = descriptor_limit(), open = open_descriptors();
  descriptor_budget_ =
      limit > open + kReservedDescriptors ? limit - open - kReservedDescriptors + descriptors_used_ : 0;
  std::set<std::string> named;  // each cgroup and each watched parent once, however often given
  for (const std::string& cgroup : options.cgroups) {
    if (cgroup.empty() || cgroup == "/*")
      throw Error(ErrorKind::InvalidArgument,
                  "a cgroup's name is empty: give paths below /sys/fs/cgroup, separated by commas.", EINVAL);
    if (!named.insert(cgroup).second) continue;
    if (cgroup.ends_with("/*")) {
      watched_.push_back(cgroup.substr(0, cgroup.size() - 2));
      monitor::resolve_cgroup_path(watched_.back());  // one that is not there is a mistake, said now
    } else {
      count(cgroup, false);
    }
  }
  look_at_watched();
}

void EventCounters::count(const std::string& cgroup, bool is_watched) {
  const Target target = cgroup.empty() ? cpus_ : Target::cgroup_on(cgroup, cpus_.cpus);
  auto made = std::make_unique<Counted>(Counted{cgroup, CounterSession(groups_, target, options_), is_watched, {}, {}});
  made->reading = made->session.reading();
  made->scaled.resize(made->session.event_count() * made->session.locations().size());
  made->session.start();
  descriptors_used_ += made->scaled.size();
  counted_.push_back(std::move(made));
}

void EventCounters::count_watched(const std::string& cgroup) {
  if (descriptors_used_ + descriptors_per_cgroup_ > descriptor_budget_) {
    not_counted_[cgroup] = "not counted: it needs " + std::to_string(descriptors_per_cgroup_) +
                           " more file descriptors than the limit of " + std::to_string(descriptor_limit()) +
                           " leaves (ulimit -n); raise it";
    return;
  }
  try {
    count(cgroup, true);
    not_counted_.erase(cgroup);
  } catch (const Error& error) {
    // Gone between the listing and the opening: the next scrape will not list it. Any other
    // refusal (EMFILE where the budget guessed wrong) is said, not swallowed.
    if (error.kind() != ErrorKind::NoSuchTarget) not_counted_[cgroup] = std::string("not counted: ") + error.what();
  }
}

void EventCounters::look_at_watched() {
  namespace fs = std::filesystem;
  std::set<std::string> now;
  for (const std::string& parent : watched_) {
    std::string directory;
    try {
      directory = monitor::resolve_cgroup_path(parent);
    } catch (const Error&) {
      continue;  // gone itself: no children to count
    }
    std::error_code ec;
    for (const fs::directory_entry& child : fs::directory_iterator(directory, ec))
      if (child.is_directory(ec)) now.insert(parent + "/" + child.path().filename().string());
  }
  // A child also named on its own is counted once, as named (its series would repeat).
  for (const std::unique_ptr<Counted>& known : counted_)
    if (!known->watched) now.erase(known->cgroup);
  std::erase_if(not_counted_, [&](const auto& entry) { return !now.contains(entry.first); });
  std::erase_if(counted_, [&](const std::unique_ptr<Counted>& known) {
    const bool gone = known->watched && now.erase(known->cgroup) == 0;  // its series go with it
    if (gone) descriptors_used_ -= known->scaled.size();
    return gone;
  });
  for (const std::string& cgroup : now) count_watched(cgroup);
}

void EventCounters::collect() {
  look_at_watched();
  for (const std::unique_ptr<Counted>& each : counted_) {
    Counted& counted = *each;
    counted.session.read();
    Reading now = counted.session.reading();
    const std::size_t locations = now.locations.size();
    for (std::size_t e = 0; e < now.events.size(); ++e)
      for (std::size_t l = 0; l < locations; ++l) {
        const CounterValue& last = counted.reading.events[e].at[l];
        const CounterValue& value = now.events[e].at[l];
        // This read's share, scaled by its own enabled over running time: a sum that only grows.
        const std::uint64_t running = value.running - last.running, enabled = value.enabled - last.enabled;
        if (value.raw >= last.raw && running != 0 && value.running >= last.running)
          counted.scaled[e * locations + l] +=
              static_cast<double>(value.raw - last.raw) * static_cast<double>(enabled) / static_cast<double>(running);
      }
    counted.reading = std::move(now);
  }
}

template <typename ValueOf>
void EventCounters::lines(Exposition& out, const Family& family, ValueOf value_of) const {
  out.begin(family);
  for (const std::unique_ptr<Counted>& each : counted_) {
    const Counted& counted = *each;
    const Reading& reading = counted.reading;
    for (std::size_t e = 0; e < reading.events.size(); ++e) {
      const ReadingEvent& event = reading.events[e];
      if (!event.supported) continue;
      for (std::size_t l = 0; l < reading.locations.size(); ++l) {
        out.sample(family);
        out.label("event", event.event.name);
        out.label("pmu", event.event.pmu);
        out.label("cpu", static_cast<std::uint64_t>(reading.locations[l].cpu));
        if (!counted.cgroup.empty()) out.label("cgroup", counted.cgroup);
        value_of(event.at[l], counted.scaled[e * reading.locations.size() + l]);
      }
    }
  }
}

void EventCounters::expose(Exposition& out) const {
  lines(out, kCount, [&](const CounterValue& value, double) { out.value(value.raw); });
  lines(out, kScaled, [&](const CounterValue&, double scaled) { out.value(scaled); });
  lines(out, kEnabled, [&](const CounterValue& value, double) { out.value(static_cast<double>(value.enabled) / 1e9); });
  lines(out, kRunning, [&](const CounterValue& value, double) { out.value(static_cast<double>(value.running) / 1e9); });

  out.begin(kUnsupported);
  std::set<std::string> said;  // an event once, not once per cgroup
  for (const std::unique_ptr<Counted>& counted : counted_)
    for (const ReadingEvent& event : counted->reading.events) {
      if (event.supported || !said.insert(event.event.name).second) continue;
      out.sample(kUnsupported);
      out.label("event", event.event.name);
      out.label("pmu", event.event.pmu);
      out.label("reason", event.unsupported_reason);
      out.value(std::uint64_t{1});
    }
  out.begin(kNotCounted);
  for (const auto& [cgroup, why] : not_counted_) {
    out.sample(kNotCounted);
    out.label("cgroup", cgroup);
    out.label("reason", why);
    out.value(std::uint64_t{1});
  }
}

std::vector<std::string> EventCounters::unsupported() const {
  std::vector<std::string> said;
  for (const ReadingEvent& event : counted_.front()->reading.events)
    if (!event.supported) said.push_back(event.event.name + ": " + event.unsupported_reason);
  return said;
}

std::vector<std::string> EventCounters::not_counted() const {
  std::vector<std::string> said;
  for (const auto& [cgroup, why] : not_counted_) said.push_back(cgroup + ": " + why);
  return said;
}

}  // namespace

std::unique_ptr<Collector> collect_event_counters(const MetricsOptions& options) {
  return std::make_unique<EventCounters>(options);
}

}  // namespace perfmon::serve
