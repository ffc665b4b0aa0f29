// SPDX-License-Identifier: Apache-2.0
// HTTP requests of any shape sent to a MetricsServer: libmicrohttpd's parser, then perfmon's
// routing and answers (/metrics in either format by Accept, /debug/pprof/profile's seconds, other
// paths and methods). Each request comes on a socketpair the server is handed (serve_connection:
// no TCP connection made and torn down each time, which took most of the target's time), is
// answered or its connection closed, and the server goes on answering a plain scrape on its
// loopback port.
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
#include "perfmon/error.hpp"
#include "perfmon/metrics_server.hpp"

namespace {

std::optional<perfmon::MetricsExporter> exporter;
std::optional<perfmon::MetricsServer> server;

// Sends `request` on `fd` and reads until the server closes it; what came back. `ended`, where
// given, says how the reading ended (0: the server closed; else the errno).
std::string exchange_on(int fd, const std::uint8_t* request, std::size_t size, int* ended) {
  std::string answer;
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
  close(fd);
  return answer;
}

sockaddr_storage loopback(std::uint16_t port) {
  sockaddr_storage address{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  v4->sin_family = AF_INET;
  v4->sin_port = htons(port);
  v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// `request` on a socketpair handed to the server.
std::string exchange(const std::uint8_t* request, std::size_t size) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return {};
  try {
    server->serve_connection(ends[1], loopback(0));
  } catch (const perfmon::Error&) {  // at its limit of connections: this one closed
    close(ends[0]);
    return {};
  }
  return exchange_on(ends[0], request, size, nullptr);
}

// `request` on a TCP connection to the server's port. `ended`: as exchange_on's.
std::string exchange_over_tcp(const std::uint8_t* request, std::size_t size, int* ended) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_storage address = loopback(server->port());
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(sockaddr_in)) != 0) {
    *ended = errno;
    close(fd);
    return {};
  }
  return exchange_on(fd, request, size, ended);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  perfmon::EventCatalog catalog;
  perfmon::MetricsOptions options;
  options.groups = catalog.parse("task-clock,context-switches");
  exporter.emplace(std::move(options));
  perfmon::ServerLimits limits;
  limits.idle_seconds = 2;
  // Profiles refused (503) once their seconds are read: a profile is a second of the machine
  // sampled, which the CLI tests take; here it would hold a server thread at the campaign's exit.
  limits.longest_profile_seconds = 0;
  perfmon::MachineProfileOptions profile{catalog.parse("cpu-clock"), 99, {}, {}};
  server.emplace(*exporter, std::move(profile), loopback(0), limits);
  std::atexit([] { server.reset(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  exchange(data, size);
  static unsigned inputs = 0;
  if (++inputs % 64 == 0) {
    static const std::string plain = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    int ended = 0;
    const std::string answer =
        exchange_over_tcp(reinterpret_cast<const std::uint8_t*>(plain.data()), plain.size(), &ended);
    if (answer.rfind("HTTP/1.1 200", 0) != 0) {  // the server stopped answering: say how
      std::fprintf(stderr, "a plain scrape after %u inputs: %s; it answered %zu bytes: %.200s\n", inputs,
                   ended == 0 ? "the server closed the connection" : std::strerror(ended), answer.size(),
                   answer.c_str());
      std::abort();
    }
  }
  return 0;
}
