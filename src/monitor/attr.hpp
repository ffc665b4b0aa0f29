// SPDX-License-Identifier: Apache-2.0
// The one place where the catalogue's attr (what an event is: type, config, rings, precision) is
// completed with what a measurement decides (how it is opened and read).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

#include "perfmon/event.hpp"
#include "perfmon/target.hpp"

namespace perfmon::monitor {

struct OpenSettings {
  std::uint64_t read_format = 0;
  bool inherit = false;          // count threads and processes the target creates later
  bool inherit_stat = false;     // and each writes its counts when it exits (PERF_RECORD_READ)
  bool enable_on_exec = false;   // group leaders start counting at the workload's exec
  bool user_access = false;      // core-PMU events allow user-mode counter reads
  bool skip_unsupported = true;  // an event this machine cannot count is kept, as unsupported
  // The events are kept and opened nowhere: something else counts them (the emulated CPU).
  bool counted_elsewhere = false;
  // Sampling (sample_type 0: counting only). PERF_SAMPLE_IDENTIFIER is always added and
  // sample_id_all set, so that every record, in a ring shared by several events, names its event.
  std::uint64_t sample_type = 0;
  std::uint64_t sample_period = 0;       // a sample every N events, unless the event has its own period= or freq=
  std::uint64_t sample_frequency = 0;    // or about N samples a second (the kernel adjusts the period)
  std::uint32_t wakeup_events = 0;       // wake pollers after this many samples; 0: at the ring's watermark
  std::uint32_t user_stack_bytes = 0;    // copy the user stack and registers for unwinding (--call-graph dwarf)
  std::uint64_t branch_sample_type = 0;  // PERF_SAMPLE_BRANCH_*: the last branches with each sample
  // Open a thread target once per online CPU (what inherited sampling events need to be mapped).
  bool threads_per_cpu = false;
};

// The settings every measurement of `target` starts from, in this one place: whether it follows
// the threads and processes the target creates, whether leaders start at the workload's exec, what
// becomes of an event this machine cannot count, and the read format — counting reads each group
// whole, its members named by their ids, with the times that scale them, and (with `lost`, where
// the kernel has it) the samples it dropped.
enum class ReadShape { None, Group, GroupWithLost, Lost };
OpenSettings open_settings(const Target& target, bool inherit, bool skip_unsupported, ReadShape read_shape);

// Size, read format, disabled (leaders; members follow them), enable_on_exec, inherit, pinned
// (':D', leaders only), the first precise level to try for ':P', what user-mode reads need, and
// the sampling fields and period.
perf_event_attr complete_attr(const Event& event, bool leader, const OpenSettings& settings) noexcept;

}  // namespace perfmon::monitor
