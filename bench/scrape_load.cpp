// SPDX-License-Identifier: Apache-2.0
// A metrics endpoint under load: CLIENTS threads scraping it at once for SECONDS, each a new
// connection a scrape, as many Prometheus servers would: scrapes answered and failed, latency
// (median, p99), and what the daemon holds before and after (resident memory, descriptors).
//   scrape_load SECONDS CLIENTS PORT PID
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback_http.hpp"

namespace {

// Resident KiB and open descriptors of a process.
std::pair<long, long> held(int pid) {
  long resident = 0;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) resident = std::stol(line.substr(6));
  long descriptors = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       it != std::filesystem::directory_iterator(); it.increment(ec))
    ++descriptors;
  return {resident, descriptors};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: scrape_load SECONDS CLIENTS PORT PID\n");
    return 2;
  }
  const int seconds = std::stoi(argv[1]), clients = std::stoi(argv[2]), port = std::stoi(argv[3]),
            pid = std::stoi(argv[4]);
  const auto [resident_before, descriptors_before] = held(pid);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::atomic<long> answered{0}, failed{0};
  std::mutex latencies_lock;
  std::vector<double> latencies_ms;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&] {
      std::vector<double> mine;
      while (std::chrono::steady_clock::now() < end) {
        const auto began = std::chrono::steady_clock::now();
        const perfmon::testing::HttpAnswer answer =
            perfmon::testing::http(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        mine.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
        ++(answer.status == 200 ? answered : failed);
      }
      const std::lock_guard<std::mutex> lock(latencies_lock);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  for (std::thread& thread : threads) thread.join();
  // The last connections close: at the latest after the server's 10 s of silence.
  std::this_thread::sleep_for(std::chrono::seconds(11));
  const auto [resident_after, descriptors_after] = held(pid);
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto at = [&](double share) {
    return latencies_ms.empty()
               ? 0.0
               : latencies_ms[std::min(latencies_ms.size() - 1,
                                       static_cast<std::size_t>(share * static_cast<double>(latencies_ms.size())))];
  };
  std::printf(
      "%d clients for %d s: %ld scrapes answered (%.0f a second), %ld failed; latency %.2f ms median, %.2f ms p99\n",
      clients, seconds, answered.load(), static_cast<double>(answered.load()) / seconds, failed.load(), at(0.5),
      at(0.99));
  std::printf("the daemon: %.1f -> %.1f MiB resident, %ld -> %ld descriptors\n", resident_before / 1024.0,
              resident_after / 1024.0, descriptors_before, descriptors_after);
  return failed.load() == 0 ? 0 : 1;
}
