// SPDX-License-Identifier: Apache-2.0
// The libdw functions perfmon calls (DWARF line tables and inlined calls for report and annotate,
// CFI unwinding for --call-graph dwarf), looked up in libdw.so.1 when first needed: linked at
// start, libdw and the libraries it needs (libelf, liblzma, libbz2) cost every command, perfmon
// --version and perfmon stat included, a fifth of its start-up (docs/benchmarks.md).
#pragma once

#if PERFMON_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <string>

namespace perfmon::analysis {

#define PERFMON_LIBDW_FUNCTIONS(X)                                                                                    \
  X(dwfl_begin)                                                                                                       \
  X(dwfl_end)                                                                                                         \
  X(dwfl_report_begin) X(dwfl_report_begin_add) X(dwfl_report_end) X(dwfl_report_elf) X(dwfl_addrmodule)              \
      X(dwfl_module_getdwarf) X(dwfl_module_addrdie) X(dwfl_module_getsrc) X(dwfl_lineinfo) X(dwfl_build_id_find_elf) \
          X(dwfl_standard_find_debuginfo) X(dwfl_offline_section_address) X(dwfl_attach_state)                        \
              X(dwfl_getthread_frames) X(dwfl_frame_pc) X(dwfl_thread_state_registers)                                \
                  X(dwfl_thread_state_register_pc) X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_formstring)          \
                      X(dwarf_formudata) X(dwarf_formref_die) X(dwarf_diename) X(dwarf_diecu) X(dwarf_getsrcfiles)    \
                          X(dwarf_filesrc) X(dwarf_haspc) X(dwarf_child) X(dwarf_siblingof) X(dwarf_tag)

struct Libdw {
#define PERFMON_LIBDW_MEMBER(name) decltype(&::name) name = nullptr;
  PERFMON_LIBDW_FUNCTIONS(PERFMON_LIBDW_MEMBER)
#undef PERFMON_LIBDW_MEMBER
};

// libdw's functions, loaded once; nullptr where libdw.so.1 cannot be loaded or lacks one of them.
const Libdw* libdw() noexcept;
// The same, where the caller found them loaded (a session libdw began).
inline const Libdw& dw() noexcept {
  return *libdw();
}

}  // namespace perfmon::analysis
#endif
