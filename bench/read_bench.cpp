// Counter-read overhead: the library against the raw system calls it wraps, measured in the same run.
//   build/bench/read_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstdint>

#include "perfmon/catalog.hpp"
#include "perfmon/session.hpp"

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

}  // namespace

BENCHMARK_MAIN();
