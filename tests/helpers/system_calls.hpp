// SPDX-License-Identifier: Apache-2.0
// What the system tests share: one catalogue, getppid() calls that a tracepoint counts exactly, and
// fresh pages that page-faults counts exactly.
#pragma once

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

#include "perfmon/catalog.hpp"

namespace perfmon::testing {

inline const EventCatalog& catalog() {
  static const EventCatalog instance;
  return instance;
}

// The raw system call: libc may cache what it returns, never the call itself.
inline void call_getppid(long n) {
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);
}

// Writes a byte: one page fault on a fresh page. Not instrumented, so that AddressSanitizer does not
// fault in the shadow of the page too.
[[gnu::noinline, gnu::no_sanitize_address]] inline void touch(char* byte) {
  *static_cast<volatile char*>(byte) = 1;
}

// Touches `pages` fresh pages of anonymous memory: exactly one page fault each (huge pages off).
inline void touch_fresh_pages(std::size_t pages) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) std::abort();
  madvise(memory, pages * page, MADV_NOHUGEPAGE);
  for (std::size_t i = 0; i < pages; ++i) touch(static_cast<char*>(memory) + i * page);
  munmap(memory, pages * page);
}

}  // namespace perfmon::testing
