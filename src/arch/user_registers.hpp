// SPDX-License-Identifier: Apache-2.0
// The user registers a sample must carry (perf_event_attr::sample_regs_user) for its stack to be
// unwound later by CFI, in the kernel's numbering (asm/perf_regs.h), as perf record --call-graph
// dwarf asks for them: the general registers, the stack pointer and the pc.
#pragma once

#include <asm/perf_regs.h>

#include <cstdint>

namespace perfmon::arch {

#if defined(__x86_64__)
inline constexpr std::uint64_t kUnwindingRegisters =
    ((std::uint64_t{1} << PERF_REG_X86_64_MAX) - 1) &
    ~(std::uint64_t{1} << PERF_REG_X86_DS | std::uint64_t{1} << PERF_REG_X86_ES | std::uint64_t{1} << PERF_REG_X86_FS |
      std::uint64_t{1} << PERF_REG_X86_GS);
#elif defined(__aarch64__)
inline constexpr std::uint64_t kUnwindingRegisters = (std::uint64_t{1} << PERF_REG_ARM64_MAX) - 1;
#else
inline constexpr std::uint64_t kUnwindingRegisters = 0;  // an architecture perfmon cannot unwind
#endif

}  // namespace perfmon::arch
