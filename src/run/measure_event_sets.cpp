// perfmon2's event sets, switched by run() as their timers and triggers overflow.
#include <csignal>

#include "perfmon/event_sets.hpp"
#include "run/native_target.hpp"

namespace perfmon::kinds {

namespace {

class EventSetMeasurement final : public Measurement {
 public:
  explicit EventSetMeasurement(const MeasurementRequest& request)
      : native_(request), sets_(request.sets, native_.target(), options(request)) {}

  void start() override {
    if (!native_.target().enable_on_exec) sets_.start();
  }
  void stop() override { sets_.stop(); }
  void reset() override { sets_.reset(); }
  int read() noexcept override { return sets_.read(); }
  Reading reading() const override { return sets_.reading(); }
  Command* command() noexcept override { return native_.command(); }
  const Target& target() const noexcept override { return native_.target(); }
  int signal_number() const noexcept override { return sets_.signal_number(); }
  void handle_signal(const siginfo_t& info) noexcept override {
    // SIGIO: the signal queue overflowed and the overflows lost their fds; the active set's
    // trigger or timer is what overflows, so its turn is over.
    if (info.si_signo == SIGIO)
      sets_.switch_now();
    else
      sets_.handle_overflow(info);
  }

 private:
  static EventSetOptions options(const MeasurementRequest& request) {
    EventSetOptions options;
    options.session.inherit = request.inherit;
    options.switch_in_handler = false;  // run() takes the signals
    return options;
  }

  NativeTarget native_;
  EventSets sets_;
};

}  // namespace

std::unique_ptr<Measurement> measure_event_sets(const MeasurementRequest& request) {
  return std::make_unique<EventSetMeasurement>(request);
}

}  // namespace perfmon::kinds
