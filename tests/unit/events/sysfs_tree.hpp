// SPDX-License-Identifier: Apache-2.0
// A temporary sysfs event_source tree, laid out as the kernel lays it out, for catalogue tests.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace perfmon::testing {

class SysfsTree : public ::testing::Test {
 protected:
  SysfsTree() {
    char pattern[] = "/tmp/perfmon-sysfs-XXXXXX";
    root_ = mkdtemp(pattern);
  }
  ~SysfsTree() override { std::filesystem::remove_all(root_); }
  // Writes `text` and a newline to root/path, creating its directories.
  void write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << "\n";
  }
  std::filesystem::path root_;
};

}  // namespace perfmon::testing
