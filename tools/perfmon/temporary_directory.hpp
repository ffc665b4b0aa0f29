// SPDX-License-Identifier: Apache-2.0
// A directory of the command's own under /tmp (mkdtemp: mode 0700, a name no one else holds) for the
// files a program it runs writes back to it (marker results, PAPI's output, a recording), removed
// with what it holds when it goes.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "perfmon/error.hpp"

namespace perfmon::cli {

class TemporaryDirectory {
 public:
  // `what`: what it holds, for the sentence of a failure ("the marker results"). Throws perfmon::Error.
  explicit TemporaryDirectory(std::string_view what) {
    char name[] = "/tmp/perfmon-XXXXXX";
    if (::mkdtemp(name) == nullptr)
      throw Error(ErrorKind::System,
                  "cannot make a directory for " + std::string(what) + ": " + std::strerror(errno) + ".", errno);
    path_ = name;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace perfmon::cli
