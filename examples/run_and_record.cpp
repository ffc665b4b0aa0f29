// SPDX-License-Identifier: Apache-2.0
// A command counted from start to end, then recorded into a perf.data file, through the run layer
// (perfmon/measurement.hpp, perfmon/recording.hpp): what perfmon stat and perfmon record do.
//   run_and_record EVENT FILE -- COMMAND [ARGS...]
#include <fcntl.h>
#include <unistd.h>
#include <perfmon/catalog.hpp>
#include <perfmon/error.hpp>
#include <perfmon/measurement.hpp>
#include <perfmon/perf_data.hpp>
#include <perfmon/recording.hpp>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) try {
  if (argc < 5 || std::string(argv[3]) != "--") {
    std::fprintf(stderr, "usage: run_and_record EVENT FILE -- COMMAND [ARGS...]\n");
    return 2;
  }
  const std::vector<std::string> command(argv + 4, argv + argc);
  perfmon::EventCatalog catalog;

  // Counted: the request says what and where; run() starts, waits and reads.
  perfmon::MeasurementRequest request;
  request.groups = catalog.parse(argv[1]);
  request.command = command;
  std::unique_ptr<perfmon::Measurement> measurement = perfmon::measure(request);
  perfmon::RunHooks nothing_to_add;
  const perfmon::RunResult counted = perfmon::run(*measurement, nothing_to_add);
  for (const perfmon::ReadingEvent& event : counted.reading.events)
    std::printf("%s: %llu in %.3f ms, exit %d\n", event.event.name.c_str(),
                static_cast<unsigned long long>(event.value.raw), static_cast<double>(counted.elapsed.count()) / 1e6,
                counted.exit ? counted.exit->exit_code() : -1);

  // Recorded: every occurrence sampled into FILE, drained while the command runs.
  const int fd = ::open(argv[2], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw perfmon::Error(perfmon::ErrorKind::System, std::string("cannot make ") + argv[2] + ".", errno);
  perfmon::Workload workload(command);
  perfmon::CommandOf<perfmon::Workload> started(workload);
  perfmon::SamplingOptions every_one;
  every_one.period = 1;
  every_one.task_records = true;
  perfmon::Recording recording(fd, catalog.parse(argv[1]), perfmon::Target::workload(workload), every_one, {});
  recording.record(&started, nothing_to_add);
  const perfmon::RecordLoss lost = recording.finish(perfmon::describe_this_host({"run_and_record"}));
  ::close(fd);
  std::printf("recorded %llu samples into %s%s\n", static_cast<unsigned long long>(recording.sampler().stats().samples),
              argv[2], lost.sentence().empty() ? "" : (", " + lost.sentence()).c_str());
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "run_and_record: %s\n", error.what());
  return 1;
}
