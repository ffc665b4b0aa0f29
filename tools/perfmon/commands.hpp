// SPDX-License-Identifier: Apache-2.0
// The subcommands of the perfmon tool; each returns the process exit status.
#pragma once

#include <span>

namespace perfmon::cli {

int run_stat(std::span<char* const> args);
int run_record(std::span<char* const> args);
int run_script(std::span<char* const> args);
int run_report(std::span<char* const> args);
int run_diff(std::span<char* const> args);
int run_bench(std::span<char* const> args);
int run_annotate(std::span<char* const> args);
int run_top(std::span<char* const> args);
int run_serve(std::span<char* const> args);
int run_list(std::span<char* const> args);
int run_info(std::span<char* const> args);
int run_encode(std::span<char* const> args);
int run_decode(std::span<char* const> args);

}  // namespace perfmon::cli
