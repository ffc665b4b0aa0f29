// perfmonpy's compiled half, _perfmonpy: perfmon's C++ API as Python sees it (docs/python.md).
// The package around it (python/perfmonpy) gives the context managers, the decorator, the
// exception classes and the tables; this file keeps to counting sessions, event sets, recordings,
// the commands they run and perf.data files read into arrays.
// Its perfmon::Error become the package's exceptions (perfmonpy/errors.py) by kind.
#include <poll.h>
#include <pthread.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/output_file.hpp"
#include "perfmon/pass_plan.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/session.hpp"
#include "perfmon/symbolizer.hpp"
#include "perfmon/symbols.hpp"
#include "perfmon/system_info.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"

namespace py = pybind11;

namespace {

const char* kind_name(perfmon::ErrorKind kind) {
  switch (kind) {
    case perfmon::ErrorKind::InvalidEvent:
      return "InvalidEvent";
    case perfmon::ErrorKind::UnknownEvent:
      return "UnknownEvent";
    case perfmon::ErrorKind::Unsupported:
      return "Unsupported";
    case perfmon::ErrorKind::OtherCpuModel:
      return "OtherCpuModel";
    case perfmon::ErrorKind::Permission:
      return "Permission";
    case perfmon::ErrorKind::NoSuchTarget:
      return "NoSuchTarget";
    case perfmon::ErrorKind::Limit:
      return "Limit";
    case perfmon::ErrorKind::InvalidArgument:
      return "InvalidArgument";
    case perfmon::ErrorKind::CommandFailed:
      return "CommandFailed";
    case perfmon::ErrorKind::System:
      return "System";
  }
  return "System";
}

// The machine's events, found once a process: reading sysfs and tracefs takes milliseconds.
const perfmon::EventCatalog& catalog() {
  static const perfmon::EventCatalog known;
  return known;
}

// What to count on: one of the library's targets, with the command it runs where it has one.
struct TargetSpec {
  std::string kind = "self";  // self, thread, process, cpus, cgroup, command
  long id = 0;                // the thread's or process's
  std::vector<int> cpus;      // for cpus and cgroup (empty: every CPU)
  std::string cgroup;
  std::vector<std::string> command;
  bool emulate = false;
};

// A Reading as Python takes it, one row an event: (names, parts ("set1", "pass2"; "" for a
// measurement of one part), counts [raw, enabled ns, running ns], estimates [scaled, standard
// error: 0 for an exact count, NaN where unknown], supported, reasons).
py::tuple reading_arrays(const perfmon::Reading& reading) {
  const std::size_t n = reading.events.size();
  py::array_t<std::uint64_t> counts({n, std::size_t{3}});
  py::array_t<double> estimates({n, std::size_t{2}});
  py::array_t<bool> supported(n);
  auto c = counts.mutable_unchecked<2>();
  auto s = estimates.mutable_unchecked<2>();
  auto ok = supported.mutable_unchecked<1>();
  std::vector<std::string> names, parts, reasons;
  for (std::size_t e = 0; e < n; ++e) {
    const perfmon::ReadingEvent& event = reading.events[e];
    const perfmon::CounterValue& value = event.value;
    c(e, 0) = value.raw;
    c(e, 1) = value.enabled;
    c(e, 2) = value.running;
    s(e, 0) = event.estimate ? event.estimate->value : value.scaled();
    s(e, 1) = event.estimate && event.estimate->standard_error      ? *event.estimate->standard_error
              : value.running == value.enabled && value.running > 0 ? 0.0
                                                                    : std::nan("");
    ok(e) = event.supported;
    names.push_back(event.event.name);
    parts.push_back(event.label);
    reasons.push_back(event.unsupported_reason);
  }
  return py::make_tuple(names, parts, counts, estimates, supported, reasons);
}

// Up to 100 ms until process `pid` ends (its pidfd polled; a short sleep where pidfds are not).
void wait_a_while_for(pid_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return;
  }
  pollfd ended{fd, POLLIN, 0};
  ::poll(&ended, 1, 100);
  ::close(fd);
}

// Runs a started command to its end: `between` (which waits up to about 100 ms: a drain, a
// service of the sets, or the command's end) over and over, other Python threads running. The
// interpreter's signal handlers run between rounds, so that Ctrl-C reaches a notebook or a script
// at once: the exception a handler raises (KeyboardInterrupt) is passed on to the command as
// SIGINT, which ends it, and raised once the command has ended and `finish` has run (the counts
// read, the recording written), as perf does on Ctrl-C. A command that takes no notice of SIGINT
// gets SIGKILL at the next Ctrl-C.
template <typename Command, typename Between, typename Finish>
int run_to_end(Command& command, Between&& between, Finish&& finish) {
  perfmon::WorkloadExit exit;
  std::optional<py::error_already_set> interrupted;
  for (;;) {
    {
      py::gil_scoped_release others_run;
      between();
      if (command.wait(exit, false)) break;
    }
    if (PyErr_CheckSignals() != 0) {
      if (!interrupted) {
        interrupted.emplace();  // takes the exception the handler raised
        command.signal(SIGINT);
      } else {
        PyErr_Clear();  // the first is the one raised
        command.signal(SIGKILL);
      }
    }
  }
  finish();
  if (interrupted) throw std::move(*interrupted);
  return exit.exit_code();
}

// What a measurement stands on: its events, and its target with the command it runs, if any (held
// before its exec in `workload`, or in `emulated` on the emulated CPU).
struct Footing {
  Footing(std::vector<perfmon::EventGroup> events, const TargetSpec& where)
      : groups(std::move(events)), target(target_of(where)) {}
  Footing(const Footing&) = delete;
  Footing& operator=(const Footing&) = delete;

  std::vector<perfmon::EventGroup> groups;
  std::optional<perfmon::Workload> workload;
  std::optional<perfmon::EmulatedWorkload> emulated;
  perfmon::Target target;

 private:
  perfmon::Target target_of(const TargetSpec& where) {
    if (where.kind == "command") {
      if (where.command.empty()) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "the command is empty.");
      if (where.emulate) {
        emulated.emplace(where.command, perfmon::EmulatorOptions{}.enabled_for(groups));
        return perfmon::Target::emulated(*emulated);
      }
      workload.emplace(where.command);
      return perfmon::Target::workload(*workload);
    }
    if (where.emulate)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "emulate=True counts a command on the emulated CPU: give command=[...].");
    if (where.kind == "self") return perfmon::Target::self();
    if (where.kind == "thread") return perfmon::Target::thread(static_cast<pid_t>(where.id));
    if (where.kind == "process") return perfmon::Target::process(static_cast<pid_t>(where.id));
    if (where.kind == "cpus")
      return where.cpus.empty() ? perfmon::Target::all_cpus() : perfmon::Target::cpu_list(where.cpus);
    if (where.kind == "cgroup") return perfmon::Target::cgroup_on(where.cgroup, where.cpus);
    throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "no such target kind: '" + where.kind + "'.");
  }
};

// A counting session and what it stands on. Python holds one per `counters(...)`.
class Session {
 public:
  Session(const std::string& events, const TargetSpec& where, bool inherit, bool strict, bool skip_unsupported,
          bool error_bars)
      : Session(catalog().parse(events), where, inherit, strict, skip_unsupported, error_bars) {}
  Session(std::vector<perfmon::EventGroup> groups, const TargetSpec& where, bool inherit, bool strict,
          bool skip_unsupported, bool error_bars)
      : on_(std::move(groups), where) {
    perfmon::SessionOptions options;
    options.inherit = inherit;
    options.strict = strict;
    options.skip_unsupported = true;  // told below, all at once, with every reason
    options.error_bars = error_bars;
    session_.emplace(on_.groups, on_.target, options);
    if (!skip_unsupported) {
      std::string refused;
      for (std::size_t e = 0; e < session_->event_count(); ++e)
        if (!session_->supported(e)) refused += (refused.empty() ? "" : " ") + session_->unsupported_reason(e);
      if (!refused.empty()) throw perfmon::Error(perfmon::ErrorKind::Unsupported, refused);
    }
  }

  // Reads every group; an errno where a read failed.
  void read() {
    if (const int failed = session_->read(); failed != 0)
      throw perfmon::Error(perfmon::ErrorKind::System,
                           std::string("reading the counters failed (") + std::strerror(failed) + ").", failed);
    ++readings_;
  }
  // `with` on the session itself, entered and left in C++ (a Python frame each costs more than
  // the binding's own work): reset and start; stop and one read.
  // Blocks nest (a `with c:` inside a `with c:`, a recursive function under @counters): only
  // the outermost starts and ends the counting, so that its reading is the whole of it.
  void begin() {
    if (depth_ > 0) {
      ++depth_;
      return;
    }
    session_->reset();
    session_->start();
    depth_ = 1;
  }
  bool end() {
    if (depth_ > 1) {
      --depth_;
      return false;
    }
    depth_ = 0;
    session_->stop();
    read();
    return false;  // an exception in the block goes on
  }
  // How many readings so far: what was made of the last one is made anew when this changes.
  std::uint64_t readings() const { return readings_; }

  // Runs the command to its end, the counters on it; its exit code (128 + signal for a signal).
  int run_command() {
    if (!on_.workload && !on_.emulated)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this session counts no command.");
    session_->start();
    auto finish = [this] {
      session_->stop();
      read();
    };
    if (on_.workload) {
      on_.workload->start();
      return run_to_end(
          *on_.workload, [this] { wait_a_while_for(on_.workload->pid()); }, finish);
    }
    on_.emulated->start();
    return run_to_end(
        *on_.emulated, [this] { wait_a_while_for(on_.emulated->pid()); }, finish);
  }

  // The last read as numbers (reading_arrays).
  py::tuple values() const { return reading_arrays(session_->reading()); }
  perfmon::Reading reading() const { return session_->reading(); }
  bool emulated() const { return on_.emulated.has_value(); }
  std::vector<std::string> notes() const { return session_->reading().notes; }
  std::vector<std::string> summary() const { return session_->reading().summary; }

 private:
  Footing on_;
  std::optional<perfmon::CounterSession> session_;
  std::uint64_t readings_ = 0;
  int depth_ = 0;  // blocks entered and not left
};

// perfmon2's event sets: one set on the PMU at a time, each giving way to the next after
// `switch_ns` of the target's CPU time. Over a block of the calling thread the switches run in the
// library's signal handler, in the thread itself (nothing to drive from Python); over a command,
// run_command() drives them while it waits.
class SetsSession {
 public:
  SetsSession(const std::vector<std::string>& sets, const TargetSpec& where, std::int64_t switch_ns, bool inherit)
      : definitions_(definitions(sets, switch_ns)), on_(all_groups(definitions_), where) {
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
    sets_.emplace(definitions_, on_.target, options);
  }
  ~SetsSession() {  // the taker stops before the sets it switches go
    taker_.request_stop();
    if (taker_.joinable()) taker_.join();
  }
  SetsSession(const SetsSession&) = delete;
  SetsSession& operator=(const SetsSession&) = delete;

  // Runs the command to its end, switching the sets as their turns end; its exit code.
  int run_command() {
    if (!on_.workload) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "these sets count no command.");
    on_.workload->start();
    depth_ = 1;
    return run_to_end(
        *on_.workload, [this] { sets_->service(100); }, [this] { end(); });
  }

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
  static std::vector<perfmon::EventSetDefinition> definitions(const std::vector<std::string>& sets,
                                                              std::int64_t switch_ns) {
    if (sets.empty()) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "give at least one event set.");
    if (switch_ns <= 0)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "each set's turn is a positive time.");
    std::vector<perfmon::EventSetDefinition> definitions(sets.size());
    for (std::size_t k = 0; k < sets.size(); ++k) {
      definitions[k].id = static_cast<std::uint16_t>(k);
      definitions[k].groups = catalog().parse(sets[k]);
      definitions[k].timeout = std::chrono::nanoseconds(switch_ns);
    }
    return definitions;
  }
  static std::vector<perfmon::EventGroup> all_groups(const std::vector<perfmon::EventSetDefinition>& sets) {
    std::vector<perfmon::EventGroup> groups;
    for (const perfmon::EventSetDefinition& set : sets)
      groups.insert(groups.end(), set.groups.begin(), set.groups.end());
    return groups;
  }

  std::vector<perfmon::EventSetDefinition> definitions_;
  Footing on_;
  std::mutex serial_;
  std::condition_variable taken_;
  pid_t taker_tid_ = 0;
  std::optional<perfmon::EventSets> sets_;
  std::uint64_t readings_ = 0;
  int depth_ = 0;       // blocks entered and not left
  std::jthread taker_;  // last: it stops first
};

// A recording into a perf.data file, as perfmon record writes one: a sampler on the target, its
// rings drained into the file every 100 ms by a thread of its own while a block runs (made before
// the sampler opens, so that it is not itself sampled as a thread the target started), or by the
// caller while a command runs. The file is written whole or not at all (perfmon/output_file.hpp).
class Recording {
 public:
  Recording(const std::string& events, const TargetSpec& where, const std::string& output, std::uint64_t period,
            std::uint64_t frequency, bool callchains, bool inherit, std::size_t ring_pages,
            std::vector<std::string> command_line)
      : drainer_(std::make_unique<std::jthread>([this](std::stop_token stop) { drain_until(stop); })),
        command_line_(std::move(command_line)),
        out_(output, nullptr, 0666),
        on_(catalog().parse(events), where) {
    const int fd = out_.seekable_fd();
    if (fd < 0)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "cannot write a perf.data file to '" + output +
                               "': its header is written last, in place, which needs a regular file; give a file's "
                               "name.",
                           EINVAL);
    perfmon::SamplingOptions options;
    options.period = period;
    options.frequency = period == 0 ? frequency : 0;
    options.inherit = inherit;
    options.task_records = true;
    if (ring_pages != 0) options.ring_pages = ring_pages;
    if (callchains) options.sample_type |= PERF_SAMPLE_CALLCHAIN;
    for (const perfmon::EventGroup& group : on_.groups)
      for (const perfmon::Event& event : group.events)
        if (event.attr.type == PERF_TYPE_TRACEPOINT) options.sample_type |= PERF_SAMPLE_RAW;
    sampler_.emplace(on_.groups, on_.target, options);
    file_.emplace(fd, perfmon::recorded_events(*sampler_));
    file_->write_kernel_map();
    // What already runs is described as it is now: its threads' names and mappings.
    if (on_.target.cpu_wide())
      file_->write_every_process();
    else if (where.kind == "self")
      file_->write_process(::getpid());
    else if (where.kind != "command")
      file_->write_process(static_cast<pid_t>(where.id));
    records_.emplace(*file_);
  }

  ~Recording() {
    // In a child forked inside the block, the thread is the parent's and not here: nothing to stop
    // (its object is let go, never joined).
    if (forked()) {
      static_cast<void>(drainer_.release());
      return;
    }
    stop_draining();  // a block never ended: the thread stops before what it drains goes
  }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // A block: the sampler started, drained by the thread until end().
  void begin() {
    if (on_.workload) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this recording is of a command.");
    check_usable();
    sampler_->start();
    const std::lock_guard<std::mutex> told(lock_);
    draining_ = true;
    changed_.notify_all();
  }
  bool end() {
    if (forked()) return false;  // the parent's recording: its samples and file are the parent's
    stop_draining();
    sampler_->stop();
    finish();
    return false;  // an exception in the block goes on
  }

  // A command, run to its end while its samples are drained here; its exit code.
  int run_command() {
    if (!on_.workload) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this recording is of no command.");
    check_usable();
    stop_draining();
    on_.workload->start();
    return run_to_end(
        *on_.workload,
        [this] {
          sampler_->wait(100);
          sampler_->drain(*records_);
          file_->finish_round();
        },
        [this] { finish(); });
  }

  std::uint64_t samples() const { return sampler_->stats().samples; }
  // The samples lost by the events' own count; on a kernel that does not count them, the records.
  std::uint64_t lost() const { return lost_.samples_known ? lost_.samples : lost_.records; }
  std::uint64_t lost_records() const { return lost_.records; }
  std::vector<std::string> notes() const { return sampler_->notes(); }

 private:
  void drain_until(std::stop_token stop) {
    std::unique_lock<std::mutex> told(lock_);
    if (!changed_.wait(told, stop, [this] { return draining_; })) return;
    told.unlock();
    while (!stop.stop_requested()) {
      sampler_->wait(100);
      sampler_->drain(*records_);
      file_->finish_round();
    }
  }
  // The file finished, every sample dropped in it, and put in place.
  void finish() {
    finished_ = true;
    lost_ = perfmon::finish_recording(*sampler_, *file_, perfmon::describe_this_host(command_line_));
    out_.commit();
  }
  void stop_draining() {
    drainer_->request_stop();
    if (drainer_->joinable()) drainer_->join();
  }
  bool forked() const { return ::getpid() != owner_; }
  // A recording is one block or one command, in the process that made it.
  void check_usable() const {
    if (forked())
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "this recording belongs to process " + std::to_string(owner_) +
                               ", which forked this one: record here with a perfmonpy.record(...) of its own.",
                           EINVAL);
    if (finished_)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "this recording is finished and its file written: make a new perfmonpy.record(...) to "
                           "record again.",
                           EINVAL);
  }

  std::mutex lock_;
  std::condition_variable_any changed_;
  bool draining_ = false;
  const pid_t owner_ = ::getpid();
  bool finished_ = false;
  std::unique_ptr<std::jthread> drainer_;  // first but the owner: started before the sampler opens
  std::vector<std::string> command_line_;
  perfmon::OutputFile out_;
  Footing on_;
  std::optional<perfmon::Sampler> sampler_;
  std::optional<perfmon::PerfDataWriter> file_;
  std::optional<perfmon::PerfDataRecordWriter> records_;
  perfmon::RecordLoss lost_;
};

// A command once per pass of events that fit on the counters at once (perfmon/pass_plan.hpp), so
// that no event is multiplexed: one reading whose events say their pass ("pass1", ...), the passes'
// exit codes, and the plan as perfmon stat --plan prints it. Events that need no counter (software
// events, tracepoints) are counted in every pass: their spread says how alike the runs were.
py::tuple stat_passes(const std::string& events, const std::vector<std::string>& command, bool inherit) {
  const std::vector<perfmon::EventGroup> groups = catalog().parse(events);
  // Where the CPU does not say how many counters it has, events that need none still plan; the
  // planner refuses any that needs one, saying so.
  const perfmon::PassPlan plan = perfmon::plan_passes(
      groups, perfmon::counter_budget().value_or(perfmon::CounterBudget{0, {}, "the CPU does not say"}));
  TargetSpec where;
  where.kind = "command";
  where.command = command;
  perfmon::Reading merged;
  std::vector<int> exit_codes;
  for (std::size_t pass = 0; pass < plan.passes.size(); ++pass) {
    Session session(plan.groups_of(pass, groups), where, inherit, true, false, false);
    exit_codes.push_back(session.run_command());
    perfmon::Reading reading = session.reading();
    for (perfmon::ReadingEvent& event : reading.events) {
      event.label = "pass" + std::to_string(pass + 1);
      event.label_kind = "pass";
      merged.events.push_back(std::move(event));
    }
  }
  return py::make_tuple(reading_arrays(merged), exit_codes, perfmon::describe_plan(plan, groups));
}

// Whether each event of a list can be counted here: "" where it can, else why not and what to do.
std::vector<std::pair<std::string, std::string>> probe(const std::string& events) {
  std::vector<std::pair<std::string, std::string>> answers;
  for (const perfmon::EventGroup& group : catalog().parse(events))
    for (const perfmon::Event& event : group.events) answers.emplace_back(event.name, perfmon::probe_event(event.attr));
  return answers;
}

// Whether this machine can run commands on perfmon's emulated CPU, with what, and if not why.
py::dict emulator() {
  const perfmon::EmulatorInfo info = perfmon::emulator_info();
  py::dict answer;
  answer["available"] = info.available;
  answer["qemu"] = info.qemu;
  answer["plugin"] = info.plugin;
  answer["reason"] = info.reason;
  return answer;
}

// ---- perf.data into arrays

// A sample as one row of the samples array (numpy's structured dtype, declared below).
struct SampleRow {
  std::uint64_t time;
  std::uint32_t pid, tid;
  std::uint16_t cpu;
  std::uint16_t event;
  std::int32_t mapping;  // into the mappings table; -1: in none
  std::uint64_t ip;
  std::uint64_t period;
  std::int32_t symbol;  // into the symbols table; -1: no symbol covers the address
  std::int32_t dso;     // into the dsos table
  std::int32_t comm;    // into the comms table
  std::uint32_t chain_length;
  std::uint64_t chain_begin;  // into the frames arrays
};

// A mapping that samples fell in, as one row of the mappings array: the process's (-1: the
// kernel's), its addresses [start, end), the file offset at start, and the file.
struct MappingRow {
  std::int32_t pid;
  std::int32_t dso;
  std::uint64_t start, end, offset;
  bool operator==(const MappingRow&) const = default;
};

// Samples, their frames and names, as read() hands them on.
class ArrayCollector final : public perfmon::SampleHandler {
  // What a place is named by: ids into the tables (-1: none).
  struct Named {
    std::int32_t symbol = -1, dso = -1, mapping = -1;
  };

 public:
  ArrayCollector(bool callchains, bool symbols, std::shared_ptr<perfmon::SymbolTables> tables)
      : callchains_(callchains), symbols_(symbols), symbolizer_(std::move(tables)) {}

  void record(const perf_event_header& record) override {
    context(record);
    lost_.add(record);
  }
  // What the records before this share's say of the processes (read in shares).
  void context(const perf_event_header& record) override {
    symbolizer_.record(record);
    // A process's addresses may mean something else after its mappings or command change.
    if (record.type == PERF_RECORD_MMAP || record.type == PERF_RECORD_MMAP2 || record.type == PERF_RECORD_COMM ||
        record.type == PERF_RECORD_FORK || record.type == PERF_RECORD_EXIT)
      forget_places();
    if (record.type == PERF_RECORD_COMM || record.type == PERF_RECORD_FORK || record.type == PERF_RECORD_EXIT) {
      thread_comms_.clear();
      last_comm_ = nullptr;
    }
  }
  void sample(std::size_t event, const perfmon::Sample& sample) override {
    const bool kernel =
        sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    const Named& leaf = name(sample.pid, sample.ip, kernel);
    SampleRow row{sample.time,
                  sample.pid,
                  sample.tid,
                  static_cast<std::uint16_t>(sample.cpu),
                  static_cast<std::uint16_t>(event),
                  leaf.mapping,
                  sample.ip,
                  sample.period,
                  leaf.symbol,
                  leaf.dso,
                  comm_id(sample.tid),
                  0,
                  frame_ips_.size()};
    if (callchains_ && !sample.callchain.empty()) {
      perfmon::Symbolizer::for_each_frame(symbolizer_.callchain(event, sample), kernel,
                                          [&](std::uint64_t ip, bool in_kernel) {
                                            frame_ips_.push_back(ip);
                                            frame_symbols_.push_back(name(sample.pid, ip, in_kernel).symbol);
                                            ++row.chain_length;
                                          });
    }
    rows_.push_back(row);
  }

  // Another share's samples after these, their ids made this one's (the tables are this one's, the
  // other's names added where new).
  void absorb(ArrayCollector& other) {
    std::vector<std::int32_t> dsos(other.dsos_.size()), comms(other.comms_.size()),
        symbols(other.symbols_table_.size()), mappings(other.mappings_.size());
    for (std::size_t k = 0; k < other.dsos_.size(); ++k) dsos[k] = dso_id(other.dsos_[k]);
    for (std::size_t k = 0; k < other.comms_.size(); ++k) comms[k] = named_comm_id(other.comms_[k]);
    for (std::size_t k = 0; k < other.symbol_functions_.size(); ++k)  // in the order they were met
      symbols[k] =
          symbol_id(other.symbol_functions_[k], dsos[static_cast<std::size_t>(other.symbols_table_[k].second)]);
    for (std::size_t k = 0; k < other.mappings_.size(); ++k) {
      MappingRow mapping = other.mappings_[k];
      mapping.dso = dsos[static_cast<std::size_t>(mapping.dso)];
      mappings[k] = mapping_id(mapping);
    }
    auto mapped = [](const std::vector<std::int32_t>& ids, std::int32_t id) {
      return id < 0 ? id : ids[static_cast<std::size_t>(id)];
    };
    const std::uint64_t frames_before = frame_ips_.size();
    for (SampleRow row : other.rows_) {
      row.symbol = mapped(symbols, row.symbol);
      row.dso = mapped(dsos, row.dso);
      row.comm = mapped(comms, row.comm);
      row.mapping = mapped(mappings, row.mapping);
      row.chain_begin += frames_before;
      rows_.push_back(row);
    }
    frame_ips_.insert(frame_ips_.end(), other.frame_ips_.begin(), other.frame_ips_.end());
    for (std::int32_t symbol : other.frame_symbols_) frame_symbols_.push_back(mapped(symbols, symbol));
    lost_ += other.lost_;
  }

  std::vector<SampleRow> rows_;
  std::vector<std::uint64_t> frame_ips_;
  std::vector<std::int32_t> frame_symbols_;
  std::vector<std::pair<std::string, std::int32_t>> symbols_table_;  // name, dso
  std::vector<std::string> dsos_, comms_;
  std::vector<MappingRow> mappings_;
  std::vector<const std::string_view*> symbol_functions_;  // by symbol id: the function's, in the symbol tables
  perfmon::RecordLoss lost_;

 private:
  void forget_places() {
    named_.clear();
    last_named_ = nullptr;
  }
  // An address's symbol, file and mapping, named once while its process's mappings stay as they
  // are: a profile's samples come back to the same places again and again.
  const Named& name(std::uint32_t pid, std::uint64_t ip, bool kernel) {
    static const Named unnamed;
    if (!symbols_) return unnamed;
    const PlaceKey place{ip, pid, kernel};
    if (last_named_ != nullptr && last_named_->first == place) return last_named_->second;  // where the last one was
    const auto [cached, added] = named_.try_emplace(place);
    if (added) cached->second = name_anew(pid, ip, kernel);
    last_named_ = &*cached;
    return cached->second;
  }
  Named name_anew(std::uint32_t pid, std::uint64_t ip, bool kernel) {
    const perfmon::NamedAddress named = symbolizer_.name(pid, ip, kernel);
    Named ids;
    ids.dso = dso_id(named.place.file);
    if (named.place.mapping_end != 0)
      ids.mapping = mapping_id({named.kernel ? -1 : static_cast<std::int32_t>(pid), ids.dso, named.place.mapping_start,
                                named.place.mapping_end, named.place.mapping_offset});
    if (named.function != nullptr) ids.symbol = symbol_id(named.function, ids.dso);
    return ids;
  }
  // Ids in this collector's tables, a name added where new.
  std::int32_t dso_id(const std::string& file) {
    const auto [found, added] = dso_ids_.try_emplace(file, static_cast<std::int32_t>(dsos_.size()));
    if (added) dsos_.push_back(file);
    return found->second;
  }
  std::int32_t named_comm_id(const std::string& comm) {
    const auto [found, added] = comm_ids_.try_emplace(comm, static_cast<std::int32_t>(comms_.size()));
    if (added) comms_.push_back(comm);
    return found->second;
  }
  std::int32_t symbol_id(const std::string_view* function, std::int32_t dso) {
    const auto [found, added] =
        symbol_ids_.try_emplace(SymbolKey{function, dso}, static_cast<std::int32_t>(symbols_table_.size()));
    if (added) {
      symbols_table_.emplace_back(std::string(*function), dso);
      symbol_functions_.push_back(function);
    }
    return found->second;
  }
  std::int32_t mapping_id(const MappingRow& mapping) {
    const auto [found, added] = mapping_ids_.try_emplace(mapping, static_cast<std::int32_t>(mappings_.size()));
    if (added) mappings_.push_back(mapping);
    return found->second;
  }
  // A thread's command, named once while no COMM, FORK or EXIT record comes.
  std::int32_t comm_id(std::uint32_t tid) {
    if (last_comm_ != nullptr && last_comm_->first == tid) return last_comm_->second;
    const auto [cached, added] = thread_comms_.try_emplace(tid, 0);
    last_comm_ = &*cached;
    if (!added) return cached->second;
    return cached->second = named_comm_id(symbolizer_.spaces().command(tid));
  }

  struct MappingHash {
    std::size_t operator()(const MappingRow& mapping) const noexcept {
      return std::hash<std::uint64_t>()(mapping.start ^ (mapping.end << 1) ^
                                        (std::uint64_t(std::uint32_t(mapping.pid)) << 40));
    }
  };
  struct PlaceKey {
    std::uint64_t ip;
    std::uint32_t pid;
    bool kernel;
    bool operator==(const PlaceKey&) const = default;
  };
  struct PlaceKeyHash {
    std::size_t operator()(const PlaceKey& key) const noexcept {
      return std::hash<std::uint64_t>()(key.ip ^ (std::uint64_t{key.pid} << 40) ^ (std::uint64_t{key.kernel} << 63));
    }
  };
  struct SymbolKey {
    const std::string_view* function;
    std::int32_t dso;
    bool operator==(const SymbolKey&) const = default;
  };
  struct SymbolKeyHash {
    std::size_t operator()(const SymbolKey& key) const noexcept {
      return std::hash<const void*>()(key.function) * 31 + static_cast<std::size_t>(key.dso);
    }
  };

  bool callchains_, symbols_;
  perfmon::Symbolizer symbolizer_;
  std::unordered_map<PlaceKey, Named, PlaceKeyHash> named_;
  std::unordered_map<MappingRow, std::int32_t, MappingHash> mapping_ids_;
  std::unordered_map<SymbolKey, std::int32_t, SymbolKeyHash> symbol_ids_;
  std::unordered_map<std::uint32_t, std::int32_t> thread_comms_;
  const std::pair<const PlaceKey, Named>* last_named_ = nullptr;
  const std::pair<const std::uint32_t, std::int32_t>* last_comm_ = nullptr;
  std::unordered_map<std::string, std::int32_t> dso_ids_, comm_ids_;
};

// A vector handed to numpy as it is, without a copy: the array owns it and frees it when it goes.
template <class T>
py::array handed_over(std::vector<T>&& values, const py::dtype& type) {
  auto owned = std::make_unique<std::vector<T>>(std::move(values));
  const py::capsule owner(owned.get(), [](void* vector) { delete static_cast<std::vector<T>*>(vector); });
  std::vector<T>& held = *owned.release();  // the capsule's from here
  return py::array(type, {static_cast<py::ssize_t>(held.size())}, {static_cast<py::ssize_t>(sizeof(T))}, held.data(),
                   owner);
}

// Names from a recording (commands, files, symbols) as Python's os module gives names: bytes that
// are not UTF-8 (a command named in Latin-1) as surrogate escapes, never a UnicodeDecodeError.
py::str os_text(const std::string& bytes) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape"));
}
py::list os_texts(const std::vector<std::string>& list) {
  py::list texts;
  for (const std::string& bytes : list) texts.append(os_text(bytes));
  return texts;
}

py::dict read_perf_data(const std::string& path, bool callchains, bool symbols, std::size_t threads) {
  std::optional<perfmon::PerfDataReader> reader;
  std::unique_ptr<ArrayCollector> collector;
  const auto tables = std::make_shared<perfmon::SymbolTables>();
  {
    py::gil_scoped_release others_run;
    reader.emplace(path);
    if (threads == 0) threads = reader->threads_worth();
    // Each file's symbols read once, whichever share names an address in it first.
    tables->expect_build_ids(reader->build_ids());
    bool first = true;
    collector = reader->read_merged<ArrayCollector>(
        threads,
        [&] {
          auto share = std::make_unique<ArrayCollector>(callchains, symbols, tables);
          if (std::exchange(first, false)) share->rows_.reserve(reader->outlook().records);  // all end there
          return share;
        },
        [](ArrayCollector& into, ArrayCollector& later) { into.absorb(later); });
  }
  ArrayCollector& collected = *collector;
  py::dict file;
  file["samples"] = handed_over(std::move(collected.rows_), py::dtype::of<SampleRow>());
  file["frame_ips"] = handed_over(std::move(collected.frame_ips_), py::dtype::of<std::uint64_t>());
  file["frame_symbols"] = handed_over(std::move(collected.frame_symbols_), py::dtype::of<std::int32_t>());
  file["mappings"] = handed_over(std::move(collected.mappings_), py::dtype::of<MappingRow>());
  py::list events;
  for (const perfmon::PerfDataEvent& event : reader->events()) events.append(os_text(event.name));
  file["events"] = events;
  py::list symbols_table;
  for (const auto& [name, dso] : collected.symbols_table_) symbols_table.append(py::make_tuple(os_text(name), dso));
  file["symbols"] = symbols_table;
  file["dsos"] = os_texts(collected.dsos_);
  file["comms"] = os_texts(collected.comms_);
  file["lost"] = collected.lost_.samples;
  file["lost_records"] = collected.lost_.records;
  file["hostname"] = os_text(reader->hostname());
  file["changed_files"] = tables->changed_files();
  file["build_ids"] = reader->build_ids();
  return file;
}

}  // namespace

PYBIND11_MODULE(_perfmonpy, module) {
  module.doc() = "perfmon's C++ API for Python; import perfmonpy instead (docs/python.md).";

  py::register_exception_translator([](std::exception_ptr raised) {
    try {
      if (raised) std::rethrow_exception(raised);
    } catch (const perfmon::Error& error) {
      const py::object raise = py::module_::import("perfmonpy.errors").attr("_raise_from_library");
      // _raise_from_library builds the exception; setting it here raises it in the caller.
      const py::object exception = raise(error.what(), error.errnum(), kind_name(error.kind()));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
    }
  });

  py::class_<TargetSpec>(module, "TargetSpec")
      .def(py::init<>())
      .def_readwrite("kind", &TargetSpec::kind)
      .def_readwrite("id", &TargetSpec::id)
      .def_readwrite("cpus", &TargetSpec::cpus)
      .def_readwrite("cgroup", &TargetSpec::cgroup)
      .def_readwrite("command", &TargetSpec::command)
      .def_readwrite("emulate", &TargetSpec::emulate);

  py::class_<Session>(module, "Session")
      .def(py::init<const std::string&, const TargetSpec&, bool, bool, bool, bool>(), py::arg("events"),
           py::arg("target"), py::arg("inherit"), py::arg("strict"), py::arg("skip_unsupported"), py::arg("error_bars"))
      .def("read", &Session::read)
      .def("__enter__",
           [](py::object self) {
             self.cast<Session&>().begin();
             return self;
           })
      .def("__exit__",
           [](Session& session, const py::object&, const py::object&, const py::object&) { return session.end(); })
      .def_property_readonly("readings", &Session::readings)
      .def("run_command", &Session::run_command)
      .def_property_readonly("emulated", &Session::emulated)
      .def_property_readonly("notes", &Session::notes)
      .def_property_readonly("summary", &Session::summary)
      .def("value_arrays", &Session::values);

  py::class_<SetsSession>(module, "EventSets")
      .def(py::init<const std::vector<std::string>&, const TargetSpec&, std::int64_t, bool>(), py::arg("sets"),
           py::arg("target"), py::arg("switch_ns"), py::arg("inherit"))
      .def("run_command", &SetsSession::run_command)
      .def("__enter__",
           [](py::object self) {
             self.cast<SetsSession&>().begin();
             return self;
           })
      .def("__exit__",
           [](SetsSession& sets, const py::object&, const py::object&, const py::object&) { return sets.end(); })
      .def_property_readonly("readings", &SetsSession::readings)
      .def_property_readonly("turns", &SetsSession::turns)
      .def_property_readonly("emulated", [](const SetsSession&) { return false; })
      .def_property_readonly("notes", &SetsSession::notes)
      .def_property_readonly("summary", &SetsSession::summary)
      .def("value_arrays", &SetsSession::values);

  py::class_<Recording>(module, "Recording")
      .def(py::init<const std::string&, const TargetSpec&, const std::string&, std::uint64_t, std::uint64_t, bool, bool,
                    std::size_t, std::vector<std::string>>(),
           py::arg("events"), py::arg("target"), py::arg("output"), py::arg("period"), py::arg("frequency"),
           py::arg("callchains"), py::arg("inherit"), py::arg("ring_pages"), py::arg("command_line"))
      .def("__enter__",
           [](py::object self) {
             self.cast<Recording&>().begin();
             return self;
           })
      .def("__exit__", [](Recording& recording, const py::object&, const py::object&,
                          const py::object&) { return recording.end(); })
      .def("run_command", &Recording::run_command)
      .def_property_readonly("samples", &Recording::samples)
      .def_property_readonly("lost", &Recording::lost)
      .def_property_readonly("lost_records", &Recording::lost_records)
      .def_property_readonly("notes", &Recording::notes);

  module.def("probe", &probe, py::arg("events"));
  module.def("emulator", &emulator);
  module.def("stat_passes", &stat_passes, py::arg("events"), py::arg("command"), py::arg("inherit"));

  PYBIND11_NUMPY_DTYPE(SampleRow, time, pid, tid, cpu, event, mapping, ip, period, symbol, dso, comm, chain_length,
                       chain_begin);
  PYBIND11_NUMPY_DTYPE(MappingRow, pid, dso, start, end, offset);
  module.def("read_perf_data", &read_perf_data, py::arg("path"), py::arg("callchains") = true,
             py::arg("symbols") = true, py::arg("threads") = 0);
}
