// SPDX-License-Identifier: Apache-2.0
#include "profiles/libdw.hpp"

#if PERFMON_HAVE_LIBDW
#include "kernel/loaded_library.hpp"

namespace perfmon::analysis {

const Libdw* libdw() noexcept {
  static const Libdw* const loaded = []() -> const Libdw* {
    static Libdw functions;
    const kernel::LoadedLibrary library("libdw.so.1");
    bool all = library.loaded();
#define PERFMON_LIBDW_FIND(name) all = all && library.find(#name, functions.name);
    PERFMON_LIBDW_FUNCTIONS(PERFMON_LIBDW_FIND)
#undef PERFMON_LIBDW_FIND
    return all ? &functions : nullptr;
  }();
  return loaded;
}

}  // namespace perfmon::analysis
#endif
