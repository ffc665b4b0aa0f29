// SPDX-License-Identifier: Apache-2.0
// perfmon: Intel's event-select register IA32_PERFEVTSELx (the MSR tutorial seed; SDM Vol. 3), its
// inverse, and how it maps onto perf's x86 "cpu" PMU config word.
//
//   7:0 event select   15:8 unit mask   16 USR   17 OS   18 edge   19 PC (pin control)
//   20 INT (interrupt on overflow)   21 AnyThread   22 EN   23 INV   31:24 CMASK   63:32 reserved
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>

namespace perfmon {

struct PerfEvtSel {
  std::uint8_t event = 0;
  std::uint8_t umask = 0;
  bool usr = false, os = false, edge = false, pin_control = false, interrupt = false;
  bool any_thread = false, enable = false, invert = false;
  std::uint8_t cmask = 0;

  std::uint64_t encode() const noexcept;
  // Throws perfmon::Error when reserved bits (63:32) are set.
  static PerfEvtSel decode(std::uint64_t value);
  // "event=0xc0,umask=0x00,usr,os,en" style, every set field named.
  std::string describe() const;
};

// The perf attr for a PERFEVTSEL value on x86's core PMU (PERF_TYPE_RAW): event, umask, edge, PC,
// AnyThread, INV and CMASK go to config bits as the cpu PMU's sysfs format places them; USR/OS
// become exclude_kernel/exclude_user (neither set means both); INT and EN belong to the kernel.
perf_event_attr perfevtsel_to_attr(const PerfEvtSel& select);
// The inverse: the PERFEVTSEL value the kernel will program for this attr (USR/OS from the
// exclude bits, INT and EN set as the kernel sets them when counting).
PerfEvtSel attr_to_perfevtsel(const perf_event_attr& attr);

}  // namespace perfmon
