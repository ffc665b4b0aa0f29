// What the system tests share: one catalogue, and getppid() calls that a tracepoint counts exactly.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

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

}  // namespace perfmon::testing
