/* SPDX-License-Identifier: Apache-2.0 */
/* The program counter a signal interrupted: where libcpc's overflow signal says the counter
 * overflowed (si_addr). */
#ifndef PERFMON_LIBCPC_INTERRUPTED_PC_H
#define PERFMON_LIBCPC_INTERRUPTED_PC_H

#include <stdint.h>
#include <ucontext.h>

/* The program counter in a handler's ucontext (SA_SIGINFO's third argument); 0 where unknown. */
static inline uintptr_t interrupted_pc(const void* context) {
  const ucontext_t* uc = context;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

#endif
