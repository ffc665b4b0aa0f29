// perfmonpy: perfmon2's event sets over a block or a command (event_sets(...), stat(sets=...)).
#include "measuring.hpp"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stop_token>
#include <thread>

#include "perfmon/event_sets.hpp"

namespace perfmonpy {

namespace {

// perfmon2's event sets over a block: one set on the PMU at a time, each giving way to the next
// after `switch_ns` of the target's CPU time. Over the calling thread the switches run in the
// library's signal handler, in the thread itself (nothing to drive from Python). (Over a command
// they are a Session's: the run layer drives them while the command runs.)
class SetsSession {
 public:
  SetsSession(const std::vector<std::string>& sets, const TargetSpec& where, std::int64_t switch_ns, bool inherit)
      : definitions_(sets_switched_every(sets, switch_ns)), target_(target_of(where)) {
    perfmon::EventSetOptions options;
    options.session.inherit = inherit;
    if (where.kind != "self" && where.kind != "command") {
      // Another thread, process, CPUs or a cgroup, over a block: a thread of perfmon's own takes
      // the sets' signals and switches them while the block runs (made before the sets, with their
      // signal blocked in it alone); the block's calls and its own are serialized by `serial_`.
      taker_ = std::jthread([this](std::stop_token stop) { take_signals(stop); });
      std::unique_lock<std::mutex> one(serial_);
      taken_.wait(one, [this] { return taker_tid_ != 0; });
      options.session.overflow_thread = taker_tid_;
      options.signal = signal_number();
    }
    sets_.emplace(definitions_, target_, options);
  }
  ~SetsSession() {  // the taker stops before the sets it switches go
    taker_.request_stop();
    if (taker_.joinable()) taker_.join();
  }
  SetsSession(const SetsSession&) = delete;
  SetsSession& operator=(const SetsSession&) = delete;

  // Blocks nest as a Session's do: the outermost counts.
  void begin() {
    const std::lock_guard<std::mutex> one(serial_);
    if (depth_++ > 0) return;
    sets_->reset();
    sets_->start();
  }
  bool end() {
    const std::lock_guard<std::mutex> one(serial_);
    if (depth_ > 1) {
      --depth_;
      return false;
    }
    depth_ = 0;
    sets_->stop();
    if (const int failed = sets_->read(); failed != 0)
      throw perfmon::Error(perfmon::ErrorKind::System,
                           std::string("reading the event sets failed (") + std::strerror(failed) + ").", failed);
    ++readings_;
    return false;
  }
  std::uint64_t readings() const { return readings_; }
  py::tuple values() const { return reading_arrays(sets_->reading()); }
  // How often each set was on the PMU, and for how long (ns), as of the last read.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> turns() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> turns;
    for (std::size_t set = 0; set < sets_->set_count(); ++set)
      turns.emplace_back(sets_->info(set).runs, sets_->info(set).active_ns);
    return turns;
  }
  std::vector<std::string> summary() const { return sets_->reading().summary; }
  std::vector<std::string> notes() const { return sets_->reading().notes; }

 private:
  static int signal_number() { return SIGRTMIN + 2; }  // the library's default, named: the taker blocks it
  void take_signals(std::stop_token stop) {
    sigset_t ours;
    sigemptyset(&ours);
    sigaddset(&ours, signal_number());
    pthread_sigmask(SIG_BLOCK, &ours, nullptr);
    {
      const std::lock_guard<std::mutex> one(serial_);
      taker_tid_ = static_cast<pid_t>(::gettid());
    }
    taken_.notify_all();
    const timespec patience{0, 100'000'000};
    while (!stop.stop_requested()) {
      siginfo_t info;
      if (sigtimedwait(&ours, &info, &patience) <= 0) continue;
      const std::lock_guard<std::mutex> one(serial_);
      if (sets_) sets_->handle_overflow(info);
    }
  }
  static perfmon::Target target_of(const TargetSpec& where) {
    if (where.kind == "command")
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "event sets over a command are stat(sets=[...])'s.");
    return perfmon::make_target(request_of(where).target, nullptr);
  }
  std::vector<perfmon::EventSetDefinition> definitions_;
  perfmon::Target target_;
  std::mutex serial_;
  std::condition_variable taken_;
  pid_t taker_tid_ = 0;
  std::optional<perfmon::EventSets> sets_;
  std::uint64_t readings_ = 0;
  int depth_ = 0;       // blocks entered and not left
  std::jthread taker_;  // last: it stops first
};

}  // namespace

void bind_event_sets(py::module_& module) {
  py::class_<SetsSession> sets(module, "EventSets");
  with_block(sets)
      .def(py::init<const std::vector<std::string>&, const TargetSpec&, std::int64_t, bool>(), py::arg("sets"),
           py::arg("target"), py::arg("switch_ns"), py::arg("inherit"))
      .def_property_readonly("readings", &SetsSession::readings)
      .def_property_readonly("turns", &SetsSession::turns)
      .def_property_readonly("emulated", [](const SetsSession&) { return false; })
      .def_property_readonly("notes", &SetsSession::notes)
      .def_property_readonly("summary", &SetsSession::summary)
      .def("value_arrays", &SetsSession::values);
}

}  // namespace perfmonpy
