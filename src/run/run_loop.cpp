// SPDX-License-Identifier: Apache-2.0
// run(): one loop for every front end. It waits in poll(2) on a signalfd of the signals the caller
// blocked (those that ask to stop, the measurement's, the hooks'), the command's pidfd, and the
// hooks' descriptors, so that a caller that takes its signals itself (Python) and one that blocks
// them (perfmon stat) are woken alike by the command's end.
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include "perfmon/error.hpp"
#include "perfmon/measurement.hpp"

namespace perfmon {

namespace {

using Clock = std::chrono::steady_clock;

// A descriptor closed when it goes.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool is_stop_request(int signo) {
  return signo == SIGINT || signo == SIGTERM || signo == SIGHUP;
}

// The signals run() takes: of those it would, the ones this thread blocks (a signalfd reads only
// those; the others go to the caller's handlers).
sigset_t taken_signals(int own_signal, const RunHooks& hooks, bool stop_signals) {
  sigset_t blocked, taken;
  pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  sigemptyset(&taken);
  std::vector<int> wanted;
  if (stop_signals) wanted = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
  if (own_signal != 0) {
    wanted.push_back(own_signal);
    wanted.push_back(SIGIO);  // the kernel's stand-in when the signal's queue is full
  }
  if (hooks.signal_number() != 0) wanted.push_back(hooks.signal_number());
  for (int signo : wanted)
    if (sigismember(&blocked, signo) == 1) sigaddset(&taken, signo);
  return taken;
}

siginfo_t siginfo_of(const signalfd_siginfo& read) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = static_cast<int>(read.ssi_signo);
  info.si_code = read.ssi_code;
  info.si_errno = read.ssi_errno;
  info.si_fd = read.ssi_fd;  // what an overflow signal names its event by
  info.si_band = static_cast<long>(read.ssi_band);
  return info;
}

}  // namespace

void wait_until_done(Command* command, const Target& target, RunHooks& hooks, const RunOptions& options,
                     RunResult& result, Measurement* signals_of) {
  const int own_signal = signals_of != nullptr ? signals_of->signal_number() : 0;
  const sigset_t taken = taken_signals(own_signal, hooks, options.take_stop_signals);
  const OwnedFd signals(::signalfd(-1, &taken, SFD_NONBLOCK | SFD_CLOEXEC));
  if (signals.get() < 0)
    throw Error(ErrorKind::System, std::string("cannot wait for signals (signalfd: ") + std::strerror(errno) + ").",
                errno);
  auto is_own = [own_signal](int signo) { return own_signal != 0 && (signo == own_signal || signo == SIGIO); };
  // Where pidfds are not (Linux < 5.3), SIGCHLD wakes the run if it is blocked, else a short poll.
  const OwnedFd ended(command != nullptr ? static_cast<int>(::syscall(SYS_pidfd_open, command->pid(), 0)) : -1);
  const bool watch_threads = command == nullptr && target.kind == Target::Kind::Threads;

  std::vector<pollfd> polled = {{signals.get(), POLLIN, 0}};
  if (ended.get() >= 0) polled.push_back({ended.get(), POLLIN, 0});
  const std::size_t first_wake_fd = polled.size();
  for (int fd : hooks.wake_fds()) polled.push_back({fd, POLLIN, 0});

  const Clock::duration tick = options.tick;
  Clock::time_point next_tick = Clock::now() + tick;
  bool done = false;
  while (!done) {
    // Wake for a signal, the command's end, the next tick, the hooks' deadline, a liveness check of
    // others' threads, or the longest the caller lets a wait be.
    std::optional<Clock::time_point> wake;
    auto wake_by = [&wake](Clock::time_point at) { wake = wake ? std::min(*wake, at) : at; };
    const Clock::time_point now = Clock::now();
    if (tick > Clock::duration::zero()) wake_by(next_tick);
    if (watch_threads) wake_by(now + std::chrono::milliseconds(200));
    if (command != nullptr && ended.get() < 0 && sigismember(&taken, SIGCHLD) != 1)
      wake_by(now + std::chrono::milliseconds(10));
    if (options.longest_wait > std::chrono::milliseconds::zero()) wake_by(now + options.longest_wait);
    if (const auto deadline = hooks.deadline()) wake_by(*deadline);
    int timeout_ms = -1;
    if (wake) {
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(*wake - now, Clock::duration::zero()));
      timeout_ms = static_cast<int>(std::min<long long>(wait.count(), 1 << 30));
    }
    if (::poll(polled.data(), polled.size(), timeout_ms) < 0 && errno != EINTR)
      throw Error(ErrorKind::System, std::string("cannot wait for the command (poll: ") + std::strerror(errno) + ").",
                  errno);

    // The caller's descriptors first: what they bring may ask to stop (a key).
    bool woken = false;
    for (std::size_t k = first_wake_fd; k < polled.size(); ++k) {
      woken = woken || (polled[k].revents & POLLIN) != 0;
      if ((polled[k].revents & (POLLHUP | POLLERR)) != 0) polled[k].fd = -1;  // nothing more from it
    }
    if (woken) hooks.woken();
    // Every signal waiting, lowest first (SIGCHLD before the real-time signals of a set's switches).
    int stop_signal = 0;
    for (signalfd_siginfo read; ::read(signals.get(), &read, sizeof read) == static_cast<ssize_t>(sizeof read);) {
      const siginfo_t info = siginfo_of(read);
      if (is_own(info.si_signo)) signals_of->handle_signal(info);
      if (info.si_signo == hooks.signal_number()) hooks.signalled(info);
      if (is_stop_request(info.si_signo)) stop_signal = info.si_signo;
    }
    if (const int signo = hooks.interruption(); signo != 0) stop_signal = signo;
    if (stop_signal != 0) {
      result.interrupted = true;
      if (command != nullptr)
        command->signal(stop_signal);  // it ends; its exit ends the run
      else
        done = true;
    }
    if (command != nullptr && command->wait(result.exit.emplace()))
      done = true;
    else
      result.exit.reset();
    if (watch_threads && !targets_alive(target)) done = true;

    if (!done) hooks.act();
    const Clock::time_point after = Clock::now();
    if (tick > Clock::duration::zero() && (after >= next_tick || done)) {
      hooks.tick(std::chrono::duration_cast<std::chrono::nanoseconds>(std::min(after, next_tick) - (next_tick - tick)));
      while (next_tick <= after) next_tick += tick;
    }
  }
  // The measurement's signals that came before the end are its own still (the others wait for
  // the caller: a Ctrl-C between two runs of perfmon stat -r ends the next).
  if (own_signal != 0) {
    sigset_t own;
    sigemptyset(&own);
    for (int signo : {own_signal, SIGIO})
      if (sigismember(&taken, signo) == 1) sigaddset(&own, signo);
    const timespec none{};
    siginfo_t info;
    while (::sigtimedwait(&own, &info, &none) > 0) signals_of->handle_signal(info);
  }
}

RunResult run(Measurement& measurement, RunHooks& hooks, const RunOptions& options) {
  RunResult result;
  measurement.start();
  const Clock::time_point start = Clock::now();
  Command* const command = measurement.command();
  if (command != nullptr) command->start();  // throws when it cannot run
  hooks.started();
  wait_until_done(command, measurement.target(), hooks, options, result, &measurement);
  result.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
  measurement.stop();
  if (const int failed = measurement.read(); failed != 0)
    throw Error(ErrorKind::System, std::string("cannot read the counters: ") + std::strerror(failed) + ".", failed);
  result.reading = measurement.reading();
  return result;
}

}  // namespace perfmon
