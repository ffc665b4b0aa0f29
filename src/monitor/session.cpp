// SPDX-License-Identifier: Apache-2.0
#include "perfmon/session.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "diagnose/user_access.hpp"
#include "emulated/emulated_events.hpp"
#include "emulated/emulated_region.hpp"
#include "events/sources/sysfs_pmu.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/sample_layout.hpp"
#include "monitor/event_matrix.hpp"
#include "monitor/overflow_signals.hpp"
#include "perfmon/error.hpp"
#include "perfmon/pass_plan.hpp"

namespace perfmon {

namespace {

monitor::OpenSettings settings_for(const Target& target, const SessionOptions& options, bool user_reads,
                                   bool emulated = false) {
  // Counted elsewhere (the emulated CPU), nothing is opened through the kernel: no probe of what
  // its reads can hold (whose first perf_event_open in a while costs milliseconds).
  monitor::OpenSettings settings = monitor::open_settings(
      target, options.inherit, options.skip_unsupported,
      emulated ? monitor::ReadShape::Group : monitor::ReadShape::GroupWithLost);
  settings.counted_elsewhere = emulated;
  settings.user_access = user_reads;
  monitor::OverflowSignals::request(settings, options);
  return settings;
}

// What a region on the emulated CPU needs to know of the session's options.
emulation::RegionOptions region_options(const SessionOptions& options) {
  return {options.skip_unsupported, options.inherit, options.user_space_reads,
          monitor::OverflowSignals::asked(options)};
}

// Why user-mode reads cannot be used for this measurement, or "".
std::string user_reads_refusal(const Target& target, const SessionOptions& options) {
  if (!options.user_space_reads) return "";
  if (target.kind != Target::Kind::Self || options.inherit)
    return "they need the calling thread as the target, without inherit";
  return diagnose::user_access_unavailable_reason();
}

}  // namespace

struct CounterSession::State {
  State(const std::vector<EventGroup>& groups, const Target& target, const SessionOptions& options,
        const std::string& refusal, bool emulated)
      : user_reads(options.user_space_reads && refusal.empty() && !emulated),
        matrix(groups, target, settings_for(target, options, user_reads, emulated)) {}

  bool user_reads;
  monitor::EventMatrix matrix;
  std::vector<CounterValue> values;     // [event * locations + location]
  std::vector<unsigned char> failed;    // pinned group in error state, same layout
  std::vector<SliceStatistics> slices;  // each read's change since the last, same layout
  bool self = false;
  std::vector<std::uint64_t> overhead;  // by event, once calibrated
  std::size_t user_mode_reads = 0;
  std::vector<std::string> notes;
  std::optional<monitor::OverflowSignals> overflow_signals;
  std::optional<emulation::EmulatedRegion> emulated;
};

namespace {

// Strict mode's groups: checked against the counters, and pinned.
std::vector<EventGroup> strict_groups(const std::vector<EventGroup>& groups) {
  bool hardware = false;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) hardware |= events::is_core_pmu(event.pmu, event.attr.type);
  if (hardware) {
    const std::optional<CounterBudget> budget = counter_budget();
    if (!budget)
      throw Error(ErrorKind::Limit,
                  "strict mode cannot tell how many counters this CPU has (no CPUID leaf, no PMU driver line in the "
                  "kernel log): count without it, or read the log as root.",
                  ENODEV);
    if (std::string reason = multiplexing_reason(groups, *budget); !reason.empty())
      throw Error(ErrorKind::Limit, "strict mode: " + reason, EINVAL);
  }
  std::vector<EventGroup> pinned = groups;
  for (EventGroup& group : pinned)
    if (!group.events.empty()) group.events.front().pinned = true;
  return pinned;
}

}  // namespace

CounterSession::CounterSession(const std::vector<EventGroup>& groups, const Target& target, SessionOptions options) {
  std::vector<std::string> emulated_notes;
  std::optional<emulation::EmulatedRegion> region = emulation::emulated_region(
      groups, target.kind == Target::Kind::Self, target.emulated_workload, region_options(options), emulated_notes);
  const bool emulated = region.has_value();
  const std::string refusal = emulated ? "" : user_reads_refusal(target, options);
  // Emulated counts are never multiplexed: strict mode has nothing to check there.
  state_ = std::make_unique<State>(monitor::OverflowSignals::with_periods(
                                       options.strict && !emulated ? strict_groups(groups) : groups, target, options),
                                   target, options, refusal, emulated);
  State& s = *state_;
  s.self = target.kind == Target::Kind::Self;
  s.emulated = std::move(region);
  s.notes = std::move(emulated_notes);
  if (!refusal.empty())
    s.notes.push_back("user-mode counter reads are off (" + refusal + "); counters are read with read(2).");
  for (const std::string& note : s.matrix.notes()) s.notes.push_back(note);
  if (s.user_reads) {
    if (int err = s.matrix.map_user_pages(); err != 0)
      throw Error(ErrorKind::Limit, std::string("cannot map the counters' user pages: ") + std::strerror(err) + ".",
                  err);
  }
  s.values.resize(s.matrix.event_count() * s.matrix.locations().size());
  s.failed.resize(s.values.size());
  if (options.error_bars) s.slices.resize(s.values.size());
  s.overflow_signals.emplace(s.matrix, options, settings_for(target, options, s.user_reads, emulated));
}

CounterSession::~CounterSession() = default;
CounterSession::CounterSession(CounterSession&&) noexcept = default;
CounterSession& CounterSession::operator=(CounterSession&&) noexcept = default;

void CounterSession::start() {
  State& s = *state_;
  if (s.overflow_signals) monitor::EventMatrix::check_control(s.overflow_signals->arm(), "start", "the counters");
  monitor::EventMatrix::check_control(s.emulated ? s.emulated->start() : s.matrix.enable(), "start", "the counters");
}
void CounterSession::stop() {
  State& s = *state_;
  monitor::EventMatrix::check_control(s.emulated ? s.emulated->stop() : s.matrix.disable(), "stop", "the counters");
}
void CounterSession::reset() {
  State& s = *state_;
  monitor::EventMatrix::check_control(s.emulated ? s.emulated->reset() : s.matrix.reset(), "reset", "the counters");
  for (SliceStatistics& slices : state_->slices) slices.clear();
  for (CounterValue& value : state_->values) value.raw = 0;  // the next read's slice starts here
}

int CounterSession::read(ReadMethod method) noexcept {
  State& s = *state_;
  s.user_mode_reads = 0;
  if (s.emulated) return s.emulated->read(s.values.data(), s.matrix.locations().size());
  monitor::EventMatrix& matrix = s.matrix;
  const std::size_t location_count = matrix.locations().size();
  int first_error = 0;
  const std::vector<monitor::OpenGroup>& groups = matrix.groups();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t location = 0; location < location_count; ++location) {
      CounterValue* const at_location = s.values.data() + location;
      SliceStatistics* const slices_at_location = s.slices.empty() ? nullptr : s.slices.data() + location;
      auto store = [at_location, slices_at_location, location_count](std::size_t event, const CounterValue& value) {
        // Field by field: a whole-struct copy is made with 16-byte loads of the 8-byte fields just
        // stored, which the CPU cannot forward (a stall per member, measured in bench/read_bench).
        CounterValue& out = at_location[event * location_count];
        // The time since the last read is a slice of the event's rate (a reset starts afresh).
        if (slices_at_location != nullptr && value.raw >= out.raw && value.running > out.running)
          slices_at_location[event * location_count].add(static_cast<double>(value.raw - out.raw),
                                                         static_cast<double>(value.running - out.running));
        out.raw = value.raw;
        out.enabled = value.enabled;
        out.running = value.running;
        out.lost = value.lost;
      };
      if (method == ReadMethod::Fastest && s.user_reads) {
        const std::size_t read = matrix.read_in_user_mode(g, location, store);
        if (read == groups[g].at[location].fds.size()) {
          s.user_mode_reads += read;
          continue;
        }
        // A member is not on a counter right now: read(2) below takes the whole group.
      }
      const int status = matrix.read(g, location, store);
      if (status == monitor::EventMatrix::kNotScheduled) {
        for (std::size_t event : groups[g].at[location].events) s.failed[event * location_count + location] = 1;
      } else if (status != 0 && first_error == 0) {
        first_error = status;
      }
    }
  }
  return first_error;
}

std::size_t CounterSession::event_count() const noexcept {
  return state_->matrix.event_count();
}
const Event& CounterSession::event(std::size_t index) const noexcept {
  return state_->matrix.event(index).event;
}
const OpenFallbacks& CounterSession::fallbacks(std::size_t index) const noexcept {
  return state_->matrix.event(index).fallbacks;
}
bool CounterSession::emulated() const noexcept {
  return state_->emulated && state_->emulated->answered();
}
bool CounterSession::supported(std::size_t index) const noexcept {
  return unsupported_reason(index).empty();
}
const std::string& CounterSession::unsupported_reason(std::size_t index) const noexcept {
  return state_->emulated ? state_->emulated->unsupported_reason(index) : state_->matrix.event(index).unsupported;
}
bool CounterSession::scheduling_failed(std::size_t index) const noexcept {
  const std::size_t n = state_->matrix.locations().size();
  for (std::size_t location = 0; location < n; ++location)
    if (state_->failed[index * n + location]) return true;
  return false;
}
std::size_t CounterSession::user_mode_reads() const noexcept {
  return state_->user_mode_reads;
}

const std::vector<Location>& CounterSession::locations() const noexcept {
  return state_->matrix.locations().list();
}

CounterValue CounterSession::value(std::size_t index) const noexcept {
  CounterValue total;
  const std::size_t n = state_->matrix.locations().size();
  for (std::size_t location = 0; location < n; ++location) total += state_->values[index * n + location];
  return total;
}

CounterValue CounterSession::value(std::size_t index, std::size_t location) const noexcept {
  return state_->values[index * state_->matrix.locations().size() + location];
}

CountEstimate CounterSession::estimate(std::size_t index) const noexcept {
  const std::size_t n = state_->matrix.locations().size();
  SliceStatistics slices;
  if (state_->slices.empty()) {  // no error bars asked for: the value alone, exact if never multiplexed
    const CounterValue total = value(index);
    CountEstimate estimate;
    estimate.value = total.scaled();
    if (total.counted() && total.running >= total.enabled) estimate.standard_error = 0.0;
    return estimate;
  }
  for (std::size_t location = 0; location < n; ++location) slices += state_->slices[index * n + location];
  return slices.estimate(static_cast<double>(value(index).enabled));
}

void CounterSession::calibrate(int repetitions) {
  State& s = *state_;
  if (!s.self)
    throw Error(ErrorKind::InvalidArgument,
                "calibration measures the calling thread's own measurement cost: make the session on Target::self().",
                EINVAL);
  if (repetitions < 1) throw Error(ErrorKind::InvalidArgument, "calibrate at least once.", EINVAL);
  std::vector<std::vector<std::uint64_t>> counts(event_count());
  for (int i = 0; i < repetitions; ++i) {
    reset();
    start();
    stop();
    if (int err = read(); err != 0)
      throw Error(ErrorKind::System, std::string("cannot read the counters: ") + std::strerror(err) + ".", err);
    for (std::size_t event = 0; event < event_count(); ++event) counts[event].push_back(value(event).raw);
  }
  s.overhead.assign(event_count(), 0);
  for (std::size_t event = 0; event < event_count(); ++event) {
    std::vector<std::uint64_t>& taken = counts[event];
    std::nth_element(taken.begin(), taken.begin() + static_cast<long>(taken.size() / 2), taken.end());
    s.overhead[event] = taken[taken.size() / 2];
  }
  reset();
}

bool CounterSession::calibrated() const noexcept {
  return !state_->overhead.empty();
}

std::uint64_t CounterSession::overhead(std::size_t index) const noexcept {
  return state_->overhead.empty() ? 0 : state_->overhead[index];
}

CounterValue CounterSession::value(std::size_t index, Overhead overhead_choice) const noexcept {
  CounterValue result = value(index);
  if (overhead_choice == Overhead::Subtract) {
    const std::uint64_t cost = overhead(index);
    result.raw = result.raw > cost ? result.raw - cost : 0;
  }
  return result;
}

std::vector<std::string> CounterSession::small_region_warnings(double fraction) const {
  std::vector<std::string> warnings;
  if (!calibrated()) return warnings;
  for (std::size_t i = 0; i < event_count(); ++i) {
    const std::uint64_t cost = overhead(i), count = value(i).raw;
    if (cost == 0 || static_cast<double>(cost) <= fraction * static_cast<double>(count)) continue;
    const double share = count == 0 ? 100.0 : 100.0 * static_cast<double>(cost) / static_cast<double>(count);
    char text[64];
    std::snprintf(text, sizeof text, "%.0f%%", share > 100.0 ? 100.0 : share);
    warnings.push_back("region too small: the measurement itself is " + std::string(text) + " of this count of '" +
                       event(i).name + "' (" + std::to_string(cost) + " of " + std::to_string(count) +
                       "); measure more work, or subtract it with value(i, Overhead::Subtract).");
  }
  return warnings;
}

int CounterSession::fd(std::size_t index, std::size_t location) const noexcept {
  for (const monitor::OpenGroup& group : state_->matrix.groups()) {
    if (location >= group.at.size()) continue;
    const monitor::GroupFds& at = group.at[location];
    for (std::size_t k = 0; k < at.fds.size(); ++k)
      if (at.events[k] == index) return at.fds[k].get();
  }
  return -1;
}

void CounterSession::set_filter(std::size_t index, const std::string& filter) {
  State& s = *state_;
  if (index >= s.matrix.event_count())
    throw Error(ErrorKind::InvalidArgument, "no event " + std::to_string(index) + " in the session.", EINVAL);
  for (std::size_t location = 0; location < s.matrix.locations().size(); ++location)
    if (const int at = fd(index, location); at >= 0) monitor::apply_filter(at, s.matrix.event(index).event, filter);
}

long CounterSession::event_of_fd(int fd) const noexcept {
  return state_->overflow_signals ? state_->overflow_signals->event_of_fd(fd) : -1;
}

bool CounterSession::take_overflow(int fd, std::size_t& event, Sample& sample) noexcept {
  return state_->overflow_signals && state_->overflow_signals->take(fd, event, sample);
}

int CounterSession::rearm(std::size_t index, std::uint64_t period, int overflows) noexcept {
  return state_->overflow_signals ? state_->overflow_signals->rearm(index, period, overflows) : EINVAL;
}

Reading CounterSession::reading() const {
  Reading reading;
  reading.locations = locations();
  reading.emulated = emulated();
  if (reading.emulated && state_->emulated->workload() != nullptr)
    reading.summary = emulation::emulated_summary(*state_->emulated->workload());
  reading.notes = notes();
  for (std::size_t i = 0; i < event_count(); ++i) {
    ReadingEvent& out = reading.events.emplace_back();
    out.event = event(i);
    out.fallbacks = fallbacks(i);
    out.supported = supported(i);
    out.unsupported_reason = unsupported_reason(i);
    out.scheduling_failed = scheduling_failed(i);
    out.value = value(i);
    for (std::size_t l = 0; l < reading.locations.size(); ++l) out.at.push_back(value(i, l));
    out.estimate = estimate(i);
  }
  return reading;
}

const std::vector<std::string>& CounterSession::notes() const noexcept {
  return state_->notes;
}

}  // namespace perfmon
