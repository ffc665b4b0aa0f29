// SPDX-License-Identifier: Apache-2.0
// perfmonpy: recordings into perf.data files, of a block or a command (record(...), record_command(...)).
#include "measuring.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include "perfmon/output_file.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/recording.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/workload.hpp"

namespace perfmonpy {

namespace {

// A recording into a perf.data file, as perfmon record writes one (perfmon::Recording), drained
// every 100 ms by a thread of its own while a block runs (made before the sampler opens, so that it
// is not itself sampled as a thread the target started), or by the run layer while a command runs.
// The file is written whole or not at all (perfmon/output_file.hpp).
class Recording {
 public:
  Recording(const std::string& events, const TargetSpec& where, const std::string& output, std::uint64_t period,
            std::uint64_t frequency, bool callchains, bool inherit, std::size_t ring_pages,
            std::vector<std::string> command_line)
      : drainer_(std::make_unique<std::jthread>([this](std::stop_token stop) { drain_until(stop); })),
        command_line_(std::move(command_line)),
        out_(output, nullptr, 0666) {
    const int fd = out_.seekable_fd();
    if (fd < 0)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "cannot write a perf.data file to '" + output +
                               "': its header is written last, in place, which needs a regular file; give a file's "
                               "name.",
                           EINVAL);
    const perfmon::MeasurementRequest request = request_of(where);
    if (request.emulate)
      throw perfmon::Error(
          perfmon::ErrorKind::InvalidArgument,
          "recordings sample on the host's PMU: the emulated CPU records with perfmon record --emulate.");
    const std::vector<perfmon::EventGroup> groups = catalog().parse(events);
    if (!request.command.empty()) command_.emplace(workload_.emplace(request.command));
    const perfmon::Target target = perfmon::make_target(request.target, workload_ ? &*workload_ : nullptr);
    perfmon::SamplingOptions options;
    options.period = period;
    options.frequency = period == 0 ? frequency : 0;
    options.inherit = inherit;
    options.task_records = true;
    if (ring_pages != 0) options.ring_pages = ring_pages;
    if (callchains) options.sample_type |= PERF_SAMPLE_CALLCHAIN;
    for (const perfmon::EventGroup& group : groups)
      for (const perfmon::Event& event : group.events)
        if (event.attr.type == PERF_TYPE_TRACEPOINT) options.sample_type |= PERF_SAMPLE_RAW;
    // What already runs is described as it is now: its threads' names and mappings.
    std::vector<pid_t> described = request.target.pids;
    described.insert(described.end(), request.target.tids.begin(), request.target.tids.end());
    if (where.kind == "self") described.push_back(::getpid());
    recording_.emplace(fd, groups, target, options, described);
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

  // A block: sampling on, drained by the thread until end().
  void begin() {
    if (command_) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this recording is of a command.");
    check_usable();
    recording_->start();
    const std::lock_guard<std::mutex> told(lock_);
    draining_ = true;
    changed_.notify_all();
  }
  bool end() {
    if (forked()) return false;  // the parent's recording: its samples and file are the parent's
    stop_draining();
    recording_->stop();
    finish();
    return false;  // an exception in the block goes on
  }

  // A command, run to its end while its samples are drained; its exit code.
  int run_command() {
    if (!command_) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this recording is of no command.");
    check_usable();
    stop_draining();
    return record_to_end(*recording_, &*command_, [this] { finish(); });
  }

  std::uint64_t samples() const { return recording_->sampler().stats().samples; }
  // The samples lost by the events' own count; on a kernel that does not count them, the records.
  std::uint64_t lost() const { return lost_.samples_known ? lost_.samples : lost_.records; }
  std::uint64_t lost_records() const { return lost_.records; }
  std::vector<std::string> notes() const { return recording_->sampler().notes(); }

 private:
  void drain_until(std::stop_token stop) {
    std::unique_lock<std::mutex> told(lock_);
    if (!changed_.wait(told, stop, [this] { return draining_; })) return;
    told.unlock();
    while (!stop.stop_requested()) recording_->wait_and_drain(100);
  }
  // The file finished, every sample dropped in it, and put in place.
  void finish() {
    finished_ = true;
    lost_ = recording_->finish(perfmon::describe_this_host(command_line_));
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
  std::optional<perfmon::Workload> workload_;
  std::optional<perfmon::CommandOf<perfmon::Workload>> command_;
  std::optional<perfmon::Recording> recording_;
  perfmon::RecordLoss lost_;
};

}  // namespace

void bind_recording(py::module_& module) {
  py::class_<Recording> recording(module, "Recording");
  with_block(recording)
      .def(py::init<const std::string&, const TargetSpec&, const std::string&, std::uint64_t, std::uint64_t, bool, bool,
                    std::size_t, std::vector<std::string>>(),
           py::arg("events"), py::arg("target"), py::arg("output"), py::arg("period"), py::arg("frequency"),
           py::arg("callchains"), py::arg("inherit"), py::arg("ring_pages"), py::arg("command_line"))
      .def("run_command", &Recording::run_command)
      .def_property_readonly("samples", &Recording::samples)
      .def_property_readonly("lost", &Recording::lost)
      .def_property_readonly("lost_records", &Recording::lost_records)
      .def_property_readonly("notes", &Recording::notes);
}

}  // namespace perfmonpy
