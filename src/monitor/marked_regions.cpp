// SPDX-License-Identifier: Apache-2.0
#include "perfmon/marked_regions.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

namespace {

constexpr std::size_t kNoGroup = static_cast<std::size_t>(-1);

// Which MarkedRegions a thread's cached state belongs to: a number never reused, unlike an address.
std::atomic<std::uint64_t> next_serial{1};

// The live instances by serial, for the threads that end: a thread's counters are closed when it
// exits (its sums stay), unless its MarkedRegions went first. Never destroyed: the C APIs' users
// close their regions as the process exits, from ELF destructors or atexit handlers that may run
// after a static's destructor (libperfmon-gbench writes its results from one).
std::mutex live_mutex;
std::map<std::uint64_t, MarkedRegions::State*>& live() {
  union Registry {
    Registry() : instances() {}
    ~Registry() {}
    std::map<std::uint64_t, MarkedRegions::State*> instances;
  };
  static Registry registry;
  return registry.instances;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct MarkedRegions::State {
  struct Sums {
    std::vector<CounterValue> values;
    std::uint64_t count = 0;
    double seconds = 0;
    int cpu = -1;
  };
  struct Region {
    std::string tag;
    std::vector<Sums> by_group;
    bool started = false;
    std::size_t started_group = 0;
    double started_at = 0;
    std::vector<CounterValue> at_start;
  };
  struct Thread {
    pid_t tid = 0;
    std::size_t index = 0;
    std::mutex mutex;  // its owner marks; next_group() and results() come from other threads
    std::vector<std::optional<CounterSession>> sessions;  // by group, opened when first counted
    std::size_t counting = kNoGroup;
    std::vector<Region> regions;
    std::vector<CounterValue> now;  // scratch of a read
    bool exited = false;            // its counters closed, its sums kept
    bool emulated = false;          // its counters were the emulated CPU's (kept past their closing)
  };

  std::uint64_t serial = next_serial.fetch_add(1);
  std::vector<std::vector<EventGroup>> groups;
  std::vector<std::vector<std::string>> names;
  std::atomic<std::size_t> active{0};
  mutable std::mutex mutex;  // threads, errors
  std::vector<std::unique_ptr<Thread>> threads;
  std::vector<std::string> errors;

  Thread* this_thread();
  // The thread with this id has exited: its counters are closed.
  void thread_exited(pid_t tid) {
    std::lock_guard lock(mutex);
    for (const std::unique_ptr<Thread>& thread : threads) {
      if (thread->tid != tid || thread->exited) continue;
      std::lock_guard thread_lock(thread->mutex);
      for (std::optional<CounterSession>& session : thread->sessions) session.reset();
      thread->counting = kNoGroup;
      thread->exited = true;
    }
  }
  // The thread's counters on the active group. False where they could not be opened.
  bool count_active_group(Thread& thread);
  void note_error(const std::string& text) {
    std::lock_guard lock(mutex);
    if (std::find(errors.begin(), errors.end(), text) == errors.end()) errors.push_back(text);
  }
  // The thread's counts now, into `values`: sized before the counters are read, so that no
  // allocation falls between a region's two reads (it would count, and not the same every time).
  void read(Thread& thread, std::vector<CounterValue>& values) {
    CounterSession& session = *thread.sessions[thread.counting];
    values.resize(session.event_count());
    session.read();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = session.value(i);
  }
  Region* find(Thread& thread, std::string_view tag) {
    for (Region& region : thread.regions)
      if (region.tag == tag) return &region;
    return nullptr;
  }
  Region& find_or_add(Thread& thread, std::string_view tag) {
    if (Region* region = find(thread, tag)) return *region;
    Region& region = thread.regions.emplace_back();
    region.tag = std::string(tag);
    region.by_group.resize(groups.size());
    return region;
  }
};

MarkedRegions::State::Thread* MarkedRegions::State::this_thread() {
  thread_local struct {
    std::uint64_t serial = 0;
    Thread* thread = nullptr;
  } cached;
  if (cached.serial == serial) return cached.thread;
  const pid_t tid = gettid();
  std::lock_guard lock(mutex);
  Thread* found = nullptr;
  for (const std::unique_ptr<Thread>& thread : threads)
    if (thread->tid == tid) found = thread.get();
  if (found == nullptr) {
    found = threads.emplace_back(std::make_unique<Thread>()).get();
    found->tid = tid;
    found->index = threads.size() - 1;
    found->sessions.resize(groups.size());
  }
  cached = {serial, found};
  // When this thread exits, the instances it marked in (those still alive) close its counters.
  thread_local struct ExitWatch {
    std::vector<std::uint64_t> serials;
    ~ExitWatch() {
      const pid_t self = gettid();
      std::lock_guard live_lock(live_mutex);
      for (std::uint64_t serial : serials)
        if (auto found = live().find(serial); found != live().end()) found->second->thread_exited(self);
    }
  } watch;
  watch.serials.push_back(serial);
  return found;
}

bool MarkedRegions::State::count_active_group(Thread& thread) {
  const std::size_t group = active.load(std::memory_order_relaxed);
  if (thread.counting == group) return true;
  try {
    if (thread.counting != kNoGroup) thread.sessions[thread.counting]->stop();
    thread.counting = kNoGroup;
    std::optional<CounterSession>& session = thread.sessions[group];
    if (!session) {
      SessionOptions options;
      options.inherit = false;
      // The calling thread as itself (on the emulated CPU too); another (next_group()) by its id.
      session.emplace(groups[group], thread.tid == gettid() ? Target::self() : Target::thread(thread.tid), options);
    }
    session->start();
    thread.emulated = session->emulated();
    thread.counting = group;
    return true;
  } catch (const Error& error) {
    note_error(error.what());
    return false;
  }
}

MarkedRegions::MarkedRegions(const std::vector<std::string>& groups) : state_(std::make_unique<State>()) {
  if (groups.empty()) throw Error(ErrorKind::InvalidArgument, "marked regions need at least one event group.", EINVAL);
  EventCatalog catalog;
  for (const std::string& list : groups) {
    state_->groups.push_back(catalog.parse(list));
    std::vector<std::string>& names = state_->names.emplace_back();
    for (const EventGroup& group : state_->groups.back())
      for (const Event& event : group.events) names.push_back(event.name);
  }
  std::lock_guard lock(live_mutex);
  live()[state_->serial] = state_.get();
}

MarkedRegions::~MarkedRegions() {
  std::lock_guard lock(live_mutex);
  live().erase(state_->serial);
}

MarkedRegions::Status MarkedRegions::register_region(std::string_view tag) {
  State::Thread& thread = *state_->this_thread();
  std::lock_guard lock(thread.mutex);
  if (!state_->count_active_group(thread)) return Status::NoCounters;
  state_->find_or_add(thread, tag);
  return Status::Done;
}

MarkedRegions::Status MarkedRegions::start(std::string_view tag) {
  State::Thread& thread = *state_->this_thread();
  std::lock_guard lock(thread.mutex);
  if (!state_->count_active_group(thread)) return Status::NoCounters;
  State::Region& region = state_->find_or_add(thread, tag);
  const Status status = region.started ? Status::AlreadyStarted : Status::Done;
  region.started = true;
  region.started_group = thread.counting;
  region.by_group[thread.counting].cpu = sched_getcpu();
  region.started_at = now_seconds();
  state_->read(thread, region.at_start);  // last: what follows is the region's
  return status;
}

MarkedRegions::Status MarkedRegions::stop(std::string_view tag) {
  State::Thread& thread = *state_->this_thread();
  std::lock_guard lock(thread.mutex);
  State::Region* region = state_->find(thread, tag);
  if (region == nullptr || !region->started || thread.counting != region->started_group) {
    if (region != nullptr) region->started = false;  // a group switched under it: its counts are lost
    return Status::NotStarted;
  }
  state_->read(thread, thread.now);  // first: what came before is the region's
  const double ended = now_seconds();
  State::Sums& sums = region->by_group[region->started_group];
  sums.values.resize(thread.now.size());
  for (std::size_t i = 0; i < thread.now.size() && i < region->at_start.size(); ++i)
    sums.values[i] += thread.now[i] - region->at_start[i];
  sums.count += 1;
  sums.seconds += ended - region->started_at;
  region->started = false;
  return Status::Done;
}

MarkedRegions::Status MarkedRegions::reset(std::string_view tag) {
  State::Thread& thread = *state_->this_thread();
  std::lock_guard lock(thread.mutex);
  State::Region* region = state_->find(thread, tag);
  if (region == nullptr) return Status::NotStarted;
  if (region->started) return Status::Running;
  region->by_group[state_->active.load()] = {};
  return Status::Done;
}

bool MarkedRegions::get(std::string_view tag, std::vector<double>& values, double& seconds,
                        std::uint64_t& count) const {
  State::Thread& thread = *state_->this_thread();
  std::lock_guard lock(thread.mutex);
  const State::Region* region = state_->find(thread, tag);
  if (region == nullptr) return false;
  const State::Sums& sums = region->by_group[state_->active.load()];
  values.clear();
  for (const CounterValue& value : sums.values) values.push_back(value.scaled());
  seconds = sums.seconds;
  count = sums.count;
  return sums.count > 0;
}

void MarkedRegions::next_group() {
  const std::size_t groups = state_->groups.size();
  state_->active.store((state_->active.load() + 1) % groups);
  std::lock_guard lock(state_->mutex);
  for (const std::unique_ptr<State::Thread>& thread : state_->threads) {
    std::lock_guard thread_lock(thread->mutex);
    if (!thread->exited) state_->count_active_group(*thread);
  }
}

std::size_t MarkedRegions::active_group() const noexcept {
  return state_->active.load();
}

std::size_t MarkedRegions::group_count() const noexcept {
  return state_->groups.size();
}

std::vector<std::string> MarkedRegions::event_names(std::size_t group) const {
  return group < state_->names.size() ? state_->names[group] : std::vector<std::string>{};
}

std::vector<MarkedRegionResult> MarkedRegions::results() const {
  std::vector<MarkedRegionResult> out;
  std::lock_guard lock(state_->mutex);
  for (const std::unique_ptr<State::Thread>& thread : state_->threads) {
    std::lock_guard thread_lock(thread->mutex);
    for (const State::Region& region : thread->regions)
      for (std::size_t g = 0; g < region.by_group.size(); ++g) {
        const State::Sums& sums = region.by_group[g];
        if (sums.count == 0) continue;
        out.push_back({region.tag, g, thread->tid, thread->index, sums.cpu, sums.count, sums.seconds, sums.values,
                       thread->emulated});
      }
  }
  return out;
}

std::vector<std::string> MarkedRegions::errors() const {
  std::lock_guard lock(state_->mutex);
  return state_->errors;
}

namespace {

const Event* first_named(const std::vector<EventGroup>& groups, const std::string& name) {
  for (const EventGroup& group : groups)
    for (const Event& event : group.events)
      if (event.name == name) return &event;
  return nullptr;
}

}  // namespace

Reading marked_region_reading(const MarkedRegionResult& region, const std::vector<std::string>& names,
                              const std::vector<EventGroup>& known) {
  Reading reading;
  reading.emulated = region.emulated;
  for (std::size_t index = 0; index < region.values.size(); ++index) {
    ReadingEvent& event = reading.events.emplace_back();
    event.event.name = index < names.size() ? names[index] : "?";
    if (const Event* found = first_named(known, event.event.name)) event.event = *found;
    event.label = "thread" + std::to_string(region.thread);
    event.label_kind = "thread";
    event.value = region.values[index];
  }
  return reading;
}

}  // namespace perfmon
