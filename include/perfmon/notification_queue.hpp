// SPDX-License-Identifier: Apache-2.0
// perfmon: perfmon2's message queue (§3.3) over a sampler. A tool reads overflow messages (which
// events overflowed) and one end message (the monitored threads have all gone), one at a time, in
// order, or polls fd() among its own descriptors. The queue drains the sampler into a format as
// the tool waits: no thread, no signal.
//
//   perfmon::Sampler sampler(groups, perfmon::Target::workload(workload), options);
//   perfmon::DefaultSamplingFormat buffer(sampler, 1 << 20);
//   perfmon::NotificationQueue queue(sampler, buffer);
//   workload.start();
//   perfmon::Notification message;
//   while (queue.next(message, -1) && message.type == perfmon::Notification::kOverflow) {
//     buffer.for_each(...);  // full: read it
//     queue.restart();
//   }
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "perfmon/sampler.hpp"

namespace perfmon {

// Events a message can name: perfmon2's PFM_MAX_PMD_BITVECTOR words of 64 bits.
inline constexpr std::size_t kNotifiedEvents = 256;

struct Notification {                            // pfm_msg_t
  static constexpr std::uint32_t kOverflow = 1;  // PFM_MSG_OVFL
  static constexpr std::uint32_t kEnd = 2;       // PFM_MSG_END: every monitored thread has exited
  std::uint32_t type = 0;
  std::uint16_t active_set = 0;  // the event set active at the overflow (0: a session has one set)
  std::uint64_t overflowed[kNotifiedEvents / 64] = {};  // bit e: the sampler's event e overflowed

  bool overflowed_event(std::size_t event) const noexcept {
    return event < kNotifiedEvents && (overflowed[event / 64] >> (event % 64) & 1);
  }
};

struct NotificationOptions {
  // Events whose overflows bring no message (perfmon2: no PFM_REGFL_OVFL_NOTIFY). A format's mask
  // still applies to them: a default format that fills on a silent event saturates quietly.
  std::bitset<kNotifiedEvents> silent;
  // Messages held; overflow messages beyond are dropped and counted (lost()). The end message is
  // always kept.
  std::size_t capacity = 1024;
};

class NotificationQueue {
 public:
  // The queue of `sampler`, whose samples and records it hands to `format`. Both must outlive it.
  // A SamplingFormat decides which samples notify and when monitoring is masked; any other handler
  // notifies every sample. Set SamplingOptions::wakeup_events to 1 to hear of each overflow as it
  // happens rather than when a ring is half full. Throws perfmon::Error.
  NotificationQueue(Sampler& sampler, SampleHandler& format, NotificationOptions options = {});
  ~NotificationQueue();
  NotificationQueue(const NotificationQueue&) = delete;
  NotificationQueue& operator=(const NotificationQueue&) = delete;

  // The oldest message, waiting up to `timeout_ms` (-1: no limit) while the sampler's rings are
  // drained into the format. False on timeout, and once the end message has been read. Throws
  // perfmon::Error when waiting fails, and what the format throws.
  bool next(Notification& out, int timeout_ms);
  // perfmon2's PFM_RESTART: the format's restart(), and monitoring resumes if it was masked.
  // Masking stops the events at the drain that sees the masking sample; the samples the kernel
  // wrote after it stay in the rings and reach the format after the restart. A masked queue whose
  // threads have gone gives the end message once the messages before it are read: samples still
  // in the rings then are not taken.
  void restart();

  // An epoll descriptor: readable when next(out, 0) may have a message (the sampler's rings woke,
  // a thread exited, or messages are pending). For the caller's own poll, select or epoll.
  int fd() const noexcept;
  std::size_t pending() const noexcept;
  bool masked() const noexcept;
  std::uint64_t lost() const noexcept;  // overflow messages dropped on a full queue

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
