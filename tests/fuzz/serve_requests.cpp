// SPDX-License-Identifier: Apache-2.0
// HTTP requests of any shape sent to a MetricsServer on the loopback: libmicrohttpd's parser, then
// perfmon's routing and answers (/metrics in either format by Accept, /debug/pprof/profile's
// seconds, other paths and methods). Each request is answered or its connection closed, and the
// server goes on answering a plain scrape.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "perfmon/catalog.hpp"
#include "perfmon/metrics_server.hpp"

namespace {

std::optional<perfmon::MetricsExporter> exporter;
std::optional<perfmon::MetricsServer> server;

// Sends `request` on a fresh connection and reads until the server closes it; what came back.
// `ended`, where given, says how the reading ended (0: the server closed; else the errno).
std::string exchange(const std::uint8_t* request, std::size_t size, int* ended = nullptr) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(server->port());
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const timeval patience{5, 0};  // a server that answers nothing in 5 s is a hang
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    // libFuzzer's SIGALRM (its -timeout) interrupts a socket call with a timeout even under
    // SA_RESTART: EINTR is that, not the server, and the call is made again.
    for (std::size_t sent = 0; sent < size;) {
      const ssize_t n = send(fd, request + sent, size - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    shutdown(fd, SHUT_WR);
    char buffer[65536];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) answer.append(buffer, static_cast<std::size_t>(n));
    if (ended != nullptr) *ended = n == 0 ? 0 : errno;
  } else if (ended != nullptr) {
    *ended = errno;
  }
  close(fd);
  return answer;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  perfmon::EventCatalog catalog;
  perfmon::MetricsOptions options;
  options.groups = catalog.parse("task-clock,context-switches");
  exporter.emplace(std::move(options));
  sockaddr_storage loopback{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&loopback);
  v4->sin_family = AF_INET;
  v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  perfmon::ServerLimits limits;
  limits.idle_seconds = 2;
  // Profiles refused (503) once their seconds are read: a profile is a second of the machine
  // sampled, which the CLI tests take; here it would hold a server thread at the campaign's exit.
  limits.longest_profile_seconds = 0;
  perfmon::MachineProfileOptions profile{catalog.parse("cpu-clock"), 99, {}, {}};
  server.emplace(*exporter, std::move(profile), loopback, limits);
  std::atexit([] { server.reset(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  exchange(data, size);
  static unsigned inputs = 0;
  if (++inputs % 64 == 0) {
    static const std::string plain = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    int ended = 0;
    const std::string answer = exchange(reinterpret_cast<const std::uint8_t*>(plain.data()), plain.size(), &ended);
    if (answer.rfind("HTTP/1.1 200", 0) != 0) {  // the server stopped answering: say how
      std::fprintf(stderr, "a plain scrape after %u inputs: %s; it answered %zu bytes: %.200s\n", inputs,
                   ended == 0 ? "the server closed the connection" : std::strerror(ended), answer.size(),
                   answer.c_str());
      std::abort();
    }
  }
  return 0;
}
