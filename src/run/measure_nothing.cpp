// SPDX-License-Identifier: Apache-2.0
// A run that counts nothing (perf stat -n, a "null run"): the command's time and resources alone.
#include "run/native_target.hpp"

namespace perfmon::kinds {

namespace {

class NoMeasurement final : public Measurement {
 public:
  explicit NoMeasurement(const MeasurementRequest& request) : native_(request) {}

  void start() override {}
  void stop() override {}
  void reset() override {}
  int read() noexcept override { return 0; }
  Reading reading() const override { return {}; }
  Command* command() noexcept override { return native_.command(); }
  const Target& target() const noexcept override { return native_.target(); }

 private:
  NativeTarget native_;
};

}  // namespace

std::unique_ptr<Measurement> measure_nothing(const MeasurementRequest& request) {
  return std::make_unique<NoMeasurement>(request);
}

}  // namespace perfmon::kinds
