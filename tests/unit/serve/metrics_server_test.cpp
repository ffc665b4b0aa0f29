// SPDX-License-Identifier: Apache-2.0
// A connection made elsewhere handed to the server (serve_connection): answered as one it accepted.
#include "perfmon/metrics_server.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/metrics.hpp"

namespace perfmon {
namespace {

TEST(MetricsServer, AConnectionMadeElsewhereIsServed) {
  EventCatalog catalog;
  MetricsOptions options;
  options.groups = catalog.parse("task-clock");
  std::optional<MetricsExporter> exporter;
  try {
    exporter.emplace(std::move(options));
  } catch (const Error& error) {
    GTEST_SKIP() << "cannot count whole CPUs here: " << error.what();
  }
  sockaddr_storage loopback{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&loopback);
  v4->sin_family = AF_INET;
  v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::optional<MetricsServer> server;
  try {
    server.emplace(*exporter, MachineProfileOptions{catalog.parse("cpu-clock"), 99, {}, {}}, loopback);
  } catch (const Error& error) {
    GTEST_SKIP() << error.what();  // libmicrohttpd is not installed
  }
  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  server->serve_connection(ends[1], loopback);
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: perfmon\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(write(ends[0], request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = read(ends[0], buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  close(ends[0]);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_NE(answer.find("perfmon_"), std::string::npos) << answer;
}

}  // namespace
}  // namespace perfmon
