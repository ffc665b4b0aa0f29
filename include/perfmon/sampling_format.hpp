// SPDX-License-Identifier: Apache-2.0
// perfmon: sampling formats (perfmon2 §3.5-3.6). A format is the SampleHandler that decides what
// is kept of each sample and whether the tool is told of it; DefaultSamplingFormat is perfmon2's
// default format: samples in one fixed buffer, in a documented layout, until it is full.
//
//   perfmon::Sampler sampler(groups, target, options);
//   perfmon::DefaultSamplingFormat buffer(sampler, 64 * 1024);
//   perfmon::NotificationQueue queue(sampler, buffer);  // notification_queue.hpp
//   ... queue.next(message, -1): the buffer is full; read it with buffer.for_each(...) ...
//   queue.restart();
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "perfmon/sampler.hpp"

namespace perfmon {

// What a format asks for after a sample it took (perfmon2's pfm_ovfl_ctrl_t).
struct OverflowControl {
  bool notify = true;  // the tool hears of it: an overflow message (notify_user)
  bool mask = false;   // monitoring stops until NotificationQueue::restart() (mask_monitoring)
};

// A SampleHandler that also steers notifications. A NotificationQueue asks it after each sample
// and calls restart() on the tool's restart. A plain SampleHandler works as a format too: every
// sample notifies, nothing masks.
class SamplingFormat : public SampleHandler {
 public:
  virtual OverflowControl overflow_control(std::size_t event) = 0;
  // perfmon2's PFM_RESTART: the tool has dealt with the notification.
  virtual void restart() = 0;
};

// perfmon2's default format, layout version 1 (docs/sampling.md). The buffer starts with a
// DefaultFormatHeader; each sample is a DefaultFormatEntry followed by its body: the values of the
// other members of the sampled event's group at the overflow, in group order, as 64-bit words
// (with PERF_SAMPLE_READ; otherwise the body is empty). All of it is 8-byte aligned. The layout is
// stable: new fields come only with a new version.
inline constexpr std::uint32_t kDefaultFormatVersion = 1;

// Flags of the default format (pfm_default_smpl_arg_t::buf_flags).
enum DefaultFormatFlags : std::uint32_t {
  kDefaultFormatNoHeader = 1,  // PFM_DFL_SMPL_NO_HDR: samples are their body only, all of one size
  kDefaultFormatIpHeader = 2,  // PFM_DFL_SMPL_IIP_HDR: each sample's header is its IP (one word), all of one size
};

struct DefaultFormatHeader {  // pfm_default_smpl_hdr_t
  std::uint64_t count;        // samples in the buffer since the last restart
  std::uint64_t cur_offset;   // where the next sample goes, from the buffer's first byte
  std::uint64_t overflows;    // how many times the buffer filled (never reset)
  std::uint64_t buf_size;     // bytes of the buffer, this header included
  std::uint32_t version;      // kDefaultFormatVersion
  std::uint32_t flags;        // DefaultFormatFlags
};

struct DefaultFormatEntry {  // pfm_default_smpl_entry_t
  std::int32_t pid;          // the process and thread that ran at the overflow
  std::int32_t tid;
  std::uint16_t event;           // the event that overflowed: an index into the sampler's events (ovfl_pmd)
  std::uint16_t set;             // the event set active at the overflow (0: a session has one set)
  std::uint16_t cpu;             // the CPU it ran on
  std::uint16_t body_words;      // 64-bit words of body after this entry
  std::uint64_t last_reset_val;  // the period that ran out (random ones included)
  std::uint64_t tstamp;          // the sample's time, ns of the perf clock
  std::uint64_t ip;              // the instruction pointer at the overflow
};
static_assert(sizeof(DefaultFormatHeader) == 40 && sizeof(DefaultFormatEntry) == 40);

// The default format's writer over memory its owner provides (8-byte aligned): the header, the
// samples in the layout above, perfmon2's post check, the restart. DefaultSamplingFormat writes
// with it; so does libperfmon2, into the buffer a program maps (perfmon_default_buffer_* in C).
// After construction it allocates nothing and throws nothing: async-signal-safe.
class DefaultFormatBuffer {
 public:
  // Lays the header out in `memory` (its whole words). Throws perfmon::Error for unknown or
  // conflicting flags, a body-only format without a body, or memory that cannot hold the header
  // and one sample of `largest_body_words`.
  DefaultFormatBuffer(std::span<std::byte> memory, std::uint32_t flags, std::size_t largest_body_words);

  enum class Append { kWritten, kFilled, kDropped };  // kFilled: written, and the buffer is full now
  // Writes one sample (the entry's body_words is set from `body`), unless the buffer is full or,
  // with a short header, the body's size differs from the first sample's.
  Append append(const DefaultFormatEntry& entry, std::span<const std::uint64_t> body) noexcept;
  // Empties the buffer: count 0, cur_offset after the header (samples already there stay).
  void restart() noexcept;

  bool full() const noexcept { return full_; }
  std::uint64_t dropped() const noexcept { return dropped_; }
  std::span<const std::byte> bytes() const noexcept { return memory_; }
  const DefaultFormatHeader& header() const noexcept { return *header_; }
  // Each sample, oldest first (see DefaultSamplingFormat::for_each).
  void for_each(const std::function<void(const DefaultFormatEntry&, std::span<const std::uint64_t> body)>& visit) const;

 private:
  std::span<std::byte> memory_;
  DefaultFormatHeader* header_;
  std::size_t head_bytes_, largest_sample_;
  std::size_t fixed_body_words_ = 0;
  bool full_ = false;
  std::uint64_t dropped_ = 0;
};

class DefaultSamplingFormat final : public SamplingFormat {
 public:
  // A buffer of `buffer_bytes` (rounded down to whole words) for the samples of `sampler`, which
  // must outlive the format. Throws perfmon::Error when it cannot hold the header and one sample.
  DefaultSamplingFormat(const Sampler& sampler, std::size_t buffer_bytes, std::uint32_t flags = 0);
  ~DefaultSamplingFormat() override;

  // Writes the sample when it fits. After each write, when the room left is less than the
  // largest sample (perfmon2's post check), the buffer is full: `overflows` grows, and the
  // sample that filled it notifies and masks. A full buffer takes nothing until restart().
  void sample(std::size_t event, const Sample& sample) override;
  OverflowControl overflow_control(std::size_t event) override;
  // Empties the buffer (count 0, cur_offset after the header); samples already there are not cleared.
  void restart() override;

  bool full() const noexcept;
  // Samples that came while the buffer was full, not written.
  std::uint64_t dropped() const noexcept;
  // The buffer as laid out above: what a tool may copy, map to a file or hand to another process.
  std::span<const std::byte> buffer() const noexcept;
  const DefaultFormatHeader& header() const noexcept;
  // Each sample in the buffer, oldest first. With kDefaultFormatNoHeader or kDefaultFormatIpHeader
  // every sample has the first one's body size (samples of another size are dropped), and the
  // entry given holds only body_words, and ip with kDefaultFormatIpHeader.
  void for_each(const std::function<void(const DefaultFormatEntry&, std::span<const std::uint64_t> body)>& visit) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
