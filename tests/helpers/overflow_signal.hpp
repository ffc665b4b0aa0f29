// SPDX-License-Identifier: Apache-2.0
// Overflow notifications as a signal to the calling thread: the signal is blocked (so that the
// test takes it with sigtimedwait) and the perf fd is set to raise it on every overflow.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

// Returns the blocked set holding `signo`, or an empty set when the fd could not be armed.
inline sigset_t arm_overflow_signal(int fd, int signo) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  f_owner_ex owner{F_OWNER_TID, static_cast<pid_t>(syscall(SYS_gettid))};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0)
    sigemptyset(&set);
  return set;
}
