// SPDX-License-Identifier: Apache-2.0
// Two metrics endpoints scraped alternately, as Prometheus scrapes them (GET /metrics on a new
// connection): each endpoint's latency (median, p99), the CPU time its daemon spent per scrape
// (the process's user and system time from /proc/PID/stat, which keeps the time of threads that
// have exited), its resident memory, and what a scrape's body weighs.
//   scrape_compare ROUNDS NAME PORT PID NAME PORT PID
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loopback_http.hpp"

namespace {

struct Endpoint {
  std::string name;
  int port = 0;
  int pid = 0;
  std::vector<double> latencies_ms;
  std::uint64_t cpu_ns = 0;
  std::size_t body_bytes = 0;
  bool failed = false;
};

// The CPU time of a process, its exited threads' included (utime + stime of /proc/PID/stat, in
// clock ticks: 10 ms each, fine over thousands of scrapes). Summing the live threads' schedstat
// instead missed the time of threads that had ended: a thread-per-connection server's looked
// cheaper than it was.
std::uint64_t cpu_time_ns(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));  // from field 3, the state
  std::string field;
  std::uint64_t utime = 0, stime = 0;
  for (int k = 3; k <= 13; ++k) fields >> field;  // the state to cmajflt
  fields >> utime >> stime;                       // fields 14 and 15
  return (utime + stime) * 1000000000ull / static_cast<std::uint64_t>(sysconf(_SC_CLK_TCK));
}

long resident_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

// One scrape; the body's size, or -1.
long scrape(int port) {
  const perfmon::testing::HttpAnswer answer = perfmon::testing::http(
      port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\nConnection: close\r\n\r\n");
  return answer.status == 200 ? static_cast<long>(answer.body.size()) : -1;
}

double percentile(std::vector<double> values, double share) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(share * static_cast<double>(values.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: scrape_compare ROUNDS NAME PORT PID NAME PORT PID\n");
    return 2;
  }
  const int rounds = std::stoi(argv[1]);
  std::vector<Endpoint> endpoints(2);
  for (int k = 0; k < 2; ++k) {
    endpoints[k].name = argv[2 + 3 * k];
    endpoints[k].port = std::stoi(argv[3 + 3 * k]);
    endpoints[k].pid = std::stoi(argv[4 + 3 * k]);
  }
  for (int round = 0; round < rounds; ++round) {
    for (Endpoint& endpoint : endpoints) {
      const std::uint64_t cpu_before = cpu_time_ns(endpoint.pid);
      const auto began = std::chrono::steady_clock::now();
      const long bytes = scrape(endpoint.port);
      const auto took = std::chrono::steady_clock::now() - began;
      endpoint.cpu_ns += cpu_time_ns(endpoint.pid) - cpu_before;
      endpoint.failed = endpoint.failed || bytes < 0;
      endpoint.body_bytes = static_cast<std::size_t>(std::max(0L, bytes));
      endpoint.latencies_ms.push_back(std::chrono::duration<double, std::milli>(took).count());
    }
  }
  for (const Endpoint& endpoint : endpoints)
    std::printf("%-14s %7.3f ms median  %7.3f ms p99  %8.1f us CPU a scrape  %7.1f MiB resident  %6zu bytes%s\n",
                endpoint.name.c_str(), percentile(endpoint.latencies_ms, 0.5), percentile(endpoint.latencies_ms, 0.99),
                static_cast<double>(endpoint.cpu_ns) / rounds / 1000.0,
                static_cast<double>(resident_kib(endpoint.pid)) / 1024.0, endpoint.body_bytes,
                endpoint.failed ? "  (some scrapes failed)" : "");
  const double cpu_ratio =
      static_cast<double>(endpoints[0].cpu_ns) / static_cast<double>(std::max<std::uint64_t>(1, endpoints[1].cpu_ns));
  std::printf("ratio: CPU a scrape %.3f, p99 latency %.3f, resident memory %.3f\n", cpu_ratio,
              percentile(endpoints[0].latencies_ms, 0.99) / std::max(1e-9, percentile(endpoints[1].latencies_ms, 0.99)),
              static_cast<double>(resident_kib(endpoints[0].pid)) /
                  static_cast<double>(std::max(1L, resident_kib(endpoints[1].pid))));
  return endpoints[0].failed || endpoints[1].failed ? 1 : 0;
}
