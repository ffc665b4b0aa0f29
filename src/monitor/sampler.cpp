// SPDX-License-Identifier: Apache-2.0
#include "perfmon/sampler.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#include "arch/user_registers.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/read_format.hpp"
#include "kernel/records.hpp"
#include "kernel/sample_layout.hpp"
#include "monitor/event_matrix.hpp"
#include "perfmon/error.hpp"
#include "perfmon/random_period.hpp"

namespace perfmon {

namespace {

monitor::OpenSettings settings_for(const Target& target, const SamplingOptions& options) {
  // A sample's reading of its group: every member, named by its id, with the times for scaling.
  // Otherwise each fd's read tells the samples the kernel dropped (Linux 6.0): those of a ring that
  // was still full when the event went away have no PERF_RECORD_LOST to say so. A sampler that
  // samples nothing is an error, not a row: no unsupported events.
  monitor::OpenSettings settings = monitor::open_settings(
      target, options.inherit, false,
      options.sample_type & PERF_SAMPLE_READ ? monitor::ReadShape::Group : monitor::ReadShape::Lost);
  settings.sample_type = options.sample_type;
  settings.sample_period = options.period;
  settings.sample_frequency = options.frequency;
  settings.wakeup_events = options.wakeup_events;
  settings.user_stack_bytes = options.user_stack_bytes;
  settings.branch_sample_type = options.branch_sample_type;
  settings.threads_per_cpu = options.inherit;  // the kernel maps an inherited event only on a CPU
  settings.inherit_stat = options.thread_counts;
  // A thread's counts at its exit name their event and carry its times, as perf record -s has them.
  if (options.thread_counts)
    settings.read_format |= PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return settings;
}

void check_options(const std::vector<EventGroup>& groups, const Target& target, const SamplingOptions& options) {
  if (options.overflow_signal != 0 && target.kind != Target::Kind::Self)
    throw Error(ErrorKind::InvalidArgument,
                "overflow signals go to the thread that samples itself (Target::self()); sample other targets "
                "through their ring buffers.",
                EINVAL);
  if (options.ring_pages == 0 || !std::has_single_bit(options.ring_pages))
    throw Error(ErrorKind::InvalidArgument,
                "a ring buffer is a power of two pages, not " + std::to_string(options.ring_pages) + ".", EINVAL);
  if (options.period != 0 && options.frequency != 0)
    throw Error(ErrorKind::InvalidArgument, "give a sampling period or a frequency, not both.", EINVAL);
  if (options.stop_after < 0)
    throw Error(ErrorKind::InvalidArgument, "stop_after counts overflows: 0 or more.", EINVAL);
  if (options.thread_counts && !options.inherit)
    throw Error(ErrorKind::InvalidArgument,
                "each thread's counts at its exit come from the threads the target creates: sample with inherit.",
                EINVAL);
  if ((options.overflow_signal != 0 || options.stop_after != 0) && options.inherit)
    throw Error(ErrorKind::InvalidArgument,
                "overflow signals and stop_after need inherit off: the kernel cannot stop an inherited event "
                "after N overflows, nor signal the thread of a child.",
                EINVAL);
  if (options.overflow_signal != 0 && (options.overflow_signal < 1 || options.overflow_signal > SIGRTMAX))
    throw Error(ErrorKind::InvalidArgument, "no signal " + std::to_string(options.overflow_signal) + ".", EINVAL);
  if ((options.sample_type & PERF_SAMPLE_READ) && options.inherit)
    throw Error(ErrorKind::InvalidArgument,
                "PERF_SAMPLE_READ needs inherit off: with inherit, kernels before 6.12 refuse it and later ones read "
                "only the sampled thread's share of the group.",
                EINVAL);
  if (options.user_stack_bytes % 8 != 0 || options.user_stack_bytes > 65528)
    throw Error(ErrorKind::InvalidArgument,
                "a user stack copy is a multiple of 8 bytes, at most 65528, not " +
                    std::to_string(options.user_stack_bytes) + ".",
                EINVAL);
  if (options.user_stack_bytes != 0 && arch::kUnwindingRegisters == 0)
    throw Error(ErrorKind::Unsupported, "perfmon cannot unwind user stacks on this architecture.", ENOTSUP);
  if (options.random_bits != 0 && options.frequency != 0)
    throw Error(ErrorKind::InvalidArgument,
                "random periods vary a fixed period: give a period, not a frequency, with random_bits.", EINVAL);
  // A period changed while the event counts restarts its count (a software event or tracepoint then
  // overflows at its next occurrence): only a period set before the event counts again is exact.
  if (options.random_bits != 0 && options.stop_after != 1)
    throw Error(ErrorKind::InvalidArgument,
                "random periods are exact only when each is set before the event counts again: arm one overflow "
                "at a time (stop_after = 1) and rearm() in the overflow handler.",
                EINVAL);
  if (options.period != 0 || options.frequency != 0) return;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events)
      if (event.attr.sample_period == 0)  // a union with sample_freq: 0 when the event names neither
        throw Error(ErrorKind::InvalidArgument,
                    "'" + event.name +
                        "' has no sampling period: give one (or a frequency) for all events, or name it "
                        "in the event with period= or freq=.",
                    EINVAL);
}

// The groups as sampled: with task_records, the first event also asks for the target's side-band records.
std::vector<EventGroup> with_side_band(std::vector<EventGroup> groups, const SamplingOptions& options) {
  if (options.task_records && !groups.empty() && !groups.front().events.empty()) {
    perf_event_attr& attr = groups.front().events.front().attr;
    attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
    // Unwinders read CFI tables (.eh_frame_hdr) through the read-only mappings too, as perf records them.
    if (options.user_stack_bytes != 0) attr.mmap_data = 1;
  }
  return groups;
}

}  // namespace

struct Sampler::State {
  State(const std::vector<EventGroup>& groups, const Target& target, const SamplingOptions& options)
      : settings(settings_for(target, options)), matrix(with_side_band(groups, options), target, settings) {}

  monitor::OpenSettings settings;
  monitor::EventMatrix matrix;
  std::vector<perf_event_attr> attrs;         // by event, as opened: the catalogue's completed
  std::vector<kernel::SampleLayout> layouts;  // by event
  struct Opened {
    std::uint64_t id;  // the kernel's (PERF_EVENT_IOC_ID)
    std::size_t event;
    int fd;
    std::uint64_t period;  // the last one set
    auto operator<=>(const Opened&) const = default;
  };
  std::vector<Opened> opened;               // every fd, sorted by id
  std::vector<RandomPeriod> random;         // by event, with random_bits
  std::vector<kernel::RingReader> readers;  // by location with a ring
  std::vector<pollfd> polled;               // every event fd; -1 once it hung up
  std::size_t open_fds = 0;                 // not hung up yet
  int stop_after = 0;
  bool drain_interrupted = false;
  SamplerStats stats;
  std::vector<std::string> notes;

  // The fd a record's id names, or nullptr.
  Opened* find_id(std::uint64_t id) noexcept {
    auto at =
        std::lower_bound(opened.begin(), opened.end(), id, [](const Opened& o, std::uint64_t x) { return o.id < x; });
    return at != opened.end() && at->id == id ? &*at : nullptr;
  }
  Opened* find_fd(int fd) noexcept {
    for (Opened& o : opened)
      if (o.fd == fd) return &o;
    return nullptr;
  }
  // The period to set after an overflow of `o`: the next random one, or the event's own.
  std::uint64_t next_period(const Opened& o) noexcept {
    return random.empty() ? fixed_period(o.event) : random[o.event].next();
  }
  // An event's period as opened; 0 for one sampled at a frequency (sample_freq shares the field).
  std::uint64_t fixed_period(std::size_t event) const noexcept {
    return attrs[event].freq ? 0 : attrs[event].sample_period;
  }
};

Sampler::Sampler(const std::vector<EventGroup>& groups, const Target& target, SamplingOptions options) {
  check_options(groups, target, options);
  state_ = std::make_unique<State>(groups, target, options);
  State& s = *state_;
  s.notes = s.matrix.notes();
  if (int cause = s.matrix.map_rings(options.ring_pages); cause != 0) {
    throw Error(ErrorKind::Limit,
                std::string("cannot map the sampler's ring buffers: ") + std::strerror(cause) +
                    (cause == EPERM || cause == ENOMEM
                         ? "; ask for fewer pages, or raise kernel.perf_event_mlock_kb or 'ulimit -l'."
                         : "."),
                cause);
  }
  // Decoded by the attr as opened: the catalogue's with the sampler's fields and period, a group's
  // members enabled with their leader (as a file's attrs say to perf report --group).
  std::vector<bool> member(s.matrix.event_count(), false);
  for (const monitor::OpenGroup& group : s.matrix.groups())
    for (std::size_t m = 1; m < group.members.size(); ++m) member[group.members[m]] = true;
  for (std::size_t e = 0; e < s.matrix.event_count(); ++e) {
    const perf_event_attr& attr =
        s.attrs.emplace_back(monitor::complete_attr(s.matrix.event(e).event, !member[e], s.settings));
    s.layouts.emplace_back(attr);
    if (options.random_bits != 0 && attr.freq)
      throw Error(ErrorKind::InvalidArgument,
                  "'" + s.matrix.event(e).event.name + "' samples at a frequency: random periods vary a fixed period.",
                  EINVAL);
    if (options.random_bits != 0) s.random.emplace_back(attr.sample_period, options.random_bits, options.random_seed);
  }
  for (const monitor::OpenGroup& group : s.matrix.groups())
    for (const monitor::GroupFds& at : group.at)
      for (std::size_t k = 0; k < at.ids.size(); ++k)
        s.opened.push_back({at.ids[k], at.events[k], at.fds[k].get(), s.fixed_period(at.events[k])});
  std::sort(s.opened.begin(), s.opened.end());
  for (std::size_t ring = 0; ring < s.matrix.ring_count(); ++ring)
    if (s.matrix.ring_fd(ring) >= 0) s.readers.push_back(s.matrix.ring(ring).ring());
  // Every fd is polled, as perf record polls them: each says POLLIN for its shared ring, and
  // POLLHUP once its thread (and the children it passed the event to) have exited.
  for (const monitor::OpenGroup& group : s.matrix.groups())
    for (const monitor::GroupFds& at : group.at)
      for (const kernel::FileDescriptor& fd : at.fds) s.polled.push_back({fd.get(), POLLIN, 0});
  s.open_fds = s.polled.size();
  s.stop_after = options.stop_after;
  if (options.overflow_signal != 0) {
    const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
    for (const pollfd& polled : s.polled)
      if (int err = kernel::route_overflow_signal(polled.fd, self, options.overflow_signal); err != 0)
        throw Error(ErrorKind::System,
                    std::string("cannot route overflow signals to this thread: ") + std::strerror(-err) + ".", -err);
  }
}

Sampler::~Sampler() = default;
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;

void Sampler::start() {
  State& s = *state_;
  if (s.stop_after == 0) {
    monitor::EventMatrix::check_control(s.matrix.enable(), "start", "the sampler");
    return;
  }
  // Each event is armed on its own: a refresh count belongs to one event, not to its group.
  for (const pollfd& polled : s.polled)
    monitor::EventMatrix::check_control(-kernel::refresh(polled.fd, s.stop_after), "start", "the sampler");
}

void Sampler::stop() {
  monitor::EventMatrix::check_control(state_->matrix.disable(), "stop", "the sampler");
}

long Sampler::event_of_fd(int fd) const noexcept {
  const State::Opened* o = state_->find_fd(fd);
  return o == nullptr ? -1 : static_cast<long>(o->event);
}

int Sampler::rearm(int fd, std::uint64_t period, int overflows) noexcept {
  State::Opened* o = state_->find_fd(fd);
  if (o == nullptr) return EBADF;
  const std::uint64_t next = period != 0 ? period : state_->next_period(*o);
  if (int err = kernel::set_period(fd, next); err != 0) return -err;
  o->period = next;
  const int count = overflows > 0 ? overflows : state_->stop_after;
  return -(count > 0 ? kernel::refresh(fd, count) : kernel::enable(fd, false));
}

std::uint64_t Sampler::last_period(int fd) const noexcept {
  const State::Opened* o = state_->find_fd(fd);
  return o == nullptr ? 0 : o->period;
}

void RecordLoss::add(const perf_event_header& record) noexcept {
  if (record.type == PERF_RECORD_LOST) {
    if (const auto* dropped = kernel::record_as<kernel::LostRecord>(&record)) records += dropped->lost;
  } else if (record.type == PERF_RECORD_LOST_SAMPLES) {
    if (const auto* dropped = kernel::record_as<kernel::LostSamplesRecord>(&record)) samples += dropped->lost;
    samples_known = true;
  }
}

RecordLoss& RecordLoss::operator+=(const RecordLoss& other) noexcept {
  samples += other.samples;
  records += other.records;
  samples_known = samples_known || other.samples_known;
  return *this;
}

std::string RecordLoss::sentence() const {
  if (samples_known) {
    if (samples == 0 && records == 0) return "";
    std::string said = std::to_string(samples) + (samples == 1 ? " sample" : " samples") + " lost";
    if (records > samples) said += ", " + std::to_string(records) + " records in all";
    return said;
  }
  if (records == 0) return "";
  return std::to_string(records) + (records == 1 ? " record" : " records") +
         " lost (samples and others; the kernel does not say how many samples)";
}

RecordLoss Sampler::lost() const {
  const State& s = *state_;
  RecordLoss loss;
  loss.records = s.stats.lost_records;
  const std::uint64_t format = s.settings.read_format;
  if (!(format & PERF_FORMAT_LOST) || (format & PERF_FORMAT_GROUP)) return loss;
  // value, then the times and the id where asked for, then lost: the last word.
  const std::size_t count =
      2 + std::popcount(format & (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID));
  for (const State::Opened& o : s.opened) {
    std::uint64_t words[5] = {};
    const ssize_t bytes = static_cast<ssize_t>(count * sizeof words[0]);
    if (::read(o.fd, words, static_cast<std::size_t>(bytes)) != bytes) return loss;
    loss.samples += words[count - 1];
  }
  loss.samples_known = true;
  return loss;
}

std::vector<int> Sampler::event_fds() const {
  std::vector<int> fds;
  for (const State::Opened& o : state_->opened) fds.push_back(o.fd);
  return fds;
}

bool Sampler::wait(int timeout_ms) {
  State& s = *state_;
  if (finished()) return true;
  for (;;) {
    const int ready = ::poll(s.polled.data(), s.polled.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0)
      throw Error(ErrorKind::System, std::string("cannot wait for samples: ") + std::strerror(errno) + ".", errno);
    for (pollfd& polled : s.polled) {
      if (polled.fd >= 0 && (polled.revents & (POLLHUP | POLLERR))) {
        polled.fd = -1;  // nothing more will come from it: poll ignores a negative fd
        --s.open_fds;
      }
    }
    return ready > 0;
  }
}

bool Sampler::finished() const noexcept {
  return state_->open_fds == 0;
}

std::size_t Sampler::drain(SampleHandler& handler) {
  State& s = *state_;
  std::size_t handed = 0;
  Sample sample;
  s.drain_interrupted = false;
  for (kernel::RingReader& reader : s.readers) {
    if (reader.corrupt()) continue;
    reader.begin();
    while (!s.drain_interrupted) {
      const perf_event_header* record = reader.next();
      if (record == nullptr) break;
      ++handed;
      if (record->type == PERF_RECORD_SAMPLE) {
        State::Opened* o = s.find_id(kernel::record_identifier(*record));
        if (o == nullptr || !s.layouts[o->event].decode(*record, sample)) {
          ++s.stats.undecodable;
          continue;
        }
        ++s.stats.samples;
        if (!(s.attrs[o->event].sample_type & PERF_SAMPLE_PERIOD)) sample.period = o->period;
        handler.sample(o->event, sample);
        continue;
      }
      if (record->type == PERF_RECORD_LOST)
        if (const auto* lost = kernel::record_as<kernel::LostRecord>(record)) s.stats.lost_records += lost->lost;
      ++s.stats.records;
      handler.record(*record);
    }
    if (reader.corrupt()) ++s.stats.corrupt_rings;
    reader.consume();  // what was handed out; an interrupted drain leaves the rest for the next
    if (s.drain_interrupted) break;
  }
  return handed;
}

void Sampler::interrupt_drain() noexcept {
  state_->drain_interrupted = true;
}

perf_event_attr Sampler::opened_attr(std::size_t index) const noexcept {
  return state_->attrs[index];
}

std::vector<std::uint64_t> Sampler::ids(std::size_t index) const {
  std::vector<std::uint64_t> found;
  for (const State::Opened& o : state_->opened)
    if (o.event == index) found.push_back(o.id);
  return found;
}

const SamplerStats& Sampler::stats() const noexcept {
  return state_->stats;
}

std::size_t Sampler::group_values(const Sample& sample, std::span<SampledValue> out) const noexcept {
  State& s = *state_;
  if (!(s.settings.read_format & PERF_FORMAT_GROUP)) return 0;
  const kernel::GroupReadLayout layout(s.settings.read_format);
  const long members = layout.members(sample.read.data(), sample.read.size());
  if (members < 0 || static_cast<std::size_t>(members) > out.size()) return 0;
  const std::uint64_t enabled = layout.time_enabled(sample.read.data()),
                      running = layout.time_running(sample.read.data());
  std::size_t written = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(members); ++k) {
    const State::Opened* o = s.find_id(layout.id(sample.read.data(), k));
    if (o == nullptr) continue;
    out[written++] = {o->event, CounterValue{layout.value(sample.read.data(), k), enabled, running, 0}};
  }
  return written;
}

std::size_t Sampler::event_count() const noexcept {
  return state_->matrix.event_count();
}
const Event& Sampler::event(std::size_t index) const noexcept {
  return state_->matrix.event(index).event;
}
const std::vector<Location>& Sampler::locations() const noexcept {
  return state_->matrix.locations().list();
}
const std::vector<std::string>& Sampler::notes() const noexcept {
  return state_->notes;
}

}  // namespace perfmon
