// SPDX-License-Identifier: Apache-2.0
// The files libdwfl opens for perfmon: a path named by a recording (whoever made the recording chose
// it) and the separate debug files it leads to are opened only if they are regular files, without
// waiting, so that a FIFO or a device named there cannot hang report or script.
#pragma once

#if PERFMON_HAVE_LIBDW
#include <elfutils/libdwfl.h>

#include <string>

namespace perfmon::analysis {

// Reports the ELF file at `path` to `dwfl` as dwfl_report_elf does, from a descriptor perfmon opened
// (nullptr where it is not a regular file, or no ELF file).
Dwfl_Module* report_regular_elf(Dwfl* dwfl, const std::string& path, GElf_Addr base, bool add_p_vaddr);

// Dwfl_Callbacks::find_debuginfo: dwfl_standard_find_debuginfo, except where a file it would open
// beside the file (by .gnu_debuglink name) or by an absolute .gnu_debugaltlink exists and is not a
// regular file.
int find_regular_debuginfo(Dwfl_Module* module, void** user_data, const char* module_name, Dwarf_Addr base,
                           const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                           char** debuginfo_file_name);

}  // namespace perfmon::analysis
#endif
