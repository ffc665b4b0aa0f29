// SPDX-License-Identifier: Apache-2.0
// A counting session: the events on the host's counters, on a command, threads, processes, CPUs,
// a cgroup or the calling process.
#include "perfmon/session.hpp"
#include "run/native_target.hpp"

namespace perfmon::kinds {

namespace {

class CounterMeasurement final : public Measurement {
 public:
  explicit CounterMeasurement(const MeasurementRequest& request)
      : native_(request),
        session_(request.groups, native_.target(), options(request)),
        start_paused_(request.start_paused) {}

  void start() override {
    if (!native_.target().enable_on_exec && !start_paused_) session_.start();
  }
  void stop() override { session_.stop(); }
  void pause() override { session_.stop(); }
  void resume() override { session_.start(); }
  void reset() override { session_.reset(); }
  int read() noexcept override { return session_.read(); }
  Reading reading() const override { return session_.reading(); }
  Command* command() noexcept override { return native_.command(); }
  const Target& target() const noexcept override { return native_.target(); }

 private:
  static SessionOptions options(const MeasurementRequest& request) {
    SessionOptions options;
    options.inherit = request.inherit;
    options.strict = request.strict;
    options.skip_unsupported = request.skip_unsupported;
    options.error_bars = request.error_bars;
    return options;
  }

  NativeTarget native_;
  CounterSession session_;
  bool start_paused_;
};

}  // namespace

std::unique_ptr<Measurement> measure_counters(const MeasurementRequest& request) {
  return std::make_unique<CounterMeasurement>(request);
}

}  // namespace perfmon::kinds
