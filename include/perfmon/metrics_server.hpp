// SPDX-License-Identifier: Apache-2.0
// perfmon: the HTTP server of `perfmon serve`, for any program to run: GET /metrics answers a
// MetricsExporter's scrape (Prometheus text 0.0.4 or OpenMetrics, as the Accept header asks),
// GET /debug/pprof/profile?seconds=N the machine sampled for N seconds (machine_profile.hpp), one
// at a time. Any other method gets 405, another path 404, a malformed request 400. Over
// libmicrohttpd (Debian's libmicrohttpd12), loaded when the first server starts.
//
//   perfmon::MetricsExporter exporter({catalog.parse("task-clock")});
//   perfmon::MetricsServer server(exporter, {catalog.parse("cpu-clock")}, loopback_address);
//   std::printf("port %u\n", server.port());
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "perfmon/machine_profile.hpp"
#include "perfmon/metrics.hpp"

namespace perfmon {

// What one client may take: connections at once, seconds of silence, bytes of request, and the
// longest profile asked (0: no profiles, answered 503).
struct ServerLimits {
  unsigned connections = 64;
  // Per client address: so that one client (or one host's many) cannot take every slot.
  unsigned connections_per_address = 16;
  unsigned idle_seconds = 10;
  // A request must have come whole this long after its connection opened (or its last answer): a
  // client that sends a byte a second is cut off, not waited for.
  unsigned request_seconds = 10;
  std::size_t request_bytes = 32 << 10;
  unsigned longest_profile_seconds = 300;
};

class MetricsServer {
 public:
  // Listens at `address` (port 0: a free one) and answers on two threads of its own until
  // destroyed; a profile is taken on a third, its connection waiting, so that scrapes go on
  // meanwhile. `exporter` must outlive it. Destroying it ends a profile being taken (its client
  // gets the time sampled so far). Throws perfmon::Error (libmicrohttpd is not installed, the
  // address is taken).
  MetricsServer(MetricsExporter& exporter, MachineProfileOptions profile, const sockaddr_storage& address,
                ServerLimits limits = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port it listens on.
  std::uint16_t port() const noexcept;
  // Serves a connection made elsewhere (one end of a socketpair, a socket accepted by another
  // listener) as one accepted from `peer`, whose address counts towards the limits per address.
  // The server owns `fd` from now on. Throws perfmon::Error (Limit) where it takes no more.
  void serve_connection(int fd, const sockaddr_storage& peer);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
