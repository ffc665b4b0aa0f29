// SPDX-License-Identifier: Apache-2.0
// The control channel's latency: "enable" written on the FIFO until its "ack" comes back, and the
// same for "ping" (the channel alone, nothing switched), through perfmon stat and perf stat, each
// attached to this process (-p) with -D -1, ROUNDS rounds each. The ack is written once the
// counters are on, so enable's round trip bounds the time from the command to counting. Each
// enabled stretch makes one getppid call: the count at the end must equal the rounds.
//   control_latency PERFMON [ROUNDS]   (perf stat too, where `perf` is on PATH)
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

double micros_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

void send(int ctl, int ack, const char* command) {
  const std::string line = std::string(command) + "\n";
  if (write(ctl, line.data(), line.size()) != static_cast<ssize_t>(line.size())) std::exit(1);
  char reply[4];
  std::size_t got = 0;
  while (got < sizeof reply) {
    const ssize_t n = read(ack, reply + got, sizeof reply - got);
    if (n <= 0) std::exit(1);
    got += static_cast<std::size_t>(n);
  }
}

std::string percentiles(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  char text[96];
  std::snprintf(text, sizeof text, "median %6.1f us, p99 %6.1f us", values[values.size() / 2],
                values[values.size() * 99 / 100]);
  return text;
}

void measure(const std::string& tool, const char* label, int rounds) {
  char dir_template[] = "/tmp/control-latency-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string ctl_path = dir + "/ctl", ack_path = dir + "/ack", out_path = dir + "/out", log_path = dir + "/log";
  mkfifo(ctl_path.c_str(), 0600);
  mkfifo(ack_path.c_str(), 0600);
  const std::string me = std::to_string(getpid());
  const pid_t child = fork();
  if (child == 0) {
    const std::string control = "--control=fifo:" + ctl_path + "," + ack_path;
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);  // "Events enabled", each time
    dup2(log, 2);
    execlp(tool.c_str(), tool.c_str(), "stat", "-x,", "-o", out_path.c_str(), "-D", "-1", control.c_str(), "-p",
           me.c_str(), "-e", "syscalls:sys_enter_getppid", static_cast<char*>(nullptr));
    _exit(127);
  }
  const int ctl = open(ctl_path.c_str(), O_WRONLY);  // waits for the tool to open its end
  const int ack = open(ack_path.c_str(), O_RDONLY);
  send(ctl, ack, "ping");  // ready
  std::vector<double> enable, ping;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    send(ctl, ack, "enable");
    enable.push_back(micros_since(start));
    syscall(SYS_getppid);
    send(ctl, ack, "disable");
    start = std::chrono::steady_clock::now();
    send(ctl, ack, "ping");
    ping.push_back(micros_since(start));
  }
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  std::ifstream out(out_path);
  std::string line, count = "?";
  while (std::getline(out, line))
    if (line.find("sys_enter_getppid") != std::string::npos) count = line.substr(0, line.find(','));
  std::printf("%-8s enable -> ack: %s | ping -> ack: %s | counted %s of %d\n", label, percentiles(enable).c_str(),
              percentiles(ping).c_str(), count.c_str(), rounds);
  close(ctl);
  close(ack);
  for (const std::string& path : {ctl_path, ack_path, out_path, log_path}) unlink(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: control_latency PERFMON [ROUNDS]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2000;
  measure(argv[1], "perfmon", rounds);
  if (system("command -v perf >/dev/null") == 0) measure("perf", "perf", rounds);
  return 0;
}
