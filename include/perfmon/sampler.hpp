// SPDX-License-Identifier: Apache-2.0
// perfmon: a sampler — event groups opened on a target with a sampling period, their samples and
// the kernel's other records read from one ring buffer per location.
//
//   perfmon::EventCatalog catalog;
//   perfmon::SamplingOptions options;
//   options.period = 1;  // every event
//   perfmon::Sampler sampler(catalog.parse("syscalls:sys_enter_getppid"), perfmon::Target::self(), options);
//   struct Count : perfmon::SampleHandler {
//     std::size_t samples = 0;
//     void sample(std::size_t, const perfmon::Sample&) override { ++samples; }
//   } count;
//   sampler.start();
//   work();
//   sampler.stop();
//   sampler.drain(count);
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/event.hpp"
#include "perfmon/sample.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

// What a sample carries unless told otherwise: where (IP), who (pid, tid), when and on which CPU.
// PERF_SAMPLE_PERIOD is added in frequency mode, where the period varies, as perf adds it. With a
// fixed period it is left out: the kernel then samples a software event, tracepoint or breakpoint at
// every occurrence whatever the period, recording 1 as each sample's period (docs/sampling.md).
inline constexpr std::uint64_t kDefaultSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;

struct SamplingOptions {
  // A sample every `period` events, or about `frequency` samples a second (the kernel adjusts the
  // period as it goes). One of them, unless every event names its own (period= or freq= terms).
  std::uint64_t period = 0;
  std::uint64_t frequency = 0;
  // PERF_SAMPLE_* fields of each sample. PERF_SAMPLE_IDENTIFIER is always added: a ring is shared by
  // every event of its location, and each record must say whose it is. With PERF_SAMPLE_READ each
  // sample carries the values of its whole group at that moment (group_values()); it needs inherit
  // off.
  std::uint64_t sample_type = kDefaultSampleType;
  // Data pages of each location's ring buffer, a power of two (64: 256 KiB with 4 KiB pages).
  std::size_t ring_pages = 64;
  // wait() (and a NotificationQueue) wakes after this many samples of an event; 0: when a ring is
  // half full. 1 hears of every overflow at once, at the cost of a wake-up each.
  std::uint32_t wakeup_events = 0;
  // Copy this many bytes of the user stack, and the registers unwinding starts from, into each
  // sample (perf record --call-graph dwarf): its user call stack is unwound later from them, by the
  // files' CFI (Profile::unwind_user_stacks). A multiple of 8, at most 65528; perf's default is
  // 8192, which costs about 8 KiB a sample. The kernel part of the call stack comes as a callchain.
  // 0: none.
  std::uint32_t user_stack_bytes = 0;
  // Record the last branches taken with each sample (Sample::branches): PERF_SAMPLE_BRANCH_* bits,
  // such as PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER (perf record -b, -j). Only a PMU with
  // a branch record has them (Intel LBR, AMD BRS, Arm BRBE); elsewhere opening fails, with the
  // reason.
  std::uint64_t branch_sample_type = 0;
  // Sample threads and processes the target creates after the events are opened.
  bool inherit = true;
  // With inherit: each thread the target creates writes its own counts when it exits, a
  // PERF_RECORD_READ record (attr.inherit_stat; perf record -s).
  bool thread_counts = false;
  // Also record the target's COMM, MMAP2, FORK and EXIT records (on the first event, as perf
  // record does), so that a report can name the programs and the code of the samples.
  bool task_records = false;

  // Overflow notification by signal (Solaris cpc's CPC_BIND_EMT_OVF, perfmon2's notifications), for
  // Target::self() without inherit: each overflow raises `overflow_signal` in the thread that made
  // the sampler, with si_fd naming the event (event_of_fd()) and si_code POLL_IN. 0: no signal.
  int overflow_signal = 0;
  // Each event stops by itself after this many overflows (PERF_EVENT_IOC_REFRESH; the last signal
  // has si_code POLL_HUP) until rearm(). With period N, the first notification comes after exactly
  // N events: cpc's preset counter. 0: never stops. Needs inherit off (the kernel refuses it there).
  int stop_after = 0;

  // Randomized periods (perfmon2 §3.4.2, random_period.hpp): after each overflow the period is
  // `period` plus a random `random_bits`-bit amount, the series fixed by `random_seed`. The first
  // period is `period`. Needs stop_after = 1: rearm() sets each next period before the event counts
  // again, so every period is exact. (A period changed while the event counts restarts its count, so
  // no other way is; the sampler refuses them.) 0 bits: a fixed period.
  unsigned random_bits = 0;
  std::uint32_t random_seed = 1;
};

// Receives what drain() takes from the rings. A handler is the sampler's pluggable format: it
// decides what to keep of each sample (a histogram of IPs, the first N samples, a file).
class SampleHandler {
 public:
  virtual ~SampleHandler() = default;
  // A sample of event `event` (an index into the sampler's events). The sample's spans are valid
  // until this returns. Its period is the one that just ran out, whether or not the sample carries
  // PERF_SAMPLE_PERIOD (perfmon2's last_reset_val).
  virtual void sample(std::size_t event, const Sample& sample) = 0;
  // Every other record the kernel wrote (PERF_RECORD_COMM, MMAP2, FORK, EXIT, LOST, THROTTLE, ...),
  // as include/uapi/linux/perf_event.h lays it out; valid until this returns.
  virtual void record(const perf_event_header& record) { (void)record; }
  // A record (not a sample) from before the share of a perf.data file this handler reads, where a
  // file is read in shares (PerfDataReader::read_in_shares): what it says of the processes
  // (commands, mappings) holds for the samples that follow.
  virtual void context(const perf_event_header& record) { (void)record; }
};

// One member's value in a sample's group reading.
struct SampledValue {
  std::size_t event = 0;  // an index into the sampler's events
  CounterValue value;
};

// What a recording lost, as the kernel counts it. PERF_RECORD_LOST counts records of any kind that
// a full ring could not take (samples and side-band records alike: a COMM, an EXIT); the samples
// themselves are counted by each event (read with PERF_FORMAT_LOST, Linux 6.0), which perf record
// and perfmon write into the file as PERF_RECORD_LOST_SAMPLES at its end (a PMU's own drops come as
// such records too).
struct RecordLoss {
  std::uint64_t samples = 0;   // PERF_RECORD_LOST_SAMPLES, or the events' own count
  std::uint64_t records = 0;   // PERF_RECORD_LOST
  bool samples_known = false;  // `samples` was counted (a LOST_SAMPLES record, or the events' count)
  // Adds what a PERF_RECORD_LOST or PERF_RECORD_LOST_SAMPLES record says; other records add nothing.
  void add(const perf_event_header& record) noexcept;
  RecordLoss& operator+=(const RecordLoss& other) noexcept;
  // "138 samples lost", "139 records lost (samples and others; the kernel does not say how many
  // samples)", or "" where nothing was lost. With records beyond the samples: "138 samples lost,
  // 139 records in all".
  std::string sentence() const;
};

struct SamplerStats {
  std::uint64_t samples = 0;        // handed to SampleHandler::sample
  std::uint64_t records = 0;        // other records handed to SampleHandler::record
  std::uint64_t lost_records = 0;   // records of any kind the kernel dropped because a ring was full (PERF_RECORD_LOST)
  std::uint64_t undecodable = 0;    // samples too short for their fields, or of no event of this sampler
  std::uint64_t corrupt_rings = 0;  // rings that held an impossible record; they are read no further
};

class Sampler {
 public:
  // Opens every event of every group on every location of the target, disabled, with the sampling
  // period, and maps one ring per location. Throws perfmon::Error.
  Sampler(const std::vector<EventGroup>& groups, const Target& target, SamplingOptions options);
  ~Sampler();
  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;

  // Enable and disable all groups (with stop_after, start() arms each event for that many
  // overflows). Throw perfmon::Error.
  void start();
  void stop();

  // The event whose fd an overflow signal names (siginfo_t::si_fd), or -1. Async-signal-safe.
  long event_of_fd(int fd) const noexcept;
  // Gives the event of `fd` a new period and arms it for `overflows` more (stop_after's count
  // again when 0), as a cpc overflow handler restarts its counters; the next notification comes
  // after exactly `period` events (0: the sampler's next period, random with random_bits). Returns
  // 0 or an errno. Async-signal-safe (two ioctls).
  int rearm(int fd, std::uint64_t period = 0, int overflows = 0) noexcept;
  // The period last set for the event at fd (perfmon2's last_reset_val); 0 for an unknown fd.
  std::uint64_t last_period(int fd) const noexcept;

  // Every event fd, for a poll(2) or epoll of the caller's: each says POLLIN when wait() would
  // wake for its ring, POLLHUP once its thread has gone.
  std::vector<int> event_fds() const;

  // Waits until a ring is half full (or wakeup_events samples came), every target has gone, or `timeout_ms` passed (-1:
  // no limit). Returns false on timeout. Throws perfmon::Error when poll(2) fails.
  bool wait(int timeout_ms);
  // True once every location's events are gone (their threads exited): what the rings hold is all.
  bool finished() const noexcept;

  // Takes every record the rings hold now, in order within each ring, hands each to the handler,
  // and gives the space back to the kernel. Returns how many records it handed out. Allocates
  // nothing; throws only what the handler throws.
  std::size_t drain(SampleHandler& handler);
  // Called by a handler during drain(): drain() returns after the record being handled, and the
  // records after it stay in the rings for the next drain() (a format that is full, for example).
  void interrupt_drain() noexcept;
  const SamplerStats& stats() const noexcept;
  // What was lost: the records PERF_RECORD_LOST reported, and the samples by the events' own count
  // (PERF_FORMAT_LOST: a ring still full when its events stopped never gets a PERF_RECORD_LOST).
  // Call after stop() and the last drain(). The samples are unknown (samples_known false) where the
  // kernel does not count them (before Linux 6.0) or the samples read their group.
  RecordLoss lost() const;
  // The group values a sample carries (PERF_SAMPLE_READ), member by member into `out`. Returns how
  // many were written: 0 without PERF_SAMPLE_READ, or when `out` is too small or the words are not
  // a whole group. Allocates nothing.
  std::size_t group_values(const Sample& sample, std::span<SampledValue> out) const noexcept;

  std::size_t event_count() const noexcept;
  // The attr an event was opened with (the catalogue's, completed with the sampler's fields), and
  // the kernel's ids of its fds: what a perf.data file describes it by.
  perf_event_attr opened_attr(std::size_t index) const noexcept;
  std::vector<std::uint64_t> ids(std::size_t index) const;
  // The event as opened: its name as written, its attr as the kernel took it.
  const Event& event(std::size_t index) const noexcept;
  const std::vector<Location>& locations() const noexcept;
  // Things the sampler did on the user's behalf (for example a fallback to user space).
  const std::vector<std::string>& notes() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
