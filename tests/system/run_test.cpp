// SPDX-License-Identifier: Apache-2.0
// The run layer against the running kernel: a measurement of a command run to its end counts its
// calls exactly, the caller's hooks are called and can end it, and a recording writes every sample
// of a command (or of samplers the caller holds, one let go before the end) into a file read back.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../helpers/system_calls.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/recording.hpp"

namespace perfmon {
namespace {

using testing::call_getppid;
using testing::catalog;

// A file of its own in the test's temporary directory, gone at the end.
struct ScratchFile {
  ScratchFile() : path(std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/run-test-XXXXXX") {
    fd = ::mkstemp(path.data());
  }
  ~ScratchFile() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string path;
  int fd;
};

struct SampleCount : SampleHandler {
  std::size_t samples = 0;
  std::uint64_t lost_records = 0;
  void sample(std::size_t, const Sample&) override { ++samples; }
  void record(const perf_event_header& header) override {
    if (header.type == PERF_RECORD_LOST_SAMPLES) ++lost_records;
  }
};

std::size_t samples_in(const std::string& path) {
  SampleCount count;
  PerfDataReader(path).read(count);
  return count.samples;
}

MeasurementRequest getppid_calls_of(std::vector<std::string> command) {
  MeasurementRequest request;
  request.groups = catalog().parse("syscalls:sys_enter_getppid");
  request.command = std::move(command);
  return request;
}

TEST(Run, CountsACommandsCallsExactlyWithItsExitAndTime) {
  std::unique_ptr<Measurement> measurement = measure(getppid_calls_of({WORKER, "getppid", "2500"}));
  RunHooks nothing_to_add;
  const RunResult result = run(*measurement, nothing_to_add);
  ASSERT_EQ(result.reading.events.size(), 1u);
  EXPECT_EQ(result.reading.events[0].value.raw, 2500u);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->exit_code(), 0);
  EXPECT_FALSE(result.interrupted);
  EXPECT_GT(result.elapsed.count(), 0);
}

TEST(Run, AWorkloadThatCannotStartIsAnErrorNotARun) {
  std::unique_ptr<Measurement> measurement = measure(getppid_calls_of({"/nonexistent/command"}));
  RunHooks nothing_to_add;
  EXPECT_THROW(run(*measurement, nothing_to_add), Error);
}

// Ticks counted, and after three of them a Ctrl-C as Python passes one on: the command ends by it.
struct ThreeTicksThenInterrupt : RunHooks {
  int ticks = 0, starts = 0;
  void started() override { ++starts; }
  void tick(std::chrono::nanoseconds since_last) override {
    ++ticks;
    EXPECT_GT(since_last.count(), 0);
  }
  int interruption() override { return ticks >= 3 ? SIGINT : 0; }
};

TEST(Run, TheCallersHooksTickAndTheirInterruptionEndsTheCommand) {
  MeasurementRequest request;
  request.groups = catalog().parse("task-clock");
  request.command = {"sleep", "30"};
  std::unique_ptr<Measurement> measurement = measure(request);
  ThreeTicksThenInterrupt hooks;
  RunOptions options;
  options.tick = std::chrono::milliseconds(10);
  const RunResult result = run(*measurement, hooks, options);
  EXPECT_EQ(hooks.starts, 1);
  EXPECT_GE(hooks.ticks, 3);
  EXPECT_TRUE(result.interrupted);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->exit_code(), 128 + SIGINT);
  EXPECT_LT(result.elapsed, std::chrono::seconds(20));
}

// A descriptor of the caller's wakes the run: what is read from it may end it.
struct PipeReader : RunHooks {
  int fd;
  bool quit = false;
  explicit PipeReader(int read_end) : fd(read_end) {}
  std::vector<int> wake_fds() const override { return {fd}; }
  void woken() override {
    char key;
    quit = ::read(fd, &key, 1) == 1 && key == 'q';
  }
  int interruption() override { return quit ? SIGINT : 0; }
};

TEST(Run, ADescriptorOfTheCallersWakesItAndWithoutACommandAStopEndsIt) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  MeasurementRequest request;  // the calling process: no command
  request.groups = catalog().parse("syscalls:sys_enter_getppid");
  std::unique_ptr<Measurement> measurement = measure(request);
  PipeReader keys(ends[0]);
  ASSERT_EQ(::write(ends[1], "q", 1), 1);
  const RunResult result = run(*measurement, keys);  // no tick, no deadline: only the pipe wakes it
  EXPECT_TRUE(keys.quit);
  EXPECT_TRUE(result.interrupted);
  EXPECT_FALSE(result.exit.has_value());
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(Run, EventSetsOverAnotherThreadWithoutRunAreSwitchedByAThreadOfTheirOwn) {
  std::atomic<pid_t> spinner_tid{0};
  std::atomic<bool> go{false};
  std::thread spinner([&] {
    spinner_tid = static_cast<pid_t>(::gettid());
    while (!go) std::this_thread::yield();
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < end) call_getppid(100);
  });
  while (spinner_tid == 0) std::this_thread::yield();
  MeasurementRequest request;
  request.target.tids = {spinner_tid};
  SetSwitching every_ms;
  every_ms.timeout = std::chrono::milliseconds(1);
  request.sets = event_sets_of(catalog(), {"syscalls:sys_enter_getppid,task-clock", "task-clock"}, every_ms);
  request.own_switching_thread = true;
  std::unique_ptr<Measurement> measurement = measure(request);
  EXPECT_EQ(measurement->signal_number(), 0);  // nothing for run() to take: its own thread does
  measurement->start();
  go = true;
  spinner.join();
  measurement->stop();
  ASSERT_EQ(measurement->read(), 0);
  const Reading reading = measurement->reading();
  ASSERT_EQ(reading.turns.size(), 2u);
  for (const ReadingTurns& set : reading.turns) EXPECT_GE(set.runs, 5u) << set.label;  // 300 ms of 1 ms turns
  EXPECT_GT(reading.events.at(0).value.raw, 0u);
}

TEST(Recording, ACommandsEverySampleIsInTheFile) {
  ScratchFile file;
  Workload workload({WORKER, "getppid", "1500"});
  CommandOf<Workload> command(workload);
  SamplingOptions every_call;
  every_call.period = 1;
  every_call.task_records = true;
  Recording recording(file.fd, catalog().parse("syscalls:sys_enter_getppid"), Target::workload(workload), every_call,
                      {});
  RunHooks nothing_to_add;
  const RunResult result = recording.record(&command, nothing_to_add);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->exit_code(), 0);
  const RecordLoss lost = recording.finish(PerfDataHost{});
  EXPECT_EQ(lost.sentence(), "");
  EXPECT_EQ(recording.sampler().stats().samples, 1500u);
  EXPECT_EQ(samples_in(file.path), 1500u);
}

TEST(Recording, SamplersOfTheCallersOneLetGoBeforeTheEndAreAllInTheFile) {
  ScratchFile file;
  SamplingOptions every_call;
  every_call.period = 1;
  every_call.inherit = false;
  std::vector<EventGroup> getppid = catalog().parse("syscalls:sys_enter_getppid");
  auto first = std::make_unique<Sampler>(getppid, Target::self(), every_call);
  Sampler second(getppid, Target::self(), every_call);
  Recording recording(file.fd, {first.get(), &second});
  recording.describe(::getpid());
  recording.start();
  call_getppid(200);
  first->stop();
  recording.release(*first);  // its 200 samples written now
  first.reset();              // closed before the end, as libpmc's pmc_release does
  call_getppid(100);
  recording.stop();
  const RecordLoss lost = recording.finish(PerfDataHost{});
  EXPECT_EQ(lost.sentence(), "");
  EXPECT_EQ(samples_in(file.path), 200u + 300u);  // the first sampler's 200, the second's 300
}

}  // namespace
}  // namespace perfmon
