// SPDX-License-Identifier: Apache-2.0
// perfmon2's event sets: switched by run() as their timers and triggers overflow; over the calling
// thread, in the library's signal handler; or, for a caller that does not run() them
// (MeasurementRequest::own_switching_thread), by a thread of their own.
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "perfmon/event_sets.hpp"
#include "run/native_target.hpp"

namespace perfmon::kinds {

namespace {

// The signal a thread of the sets' own takes: the library's default, named because it blocks it.
int own_thread_signal() {
  return SIGRTMIN + 2;
}

class EventSetMeasurement final : public Measurement {
 public:
  explicit EventSetMeasurement(const MeasurementRequest& request) : native_(request) {
    EventSetOptions options;
    options.session.inherit = request.inherit;
    // Over the calling thread (a block), the library's handler switches them in the thread itself.
    if (native_.target().kind != Target::Kind::Self) options.switch_in_handler = false;
    if (request.own_switching_thread && native_.target().kind != Target::Kind::Self) {
      // Made before the sets, with their signal blocked in it alone.
      switcher_ = std::jthread([this](std::stop_token stop) { switch_on_signals(stop); });
      std::unique_lock<std::mutex> one(serial_);
      started_.wait(one, [this] { return switcher_tid_ != 0; });
      options.session.overflow_thread = switcher_tid_;
      options.signal = own_thread_signal();
    }
    const std::lock_guard<std::mutex> one(serial_);
    sets_.emplace(request.sets, native_.target(), options);
  }
  void start() override {
    const std::lock_guard<std::mutex> one(serial_);
    if (!native_.target().enable_on_exec) sets_->start();
  }
  void stop() override {
    const std::lock_guard<std::mutex> one(serial_);
    sets_->stop();
  }
  void reset() override {
    const std::lock_guard<std::mutex> one(serial_);
    sets_->reset();
  }
  int read() noexcept override {
    const std::lock_guard<std::mutex> one(serial_);
    return sets_->read();
  }
  Reading reading() const override {
    const std::lock_guard<std::mutex> one(serial_);
    return sets_->reading();
  }
  Command* command() noexcept override { return native_.command(); }
  const Target& target() const noexcept override { return native_.target(); }
  // run() takes the sets' signal where no handler or thread of their own does.
  int signal_number() const noexcept override {
    return sets_->switches_in_handler() || switcher_.joinable() ? 0 : sets_->signal_number();
  }
  void handle_signal(const siginfo_t& info) noexcept override {
    // SIGIO: the signal queue overflowed and the overflows lost their fds; the active set's
    // trigger or timer is what overflows, so its turn is over.
    if (info.si_signo == SIGIO)
      sets_->switch_now();
    else
      sets_->handle_overflow(info);
  }

 private:
  void switch_on_signals(const std::stop_token& stop) {
    sigset_t own;
    sigemptyset(&own);
    sigaddset(&own, own_thread_signal());
    pthread_sigmask(SIG_BLOCK, &own, nullptr);
    {
      const std::lock_guard<std::mutex> one(serial_);
      switcher_tid_ = static_cast<pid_t>(::syscall(SYS_gettid));
    }
    started_.notify_all();
    const timespec patience{0, 100'000'000};  // how soon a stop is seen
    while (!stop.stop_requested()) {
      siginfo_t info;
      if (sigtimedwait(&own, &info, &patience) <= 0) continue;
      const std::lock_guard<std::mutex> one(serial_);
      if (sets_) sets_->handle_overflow(info);
    }
  }

  NativeTarget native_;
  mutable std::mutex serial_;  // the switcher's switches and the caller's calls, one at a time
  std::condition_variable started_;
  pid_t switcher_tid_ = 0;
  std::optional<EventSets> sets_;
  std::jthread switcher_;  // last: it stops (and is joined) before the sets it switches go
};

}  // namespace

std::unique_ptr<Measurement> measure_event_sets(const MeasurementRequest& request) {
  return std::make_unique<EventSetMeasurement>(request);
}

}  // namespace perfmon::kinds
