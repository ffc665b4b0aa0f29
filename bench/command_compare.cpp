// SPDX-License-Identifier: Apache-2.0
// Whole-command timing: runs two commands alternately (the order swapped every round, so that the
// machine's drift falls on both alike), each started with posix_spawn and timed from spawn to
// exit on CLOCK_MONOTONIC, and prints each one's median time and peak memory (the kernel's
// ru_maxrss of the command, from wait4) and the ratios of the medians.
//
//   command_compare RUNS COMMAND_A [ARGS...] ::: COMMAND_B [ARGS...]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Milliseconds from spawning the command to its exit; its output is discarded.
struct Run {
  double ms, peak_mib;
};

Run run_once(std::vector<char*>& argv) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const double start = now_ms();
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "command_compare: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    std::exit(1);
  }
  int status;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double elapsed = now_ms() - start;
  posix_spawn_file_actions_destroy(&actions);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "command_compare: '%s' failed (status %d)\n", argv[0], status);
    std::exit(1);
  }
  return {elapsed, static_cast<double>(usage.ru_maxrss) / 1024.0};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string joined(const std::vector<char*>& argv) {
  std::string text;
  for (char* word : argv)
    if (word != nullptr) text += (text.empty() ? "" : " ") + std::string(word);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> commands[2];
  int which = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], ":::") == 0 && which == 0) {
      which = 1;
      continue;
    }
    commands[which].push_back(argv[i]);
  }
  const int runs = argc > 1 ? std::atoi(argv[1]) : 0;
  if (runs <= 0 || commands[0].empty() || commands[1].empty()) {
    std::fprintf(stderr, "usage: command_compare RUNS COMMAND_A [ARGS...] ::: COMMAND_B [ARGS...]\n");
    return 2;
  }
  for (auto& command : commands) command.push_back(nullptr);
  std::vector<double> times[2], peaks[2];
  for (int round = 0; round < runs; ++round) {
    for (int k = 0; k < 2; ++k) {
      const int index = round % 2 == 0 ? k : 1 - k;
      const Run run = run_once(commands[index]);
      times[index].push_back(run.ms);
      peaks[index].push_back(run.peak_mib);
    }
  }
  const double a = median(times[0]), b = median(times[1]), pa = median(peaks[0]), pb = median(peaks[1]);
  std::printf("%8.3f ms  %8.1f MiB peak  median of %d  %s\n", a, pa, runs, joined(commands[0]).c_str());
  std::printf("%8.3f ms  %8.1f MiB peak  median of %d  %s\n", b, pb, runs, joined(commands[1]).c_str());
  std::printf("ratio %.3f  memory ratio %.3f\n", a / b, pa / pb);
  return 0;
}
