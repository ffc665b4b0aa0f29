// SPDX-License-Identifier: Apache-2.0
#include "errors.hpp"

#include <cerrno>
#include <cstdio>

namespace perfmon::cli {

namespace {
const char* advice(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::UnknownEvent:
      return "Run 'perfmon list' for the events this machine knows, 'perfmon list --pmu MODEL' for a CPU model's.";
    case ErrorKind::OtherCpuModel:
      return "Run 'perfmon encode --pmu MODEL EVENT' for its encoding on that CPU model.";
    default:
      return nullptr;
  }
}
}  // namespace

int report_error(std::string_view command, const Error& error, int status) {
  std::fprintf(stderr, "perfmon %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               printable(error.what()).c_str());
  if (const char* next = advice(error.kind())) std::fprintf(stderr, "%s\n", next);
  return status;
}

int report_event_error(std::string_view command, const Error& error) {
  switch (error.kind()) {
    case ErrorKind::InvalidEvent:
    case ErrorKind::UnknownEvent:
    case ErrorKind::OtherCpuModel:
    case ErrorKind::InvalidArgument:
      return report_error(command, error, 129);
    default:
      return report_error(command, error, 1);
  }
}

int report_run_error(std::string_view command, const Error& error) {
  const int status = error.kind() != ErrorKind::CommandFailed ? 1 : error.errnum() == ENOENT ? 127 : 126;
  return report_error(command, error, status);
}

}  // namespace perfmon::cli
