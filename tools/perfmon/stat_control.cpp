// SPDX-License-Identifier: Apache-2.0
#include "stat_control.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "perfmon/printable.hpp"

namespace perfmon::cli {

namespace {

// Raised by the channel when a command arrives (O_ASYNC): one the event sets' default (SIGRTMIN+2)
// is not.
int channel_signal() {
  return SIGRTMIN + 3;
}

}  // namespace

StatControl::StatControl(long delay_ms, const std::string& channel, bool verbose)
    : delay_ms_(delay_ms), verbose_(verbose), signo_(channel_signal()) {
  if (channel.empty()) return;
  channel_.emplace(channel);
  // The signal waits, blocked, for the run loop's sigtimedwait; the loop also looks at the channel
  // on every wake, where a descriptor cannot signal (a regular file given as fd:).
  sigset_t signal;
  sigemptyset(&signal);
  sigaddset(&signal, signo_);
  pthread_sigmask(SIG_BLOCK, &signal, &mask_before_);
  const f_owner_ex owner{F_OWNER_TID, gettid()};
  const int fd = channel_->fd();
  fcntl(fd, F_SETOWN_EX, &owner);
  fcntl(fd, F_SETSIG, signo_);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

StatControl::~StatControl() {
  if (!channel_) return;
  const int fd = channel_->fd();
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_ASYNC);
  // A signal still pending would end the tool once unblocked (a real-time signal's default).
  sigset_t signal;
  sigemptyset(&signal);
  sigaddset(&signal, signo_);
  const timespec now{};
  while (sigtimedwait(&signal, nullptr, &now) > 0) {
  }
  if (!sigismember(&mask_before_, signo_)) pthread_sigmask(SIG_UNBLOCK, &signal, nullptr);
}

std::optional<std::chrono::steady_clock::time_point> StatControl::deadline() const {
  if (!delay_due_) return std::nullopt;
  return start_ + std::chrono::milliseconds(delay_ms_);
}

void StatControl::started() {
  start_ = std::chrono::steady_clock::now();
  if (delay_ms_ == 0) {
    enabled_ = counting_ = true;  // started with the measurement
    return;
  }
  delay_due_ = delay_ms_ > 0;
  if (delay_ms_ < 0) std::fputs("Events disabled\n", stderr);  // perf's words
}

void StatControl::act(Measurement& measurement) {
  if (delay_due_ && std::chrono::steady_clock::now() >= *deadline()) {
    delay_due_ = false;
    enabled_ = true;
    set_counting(measurement, true);
    std::fputs("Events enabled\n", stderr);
  }
  if (!channel_) return;
  for (const ControlCommand& command : channel_->take()) {
    apply(measurement, command);
    channel_->acknowledge();
  }
}

void StatControl::set_counting(Measurement& measurement, bool on) {
  if (on == counting_) return;
  if (on)
    measurement.resume();
  else
    measurement.pause();
  counting_ = on;
}

void StatControl::apply(Measurement& measurement, const ControlCommand& command) {
  using Kind = ControlCommand::Kind;
  if (command.kind == Kind::Unknown) {
    std::fprintf(stderr,
                 "perfmon: unknown control command '%s': use enable, disable, enable NAME, disable NAME or ping.\n",
                 printable(command.text).c_str());
    return;
  }
  if (command.kind == Kind::Ping) return;
  delay_due_ = false;  // told what to do: the delay is over
  const bool enable = command.kind == Kind::Enable;
  if (command.region.empty()) {
    enabled_ = enable;
    set_counting(measurement, enabled_ || regions_.open_count() > 0);
    std::fputs(enable ? "Events enabled\n" : "Events disabled\n", stderr);
    return;
  }
  const std::string name = printable(command.region);
  if (enable) {
    // Taken before counting goes on: all that follows is the region's.
    measurement.read();
    if (regions_.begin(command.region, measurement.reading()) == RegionCounts::Change::AlreadyOpen) {
      std::fprintf(stderr, "perfmon: region '%s' is already enabled: it counts on from its first enable.\n",
                   name.c_str());
      return;
    }
    set_counting(measurement, true);
  } else {
    if (!regions_.is_open(command.region)) {
      std::fprintf(stderr, "perfmon: region '%s' is not enabled: 'disable %s' ignored.\n", name.c_str(), name.c_str());
      return;
    }
    // Off first where nothing else counts: all that came before is the region's.
    set_counting(measurement, enabled_ || regions_.open_count() > 1);
    measurement.read();
    regions_.end(command.region, measurement.reading());
  }
  if (verbose_) std::fprintf(stderr, "perfmon: region '%s' %s\n", name.c_str(), enable ? "enabled" : "disabled");
}

Reading StatControl::reading(const Measurement& measurement) const {
  return regions_.with_regions(measurement.reading());
}

std::vector<std::string> StatControl::footnotes() const {
  std::vector<std::string> lines;
  for (const RegionCounts::Summary& region : regions_.summaries()) {
    char text[160];
    std::snprintf(text, sizeof text, "%llu %s, %.6f s in all%s", static_cast<unsigned long long>(region.times),
                  region.times == 1 ? "time" : "times", std::chrono::duration<double>(region.elapsed).count(),
                  region.open ? ", still enabled at the end" : "");
    lines.push_back("region " + printable(region.name) + ": enabled " + text);
  }
  return lines;
}

}  // namespace perfmon::cli
