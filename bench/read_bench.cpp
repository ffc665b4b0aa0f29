// SPDX-License-Identifier: Apache-2.0
// Counter-read overhead: the library against the raw system calls it wraps, measured in the same run.
//   build/bench/read_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/scope.hpp"
#include "perfmon/session.hpp"

// The region libraries' calls (likwid-marker.h, papi.h), linked from libperfmon-likwid and
// libperfmon-papi.
extern "C" {
void likwid_markerInit(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char* tag);
int likwid_markerStartRegion(const char* tag);
int likwid_markerStopRegion(const char* tag);
int PAPI_hl_region_begin(const char* region);
int PAPI_hl_region_end(const char* region);
}

namespace {

constexpr const char* kGroup = "{task-clock,page-faults,context-switches,minor-faults}";
constexpr std::array<std::uint64_t, 4> kConfigs = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
                                                   PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_PAGE_FAULTS_MIN};
constexpr std::uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;

// The same group opened by hand, as a program without perfmon would.
struct RawGroup {
  std::array<int, 4> fds{};
  RawGroup() {
    for (std::size_t i = 0; i < kConfigs.size(); ++i) {
      perf_event_attr attr{};
      attr.size = sizeof attr;
      attr.type = PERF_TYPE_SOFTWARE;
      attr.config = kConfigs[i];
      attr.read_format = kReadFormat;
      attr.disabled = i == 0;
      fds[i] = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, i == 0 ? -1 : fds[0], 0));
    }
    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  }
  ~RawGroup() {
    for (int fd : fds) close(fd);
  }
};

// The raw pair a start and stop (or a region) is compared with: the group on and off again.
void raw_enable_disable(const RawGroup& group) {
  ioctl(group.fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  ioctl(group.fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

perfmon::CounterSession make_session() {
  perfmon::SessionOptions options;
  options.inherit = false;
  return perfmon::CounterSession(perfmon::EventCatalog().parse(kGroup), perfmon::Target::self(), options);
}

void BM_RawGroupRead(benchmark::State& state) {
  RawGroup group;
  std::array<std::uint64_t, 3 + 4 * 3> buffer{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(read(group.fds[0], buffer.data(), sizeof buffer));
    benchmark::DoNotOptimize(buffer[3]);
  }
}
BENCHMARK(BM_RawGroupRead);

void BM_SessionGroupRead(benchmark::State& state) {
  perfmon::CounterSession session = make_session();
  session.start();
  for (auto _ : state) {
    benchmark::DoNotOptimize(session.read());
    benchmark::DoNotOptimize(session.value(0).raw);
  }
}
BENCHMARK(BM_SessionGroupRead);

void BM_RawStartStop(benchmark::State& state) {
  RawGroup group;
  for (auto _ : state) {
    ioctl(group.fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    ioctl(group.fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  }
}
BENCHMARK(BM_RawStartStop);

void BM_SessionStartStop(benchmark::State& state) {
  perfmon::CounterSession session = make_session();
  for (auto _ : state) {
    session.start();
    session.stop();
  }
}
BENCHMARK(BM_SessionStartStop);

// A region as `with perfmonpy.counters(...)` counts one (bench/python_vs_cpp.py): reset and start,
// then stop and one read.
void BM_SessionRegion(benchmark::State& state) {
  perfmon::CounterSession session = make_session();
  for (auto _ : state) {
    session.reset();
    session.start();
    session.stop();
    benchmark::DoNotOptimize(session.read());
  }
}
BENCHMARK(BM_SessionRegion);

// The ratios the project tracks, measured by alternating small batches of the raw and the library
// operation inside one loop, so that the machine's drift affects both alike.
template <typename Raw, typename Library>
void alternate(benchmark::State& state, Raw raw, Library library) {
  constexpr int kBatch = 200;
  double raw_ns = 0, library_ns = 0;
  auto batch = [](auto& operation) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) operation();
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  };
  bool raw_first = true;  // alternate the order too: the second batch of a pair runs warmer
  for (auto _ : state) {
    if (raw_first) {
      raw_ns += batch(raw);
      library_ns += batch(library);
    } else {
      library_ns += batch(library);
      raw_ns += batch(raw);
    }
    raw_first = !raw_first;
  }
  const double operations = static_cast<double>(state.iterations()) * kBatch;
  state.counters["raw_ns"] = raw_ns / operations;
  state.counters["perfmon_ns"] = library_ns / operations;
  state.counters["ratio"] = library_ns / raw_ns;
}

void BM_ReadRatio(benchmark::State& state) {
  RawGroup group;
  perfmon::CounterSession session = make_session();
  session.start();
  std::array<std::uint64_t, 3 + 4 * 3> buffer{};
  alternate(
      state, [&] { benchmark::DoNotOptimize(read(group.fds[0], buffer.data(), sizeof buffer)); },
      [&] { benchmark::DoNotOptimize(session.read()); });
}
BENCHMARK(BM_ReadRatio)->Iterations(500);

void BM_StartStopRatio(benchmark::State& state) {
  perfmon::CounterSession session = make_session();
  RawGroup group;
  alternate(
      state, [&] { raw_enable_disable(group); },
      [&] {
        session.start();
        session.stop();
      });
}
BENCHMARK(BM_StartStopRatio)->Iterations(200);

void BM_Calibration(benchmark::State& state) {
  RawGroup a, b;
  std::array<std::uint64_t, 3 + 4 * 3> buffer{};
  alternate(
      state, [&] { benchmark::DoNotOptimize(read(a.fds[0], buffer.data(), sizeof buffer)); },
      [&] { benchmark::DoNotOptimize(read(b.fds[0], buffer.data(), sizeof buffer)); });
}
BENCHMARK(BM_Calibration)->Iterations(500);

void BM_CalibrationStartStop(benchmark::State& state) {
  RawGroup a, b;
  alternate(
      state, [&] { raw_enable_disable(a); }, [&] { raw_enable_disable(b); });
}
BENCHMARK(BM_CalibrationStartStop)->Iterations(200);

// An event-set switch (perfmon2 §3.7): the outgoing set's group disabled, the next one enabled, the
// outgoing one read for its slice. Raw: the same three system calls on two groups opened by hand.
void BM_EventSetSwitchRatio(benchmark::State& state) {
  RawGroup a, b;
  ioctl(b.fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  std::array<std::uint64_t, 3 + 4 * 3> buffer{};
  bool a_on = true;
  std::vector<perfmon::EventSetDefinition> definitions(2);
  for (std::uint16_t id = 0; id < 2; ++id) {
    definitions[id].id = id;
    definitions[id].groups = perfmon::EventCatalog().parse(kGroup);
  }
  perfmon::EventSetOptions options;
  options.session.inherit = false;
  perfmon::EventSets sets(definitions, perfmon::Target::self(), options);
  sets.start();
  alternate(
      state,
      [&] {
        RawGroup& from = a_on ? a : b;
        RawGroup& to = a_on ? b : a;
        ioctl(from.fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        ioctl(to.fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
        benchmark::DoNotOptimize(read(from.fds[0], buffer.data(), sizeof buffer));
        a_on = !a_on;
      },
      [&] { benchmark::DoNotOptimize(sets.switch_now()); });
  sets.stop();
}
BENCHMARK(BM_EventSetSwitchRatio)->Iterations(200);

// One region (start + stop) through each interface, on counters already counting, against the raw
// pair of ioctls that turns the same events on and off (issue 32's goal: at most 1.2× for the
// marker and PAPI paths). A region's start and stop each read the counters (one read(2) of the
// group): the same number of system calls as the raw pair.
void BM_MarkerRegionRatio(benchmark::State& state) {
  setenv("LIKWID_EVENTS", kGroup, 1);
  setenv("LIKWID_FILEPATH", (std::filesystem::temp_directory_path() / "perfmon-bench-likwid.txt").c_str(), 1);
  likwid_markerInit();
  likwid_markerRegisterRegion("region");
  RawGroup group;
  alternate(
      state, [&] { raw_enable_disable(group); },
      [&] {
        likwid_markerStartRegion("region");
        likwid_markerStopRegion("region");
      });
  likwid_markerClose();
  std::filesystem::remove(std::filesystem::temp_directory_path() / "perfmon-bench-likwid.txt");
}
BENCHMARK(BM_MarkerRegionRatio)->Iterations(200);

// PAPI counts ungrouped events: one event (task-clock), against the raw pair on one.
void BM_PapiRegionRatio(benchmark::State& state) {
  static const std::filesystem::path output = std::filesystem::temp_directory_path() / "perfmon-bench-papi";
  std::filesystem::create_directories(output);
  // Registered before the library's own exit handler, so it runs after it: the output goes.
  std::atexit([] { std::filesystem::remove_all(output); });
  setenv("PAPI_OUTPUT_DIRECTORY", output.c_str(), 1);
  setenv("PAPI_EVENTS", "perf::TASK-CLOCK", 1);
  PAPI_hl_region_begin("warm-up");  // the library starts, the thread's counters open
  PAPI_hl_region_end("warm-up");
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  alternate(
      state,
      [&] {
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
      },
      [&] {
        PAPI_hl_region_begin("region");
        PAPI_hl_region_end("region");
      });
  close(fd);
}
BENCHMARK(BM_PapiRegionRatio)->Iterations(200);

// perfmon's own scope: zero, start, stop and read (four system calls) against the raw pair.
void BM_ScopedRegionRatio(benchmark::State& state) {
  perfmon::CounterSession session = make_session();
  RawGroup group;
  alternate(
      state, [&] { raw_enable_disable(group); }, [&] { perfmon::ScopedMeasurement region(session); });
}
BENCHMARK(BM_ScopedRegionRatio)->Iterations(200);

}  // namespace

BENCHMARK_MAIN();
