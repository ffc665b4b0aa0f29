// SPDX-License-Identifier: Apache-2.0
#include "perfmon/recording.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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
  void signalled(const siginfo_t& info) override { caller_.signalled(info); }
  int interruption() override { return caller_.interruption(); }
  std::vector<int> wake_fds() const override { return recording_.sampler().event_fds(); }
  void woken() override { recording_.drain(); }

 private:
  Recording& recording_;
  RunHooks& caller_;
};

}  // namespace

namespace {

// The processes of a thread target now: each thread's process, and the processes they started
// (their children, as /proc lists them, and theirs), each once.
std::vector<pid_t> processes_of(const Target& target) {
  std::vector<pid_t> processes;
  std::vector<pid_t> pending;
  for (pid_t tid : target.threads) {
    std::ifstream status("/proc/" + std::to_string(tid) + "/status");
    pid_t tgid = tid;
    for (std::string line; std::getline(status, line);)
      if (line.starts_with("Tgid:")) tgid = static_cast<pid_t>(std::strtol(line.c_str() + 5, nullptr, 10));
    pending.push_back(tgid);
  }
  while (!pending.empty()) {
    const pid_t pid = pending.back();
    pending.pop_back();
    if (pid <= 0 || std::find(processes.begin(), processes.end(), pid) != processes.end()) continue;
    processes.push_back(pid);
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
      std::ifstream children(task.path() / "children");
      for (pid_t child = 0; children >> child;) pending.push_back(child);
    }
  }
  return processes;
}

std::vector<PerfDataEvent> events_of(const std::vector<Sampler*>& samplers) {
  std::vector<PerfDataEvent> events;
  for (const Sampler* sampler : samplers)
    for (PerfDataEvent& event : recorded_events(*sampler)) events.push_back(std::move(event));
  return events;
}

}  // namespace

Recording::Recording(int fd, const std::vector<EventGroup>& groups, const Target& target,
                     const SamplingOptions& options, const std::vector<pid_t>& described,
                     const PerfDataHost* stream_host)
    : target_(target),
      own_(std::in_place, groups, target, options),
      samplers_{&*own_},
      starts_at_exec_(target.enable_on_exec),
      file_(std::make_unique<PerfDataWriter>(fd, recorded_events(*own_), stream_host)),
      records_(std::make_unique<PerfDataRecordWriter>(*file_)) {
  file_->write_kernel_map();
  if (target.cpu_wide()) {
    file_->write_every_process();
  } else {
    for (pid_t pid : described) describe(pid);
  }
}

Recording::Recording(int fd, std::vector<Sampler*> samplers)
    : samplers_(std::move(samplers)),
      file_(std::make_unique<PerfDataWriter>(fd, events_of(samplers_))),
      records_(std::make_unique<PerfDataRecordWriter>(*file_)) {
  file_->write_kernel_map();
}

void Recording::describe(pid_t pid) {
  file_->write_process(pid);
}

void Recording::start() {
  if (!starts_at_exec_)
    for (Sampler* sampler : samplers_) sampler->start();
}

void Recording::stop() {
  if (!starts_at_exec_)
    for (Sampler* sampler : samplers_) sampler->stop();
}

void Recording::drain() {
  for (Sampler* sampler : samplers_) sampler->drain(*records_);
  file_->finish_round();
}

void Recording::drain(Sampler& sampler) {
  sampler.drain(*records_);
  file_->finish_round();
}

void Recording::release(Sampler& sampler) {
  const auto held = std::find(samplers_.begin(), samplers_.end(), &sampler);
  if (held == samplers_.end()) return;
  drain(sampler);
  released_ += sampler.lost();
  samplers_.erase(held);
}

void Recording::wait_and_drain(int timeout_ms) {
  if (samplers_.size() == 1) samplers_.front()->wait(timeout_ms);
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
  RecordLoss lost = released_;
  for (Sampler* sampler : samplers_) {
    sampler->drain(*records_);
    lost += sampler->lost();
  }
  // The samplers count from the start: what earlier files said is not this one's.
  RecordLoss own = lost;
  own.samples -= std::min(own.samples, written_.samples);
  own.records -= std::min(own.records, written_.records);
  written_ = lost;
  if (own.samples_known && own.samples != 0) file_->write_lost_samples(own.samples);
  file_->finish_round();
  file_->finish(host);
  return own;
}

RecordLoss Recording::switch_file(int fd, const PerfDataHost& host) {
  const RecordLoss lost = finish(host);
  records_.reset();
  file_ = std::make_unique<PerfDataWriter>(fd, file_->events());
  records_ = std::make_unique<PerfDataRecordWriter>(*file_);
  file_->write_kernel_map();
  if (target_.cpu_wide()) {
    file_->write_every_process();
  } else {
    for (pid_t pid : processes_of(target_)) describe(pid);
  }
  return lost;
}

}  // namespace perfmon
