#include "perfmon/recording.hpp"

namespace perfmon {

namespace {

// The recording's drains on every wake of the run, around the caller's hooks.
class DrainingHooks final : public RunHooks {
 public:
  DrainingHooks(Recording& recording, RunHooks& caller) : recording_(recording), caller_(caller) {}
  void started() override { caller_.started(); }
  void tick(std::chrono::nanoseconds since_last) override {
    recording_.drain();
    caller_.tick(since_last);
  }
  void act() override { caller_.act(); }
  std::optional<std::chrono::steady_clock::time_point> deadline() const override { return caller_.deadline(); }
  int signal_number() const noexcept override { return caller_.signal_number(); }
  int interruption() override { return caller_.interruption(); }
  std::vector<int> wake_fds() const override { return recording_.sampler().event_fds(); }
  void woken() override { recording_.drain(); }

 private:
  Recording& recording_;
  RunHooks& caller_;
};

}  // namespace

Recording::Recording(int fd, const std::vector<EventGroup>& groups, const Target& target,
                     const SamplingOptions& options, const std::vector<pid_t>& described)
    : target_(target), sampler_(groups, target, options), file_(fd, recorded_events(sampler_)), records_(file_) {
  file_.write_kernel_map();
  if (target.cpu_wide()) {
    file_.write_every_process();
  } else {
    for (pid_t pid : described) file_.write_process(pid);
  }
}

void Recording::start() {
  if (!target_.enable_on_exec) sampler_.start();
}

void Recording::stop() {
  if (!target_.enable_on_exec) sampler_.stop();
}

void Recording::drain() {
  sampler_.drain(records_);
  file_.finish_round();
}

void Recording::wait_and_drain(int timeout_ms) {
  sampler_.wait(timeout_ms);
  drain();
}

RunResult Recording::record(Command* command, RunHooks& hooks, const RunOptions& options) {
  RunResult result;
  start();
  const auto began = std::chrono::steady_clock::now();
  if (command != nullptr) command->start();
  hooks.started();
  DrainingHooks draining(*this, hooks);
  wait_until_done(command, target_, draining, options, result);
  result.elapsed = std::chrono::steady_clock::now() - began;
  stop();
  return result;
}

RecordLoss Recording::finish(const PerfDataHost& host) {
  return finish_recording(sampler_, file_, host);
}

}  // namespace perfmon
