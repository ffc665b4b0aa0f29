// SPDX-License-Identifier: Apache-2.0
// How the tool reports the library's errors: the library's sentence after the command's name, and
// on a line of its own what to run next where the tool knows it (the library never names the
// tool's commands or flags). Whatever the user typed is escaped before it reaches the terminal.
#pragma once

#include <string>
#include <string_view>

#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

// Prints the error to standard error and returns `status`.
int report_error(std::string_view command, const Error& error, int status);

// Prints an error met while reading the events given and returns its status: 129 for what the user
// wrote wrong (a malformed or unknown event, as perf), 1 where the machine or the user's rights
// stand in the way (no tracefs access, no PMU).
int report_event_error(std::string_view command, const Error& error);

// Prints an error of a command that runs something (stat, record) and returns its status: 127 or
// 126 for a command that could not be started, as a shell gives them (not there, not executable),
// 1 for anything else.
int report_run_error(std::string_view command, const Error& error);

}  // namespace perfmon::cli
