// SPDX-License-Identifier: Apache-2.0
#include "perfmon/notification_queue.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "kernel/fd.hpp"
#include "perfmon/error.hpp"
#include "perfmon/sampling_format.hpp"

namespace perfmon {

namespace {

[[noreturn]] void fail(const char* what) {
  throw Error(ErrorKind::System, std::string(what) + ": " + std::strerror(errno) + ".", errno);
}

}  // namespace

// Hands the sampler's records to the format and turns its overflows into messages.
struct NotificationQueue::State final : SampleHandler {
  State(Sampler& sampler, SampleHandler& format, NotificationOptions options)
      : sampler(sampler),
        format(format),
        steering(dynamic_cast<SamplingFormat*>(&format)),
        options(std::move(options)),
        epoll(::epoll_create1(EPOLL_CLOEXEC)),
        pending_event(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

  Sampler& sampler;
  SampleHandler& format;
  SamplingFormat* steering;  // null for a plain handler
  NotificationOptions options;
  kernel::FileDescriptor epoll;
  kernel::FileDescriptor pending_event;  // readable while messages wait
  bool pending_signalled = false;
  std::deque<Notification> messages;
  bool masked = false, end_posted = false, end_read = false;
  std::uint64_t lost = 0;

  void sample(std::size_t event, const Sample& sample) override {
    format.sample(event, sample);
    const OverflowControl control = steering != nullptr ? steering->overflow_control(event) : OverflowControl{};
    if (control.notify && event < kNotifiedEvents && !options.silent.test(event)) {
      if (messages.size() < options.capacity) {
        Notification& message = messages.emplace_back();
        message.type = Notification::kOverflow;
        message.overflowed[event / 64] |= std::uint64_t{1} << (event % 64);
      } else {
        ++lost;
      }
    }
    if (control.mask) {  // what the rings hold after this sample waits for restart()
      sampler.stop();
      sampler.interrupt_drain();
      masked = true;
    }
  }
  void record(const perf_event_header& header) override { format.record(header); }

  // Keeps pending_event readable exactly while messages wait, so that epoll says so.
  void sync_pending() noexcept {
    if (!messages.empty() && !pending_signalled) {
      const std::uint64_t one = 1;
      pending_signalled = ::write(pending_event.get(), &one, sizeof one) == sizeof one;
    } else if (messages.empty() && pending_signalled) {
      std::uint64_t count;
      pending_signalled = ::read(pending_event.get(), &count, sizeof count) != sizeof count;
    }
  }

  // Drains the rings unless masked. The end message comes once every monitored thread has gone
  // and the rings are empty, or, masked, once the messages before it have been read.
  void pump() {
    if (!masked) sampler.drain(*this);
    sampler.wait(0);  // notices threads that hung up
    if (sampler.finished() && !end_posted) {
      if (!masked) sampler.drain(*this);
      if (!masked || messages.empty()) {
        messages.emplace_back().type = Notification::kEnd;
        end_posted = true;
      }
    }
    sync_pending();
  }

  // Waits on the epoll set until something is ready, a signal comes, or `timeout_ms` passed.
  void wait(int timeout_ms) {
    epoll_event ready[16];
    const int n = ::epoll_wait(epoll.get(), ready, 16, timeout_ms);
    if (n < 0 && errno != EINTR) fail("cannot wait for notifications");
    for (int k = 0; k < n; ++k)  // a hung-up fd stays ready forever: leave it to sampler.wait()
      if (ready[k].events & (EPOLLHUP | EPOLLERR)) ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, ready[k].data.fd, nullptr);
  }
};

NotificationQueue::NotificationQueue(Sampler& sampler, SampleHandler& format, NotificationOptions options)
    : state_(std::make_unique<State>(sampler, format, std::move(options))) {
  State& s = *state_;
  if (!s.epoll || !s.pending_event) fail("cannot make a notification queue");
  std::vector<int> fds = sampler.event_fds();
  fds.push_back(s.pending_event.get());
  for (int fd : fds) {
    epoll_event watch{};
    watch.events = EPOLLIN;
    watch.data.fd = fd;
    if (::epoll_ctl(s.epoll.get(), EPOLL_CTL_ADD, fd, &watch) != 0) fail("cannot watch the sampler's rings");
  }
}

NotificationQueue::~NotificationQueue() = default;

bool NotificationQueue::next(Notification& out, int timeout_ms) {
  State& s = *state_;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    if (s.messages.empty() && !s.end_read) s.pump();
    if (!s.messages.empty()) {
      out = s.messages.front();
      s.messages.pop_front();
      s.end_read = s.end_read || out.type == Notification::kEnd;
      s.sync_pending();
      return true;
    }
    if (s.end_read || timeout_ms == 0) return false;
    int wait_ms = -1;
    if (timeout_ms > 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(left);
    }
    s.wait(wait_ms);
  }
}

void NotificationQueue::restart() {
  State& s = *state_;
  if (s.steering != nullptr) s.steering->restart();
  if (s.masked) {
    s.masked = false;
    s.sampler.start();
  }
}

int NotificationQueue::fd() const noexcept {
  return state_->epoll.get();
}
std::size_t NotificationQueue::pending() const noexcept {
  return state_->messages.size();
}
bool NotificationQueue::masked() const noexcept {
  return state_->masked;
}
std::uint64_t NotificationQueue::lost() const noexcept {
  return state_->lost;
}

}  // namespace perfmon
