// SPDX-License-Identifier: Apache-2.0
#include "spin.hpp"

#if defined(__x86_64__)
asm(R"(
  .text
  .globl perfmon_spin
  .type perfmon_spin, @function
perfmon_spin:
1:
  dec %rdi
  jnz 1b
  ret
  .size perfmon_spin, .-perfmon_spin
)");
#elif defined(__aarch64__)
asm(R"(
  .text
  .globl perfmon_spin
  .type perfmon_spin, %function
perfmon_spin:
1:
  subs x0, x0, #1
  b.ne 1b
  ret
  .size perfmon_spin, .-perfmon_spin
)");
#else
#error "perfmon_spin has no assembly for this architecture"
#endif
