// SPDX-License-Identifier: Apache-2.0
// One HTTP request to 127.0.0.1:PORT on a fresh connection, read to the end (the server closes
// it): for the tests of perfmon serve and its benchmark.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace perfmon::testing {

struct HttpAnswer {
  int status = 0;  // 0: no HTTP answer (refused, or closed without one)
  std::string head, body;
};

// One request on a fresh connection to 127.0.0.1:port, read to the end (the server closes it).
inline HttpAnswer http(int port, const std::string& request) {
  HttpAnswer answer;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return answer;
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = write(fd, request.data() + sent, request.size() - sent);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  close(fd);
  const std::size_t end = text.find("\r\n\r\n");
  answer.head = text.substr(0, end);
  answer.body = end == std::string::npos ? "" : text.substr(end + 4);
  if (text.starts_with("HTTP/1.")) answer.status = std::stoi(text.substr(9, 3));
  return answer;
}

}  // namespace perfmon::testing
