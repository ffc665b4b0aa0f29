// SPDX-License-Identifier: Apache-2.0
// What the tests of the emulated CPU share: whether qemu-user is here, perfmon stat --emulate run and
// its CSV read.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/session.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/target.hpp"
#include "process.hpp"

namespace perfmon::testing {

// qemu-user for this machine, or why the test is skipped.
inline std::string host_machine() {
  utsname name{};
  uname(&name);
  return name.machine;
}

inline bool have_qemu() {
  const char* path = std::getenv("PATH");
  std::istringstream directories(path != nullptr ? path : "");
  for (std::string directory; std::getline(directories, directory, ':');)
    if (access((directory + "/qemu-" + host_machine()).c_str(), X_OK) == 0) return true;
  return false;
}

#define REQUIRE_QEMU()                                                                                  \
  if (!have_qemu())                                                                                     \
  GTEST_SKIP() << "qemu-user is not installed (Debian's qemu-user; scripts/install-deps installs it): " \
                  "the emulated CPU cannot run"

inline std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

inline Result emulated_stat(std::vector<std::string> args) {
  args.insert(args.begin(), {PERFMON, "stat", "--emulate"});
  return run(args);
}

// The CSV value of `event` in `perfmon stat --emulate -x, -e event -- command`; its row must end in
// the "emulated" field.
inline long long emulated_count(const std::vector<std::string>& command, const std::string& event = "instructions",
                                const std::vector<std::string>& options = {}) {
  std::vector<std::string> args = options;
  args.insert(args.end(), {"-x,", "-e", event, "--"});
  args.insert(args.end(), command.begin(), command.end());
  Result r = emulated_stat(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& line : lines_of(r.err)) {
    std::vector<std::string> fields = fields_of(line);
    if (fields.size() < 3 || fields[2] != event) continue;
    EXPECT_EQ(fields.back(), "emulated") << line;
    return std::stoll(fields[0]);
  }
  ADD_FAILURE() << "no row for " << event << " in:\n" << r.err;
  return -1;
}

inline std::string loop(long iterations) {
  return std::to_string(iterations);
}

}  // namespace perfmon::testing
