// SPDX-License-Identifier: Apache-2.0
// Whole files and the small text files the kernel exports in sysfs and procfs.
#pragma once

#include <optional>
#include <string>

namespace perfmon::kernel {

// The file's first line, without its newline; "" when the file is missing or unreadable.
std::string read_first_line(const std::string& path);

// The file's bytes; nullopt with errno set when it cannot be opened or read. Reads to the end
// rather than trusting st_size, which sysfs and procfs do not report truthfully.
std::optional<std::string> read_whole_file(const std::string& path);

// The same of a file that is not ours (a table a user names): read only if it is a regular file,
// opened without waiting (a FIFO in its place is refused, errno EINVAL, never blocks).
std::optional<std::string> read_regular_file(const std::string& path);

}  // namespace perfmon::kernel
