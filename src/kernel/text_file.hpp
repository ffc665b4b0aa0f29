// The small text files the kernel exports in sysfs and procfs.
#pragma once

#include <string>

namespace perfmon::kernel {

// The file's first line, without its newline; "" when the file is missing or unreadable.
std::string read_first_line(const std::string& path);

}  // namespace perfmon::kernel
