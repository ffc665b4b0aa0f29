// SPDX-License-Identifier: Apache-2.0
// A command on QEMU's emulated CPU, counted by a session on it; its counts are read from the
// plugin's shared counters as it runs.
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/session.hpp"
#include "run/native_target.hpp"

namespace perfmon::kinds {

namespace {

class EmulatedMeasurement final : public Measurement {
 public:
  explicit EmulatedMeasurement(const MeasurementRequest& request)
      : workload_(command_of(request), emulator_options(request)),
        command_(workload_),
        target_(Target::emulated(workload_)),
        session_(request.groups, target_) {}

  void start() override { session_.start(); }
  void stop() override { session_.stop(); }
  void reset() override { session_.reset(); }
  int read() noexcept override { return session_.read(); }
  Reading reading() const override { return session_.reading(); }
  Command* command() noexcept override { return &command_; }
  const Target& target() const noexcept override { return target_; }
  std::string counting_on() const override { return " on " + workload_.qemu(); }

 private:
  static const std::vector<std::string>& command_of(const MeasurementRequest& request) {
    if (request.command.empty())
      throw Error(ErrorKind::InvalidArgument, "the emulated CPU counts a command: give one.", EINVAL);
    return request.command;
  }
  static EmulatorOptions emulator_options(const MeasurementRequest& request) {
    EmulatorOptions options;
    options.cache_hierarchy = request.caches;
    return options.enabled_for(request.groups);
  }

  EmulatedWorkload workload_;
  CommandOf<EmulatedWorkload> command_;
  Target target_;
  CounterSession session_;
};

}  // namespace

std::unique_ptr<Measurement> measure_emulated(const MeasurementRequest& request) {
  return std::make_unique<EmulatedMeasurement>(request);
}

}  // namespace perfmon::kinds
