// SPDX-License-Identifier: Apache-2.0
// The signals a command that runs a workload (stat, record) waits for with sigtimedwait: blocked
// while it runs, so that Ctrl-C, SIGTERM and SIGHUP go to the workload and the counts are still
// printed. Every other command (report, script, list...) leaves them as they were, so it can be
// interrupted.
#pragma once

#include <signal.h>

#include <ctime>

namespace perfmon::cli {

class WaitedSignals {
 public:
  WaitedSignals() {
    sigemptyset(&waited_);
    // SIGIO is what the kernel sends instead of an event set's overflow signal when the real-time
    // queue is full: blocked, it cannot end the tool.
    for (int signo : {SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGIO}) sigaddset(&waited_, signo);
    sigprocmask(SIG_BLOCK, &waited_, &before_);
  }
  ~WaitedSignals() {
    // A SIGIO or SIGCHLD still pending is the measurement's, not a request to stop.
    sigset_t stale;
    sigemptyset(&stale);
    sigaddset(&stale, SIGIO);
    sigaddset(&stale, SIGCHLD);
    const timespec now{};
    while (sigtimedwait(&stale, nullptr, &now) > 0) {
    }
    sigprocmask(SIG_SETMASK, &before_, nullptr);
  }
  WaitedSignals(const WaitedSignals&) = delete;
  WaitedSignals& operator=(const WaitedSignals&) = delete;

 private:
  sigset_t waited_;
  sigset_t before_;
};

}  // namespace perfmon::cli
