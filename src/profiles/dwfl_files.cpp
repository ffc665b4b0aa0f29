// SPDX-License-Identifier: Apache-2.0
#include "profiles/dwfl_files.hpp"

#if PERFMON_HAVE_LIBDW
#include <sys/stat.h>

#include <vector>

#include "kernel/file_mapping.hpp"
#include "profiles/libdw.hpp"

namespace perfmon::analysis {

namespace {

// Exists and is not a regular file (a FIFO, a device, a directory).
bool exists_irregular(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode);
}

}  // namespace

Dwfl_Module* report_regular_elf(Dwfl* dwfl, const std::string& path, GElf_Addr base, bool add_p_vaddr) {
  kernel::FileDescriptor file = kernel::open_regular_file(path);
  if (!file) return nullptr;
  // libdwfl takes the descriptor: it closes it, on failure too.
  return dw().dwfl_report_elf(dwfl, path.c_str(), path.c_str(), file.release(), base, add_p_vaddr);
}

int find_regular_debuginfo(Dwfl_Module* module, void** user_data, const char* module_name, Dwarf_Addr base,
                           const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                           char** debuginfo_file_name) {
  // The paths a recording's maker can choose: those beside the file, and a link's own absolute
  // path. (The build-id tree and the debug root belong to the machine's administrator.)
  std::vector<std::string> candidates;
  if (debuglink_file != nullptr && *debuglink_file != '\0') {
    const std::string link = debuglink_file;
    if (link.front() == '/') {
      candidates.push_back(link);
    } else {
      const std::string file = file_name != nullptr ? file_name : "";
      const std::string dir = file.substr(0, file.rfind('/') + 1);
      candidates.push_back(dir + link);
      candidates.push_back(dir + ".debug/" + link);
    }
  }
  for (const std::string& candidate : candidates)
    if (exists_irregular(candidate)) return -1;
  return dw().dwfl_standard_find_debuginfo(module, user_data, module_name, base, file_name, debuglink_file,
                                           debuglink_crc, debuginfo_file_name);
}

}  // namespace perfmon::analysis
#endif
