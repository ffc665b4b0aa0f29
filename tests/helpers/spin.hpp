// SPDX-License-Identifier: Apache-2.0
// A loop of known instruction count, written in assembly so that no compiler can change it:
// perfmon_spin(n) retires exactly 2n + 1 instructions (n >= 1) on x86-64 and on aarch64.
#pragma once

extern "C" void perfmon_spin(unsigned long n);

constexpr unsigned long spin_instructions(unsigned long n) { return 2 * n + 1; }
