// SPDX-License-Identifier: Apache-2.0
#include "monitor/attr.hpp"

#include "arch/counter_read.hpp"
#include "arch/user_registers.hpp"
#include "events/sources/sysfs_pmu.hpp"
#include "kernel/perf_event.hpp"

namespace perfmon::monitor {

OpenSettings open_settings(const Target& target, bool inherit, bool skip_unsupported, ReadShape read_shape) {
  OpenSettings settings;
  settings.inherit = inherit;
  settings.enable_on_exec = target.enable_on_exec;
  settings.skip_unsupported = skip_unsupported;
  constexpr std::uint64_t group =
      PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  // Probed only where asked for: a process's first perf_event_open can cost milliseconds.
  auto lost = [] { return kernel::supports_format_lost() ? std::uint64_t{PERF_FORMAT_LOST} : 0; };
  switch (read_shape) {
    case ReadShape::None:
      break;
    case ReadShape::Group:
      settings.read_format = group;
      break;
    case ReadShape::GroupWithLost:
      settings.read_format = group | lost();
      break;
    case ReadShape::Lost:
      settings.read_format = lost();
      break;
  }
  return settings;
}

perf_event_attr complete_attr(const Event& event, bool leader, const OpenSettings& settings) noexcept {
  perf_event_attr attr = event.attr;
  attr.size = sizeof attr;
  attr.read_format = settings.read_format;
  attr.disabled = leader ? 1 : 0;
  attr.enable_on_exec = leader && settings.enable_on_exec ? 1 : 0;
  attr.inherit = settings.inherit ? 1 : 0;
  attr.inherit_stat = settings.inherit && settings.inherit_stat ? 1 : 0;
  attr.pinned = leader && event.pinned ? 1 : 0;
  if (event.max_precise) attr.precise_ip = 3;  // the fallback lowers it until the PMU takes it
  if (settings.user_access && events::is_core_pmu(event.pmu, attr.type)) arch::request_user_access(attr);
  if (settings.sample_type != 0) {
    attr.sample_type = settings.sample_type | PERF_SAMPLE_IDENTIFIER;
    attr.sample_id_all = 1;
    attr.wakeup_events = settings.wakeup_events;
    if (settings.user_stack_bytes != 0) {  // as perf --call-graph dwarf asks: the kernel's frames as a chain
      attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN;
      attr.sample_regs_user = arch::kUnwindingRegisters;
      attr.sample_stack_user = settings.user_stack_bytes;
      attr.exclude_callchain_user = 1;
    }
    if (settings.branch_sample_type != 0) {
      attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
      attr.branch_sample_type = settings.branch_sample_type;
    }
    // As in perf, an event's own period= or freq= term wins over the measurement's.
    if (attr.sample_period == 0) {
      if (settings.sample_frequency != 0) {
        attr.freq = 1;
        attr.sample_freq = settings.sample_frequency;
      } else {
        attr.sample_period = settings.sample_period;
      }
    }
    if (attr.freq) attr.sample_type |= PERF_SAMPLE_PERIOD;  // the kernel varies it: each sample says it
  }
  return attr;
}

}  // namespace perfmon::monitor
