// SPDX-License-Identifier: Apache-2.0
// A perfmon2-style monitoring tool: sample a command into perfmon2's default format (one fixed
// buffer), wait on the message queue, and empty the buffer each time it fills; the end message
// says the command has gone.
//
//   monitor_command [-e EVENT] [-c PERIOD] -- COMMAND [ARG]...
//   (default: cpu-clock every 100 µs)
#include <perfmon/catalog.hpp>
#include <perfmon/error.hpp>
#include <perfmon/notification_queue.hpp>
#include <perfmon/sampling_format.hpp>
#include <perfmon/workload.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

struct Totals {
  std::uint64_t samples = 0;
  std::map<std::uint64_t, std::uint64_t> per_ip;

  void take(const perfmon::DefaultSamplingFormat& buffer) {
    buffer.for_each([&](const perfmon::DefaultFormatEntry& entry, std::span<const std::uint64_t>) {
      ++samples;
      ++per_ip[entry.ip];
    });
  }
};

}  // namespace

int main(int argc, char** argv) try {
  std::string event = "cpu-clock";
  std::uint64_t period = 100000;
  int arg = 1;
  for (; arg < argc && std::string(argv[arg]) != "--"; ++arg) {
    const std::string option = argv[arg];
    if (option == "-e" && arg + 1 < argc) {
      event = argv[++arg];
      continue;
    }
    if (option == "-c" && arg + 1 < argc) {
      period = std::strtoull(argv[++arg], nullptr, 10);
      continue;
    }
    std::fprintf(stderr, "usage: monitor_command [-e EVENT] [-c PERIOD] -- COMMAND [ARG]...\n");
    return 2;
  }
  if (arg + 1 >= argc) {
    std::fprintf(stderr, "usage: monitor_command [-e EVENT] [-c PERIOD] -- COMMAND [ARG]...\n");
    return 2;
  }
  perfmon::Workload workload(std::vector<std::string>(argv + arg + 1, argv + argc));
  perfmon::EventCatalog catalog;
  perfmon::SamplingOptions options;
  options.period = period;
  perfmon::Sampler sampler(catalog.parse(event), perfmon::Target::workload(workload), options);
  perfmon::DefaultSamplingFormat buffer(sampler, 4096);  // about a hundred samples at a time
  perfmon::NotificationQueue queue(sampler, buffer);
  workload.start();

  Totals totals;
  perfmon::Notification message;
  while (queue.next(message, -1) && message.type == perfmon::Notification::kOverflow) {
    std::printf("buffer full: %llu samples\n", static_cast<unsigned long long>(buffer.header().count));
    totals.take(buffer);
    queue.restart();  // empties the buffer and resumes sampling
  }
  totals.take(buffer);  // what the command left in a buffer that did not fill
  perfmon::WorkloadExit exit;
  workload.wait(exit);
  std::printf("end: %llu samples in %llu buffers, at %zu addresses\n", static_cast<unsigned long long>(totals.samples),
              static_cast<unsigned long long>(buffer.header().overflows + 1), totals.per_ip.size());
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "monitor_command: %s\n", error.what());
  return 1;
}
