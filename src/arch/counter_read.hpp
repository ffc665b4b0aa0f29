// SPDX-License-Identifier: Apache-2.0
// Reading performance counters from user mode on this architecture: x86 rdpmc/rdtsc, arm64 mrs of
// PMEVCNTR<n>_EL0/PMCCNTR_EL0 and CNTVCT_EL0. The kernel says which counter holds an event, and
// whether user mode may read it, in the event's mmap'd page (kernel/mmap.hpp).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace perfmon::arch {

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
inline constexpr bool kUserCounterReads = true;
#else
inline constexpr bool kUserCounterReads = false;
#endif

// clang-format off
// The hardware counter `counter` (the user page's index - 1).
inline std::uint64_t read_counter(std::uint32_t counter) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  std::uint32_t low, high;
  asm volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(counter));
  return low | (static_cast<std::uint64_t>(high) << 32);
#elif defined(__aarch64__)
  // PMEVCNTR<n>_EL0 is named in the instruction, so each counter needs its own mrs.
#define PERFMON_READ_PMEVCNTR(n) case n: asm volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(value)); break;
  std::uint64_t value = 0;
  switch (counter) {
    case 31: asm volatile("mrs %0, pmccntr_el0" : "=r"(value)); break;
    PERFMON_READ_PMEVCNTR(0) PERFMON_READ_PMEVCNTR(1) PERFMON_READ_PMEVCNTR(2) PERFMON_READ_PMEVCNTR(3)
    PERFMON_READ_PMEVCNTR(4) PERFMON_READ_PMEVCNTR(5) PERFMON_READ_PMEVCNTR(6) PERFMON_READ_PMEVCNTR(7)
    PERFMON_READ_PMEVCNTR(8) PERFMON_READ_PMEVCNTR(9) PERFMON_READ_PMEVCNTR(10) PERFMON_READ_PMEVCNTR(11)
    PERFMON_READ_PMEVCNTR(12) PERFMON_READ_PMEVCNTR(13) PERFMON_READ_PMEVCNTR(14) PERFMON_READ_PMEVCNTR(15)
    PERFMON_READ_PMEVCNTR(16) PERFMON_READ_PMEVCNTR(17) PERFMON_READ_PMEVCNTR(18) PERFMON_READ_PMEVCNTR(19)
    PERFMON_READ_PMEVCNTR(20) PERFMON_READ_PMEVCNTR(21) PERFMON_READ_PMEVCNTR(22) PERFMON_READ_PMEVCNTR(23)
    PERFMON_READ_PMEVCNTR(24) PERFMON_READ_PMEVCNTR(25) PERFMON_READ_PMEVCNTR(26) PERFMON_READ_PMEVCNTR(27)
    PERFMON_READ_PMEVCNTR(28) PERFMON_READ_PMEVCNTR(29) PERFMON_READ_PMEVCNTR(30)
    default: break;
  }
#undef PERFMON_READ_PMEVCNTR
  return value;
#else
  (void)counter;
  return 0;
#endif
}

// The clock the user page's time_mult/time_shift convert (TSC on x86, the virtual counter on arm64).
inline std::uint64_t read_timestamp() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  std::uint64_t value;
  asm volatile("isb; mrs %0, cntvct_el0" : "=r"(value));
  return value;
#else
  return 0;
#endif
}
// clang-format on

// Sets what this architecture needs in an attr for user-mode reads: arm64's armv8_pmuv3 takes the
// "rdpmc" format term (config1:1); x86 needs nothing.
inline void request_user_access(perf_event_attr& attr) noexcept {
#if defined(__aarch64__)
  attr.config1 |= 2;
#else
  (void)attr;
#endif
}

}  // namespace perfmon::arch
